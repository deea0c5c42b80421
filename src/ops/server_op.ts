/**
 * Declares an operation over the server: one whose context is
 * {@link OpsServices} (every built-in one, and those extension hosts add
 * that reach the server the same way).
 *
 * @module
 */

import type * as z from "../util/zod.ts";
import { defineOp, type Operation, type OpSpec } from "./op.ts";
import type { OpsServices } from "./services.ts";

/** An operation over the server. */
export type ServerOp = Operation<OpsServices>;

/** Declares an operation over the server (see {@link defineOp}). */
export function serverOp<S extends z.core.$ZodShape = Record<never, never>>(spec: OpSpec<OpsServices, S>): ServerOp {
  return defineOp(spec);
}
