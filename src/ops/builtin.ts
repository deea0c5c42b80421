/**
 * Declares a built-in operation: one whose context is {@link OpsServices}.
 *
 * @module
 */

import type { z } from "zod";
import { defineOp, type Operation, type OpSpec } from "./op.ts";
import type { OpsServices } from "./services.ts";

/** A built-in operation. */
export type BuiltinOp = Operation<OpsServices>;

/** Declares a built-in operation (see {@link defineOp}). */
export function builtin<S extends z.ZodRawShape = Record<never, never>>(spec: OpSpec<OpsServices, S>): BuiltinOp {
  return defineOp(spec);
}
