/**
 * One operation, declared once: its name (and aliases), a one-line summary,
 * the permission it needs, whether it changes state (then it is audited), a
 * zod shape of its named arguments -- whose key order is also the order of
 * the positional form a plugin's `api-call(method, list<json-value>)` uses --
 * and the function that runs it and returns plain JSON.
 *
 * @module
 */

import * as z from "../util/zod.ts";
import type { Actor, Permission } from "./actor.ts";

/** A JSON value, as results are. */
export type Json = null | boolean | number | string | readonly Json[] | { readonly [key: string]: Json };

/** What an operation's function is given besides its arguments. */
export interface OpCall<C> {
  /** Who called (already permitted). */
  readonly actor: Actor;
  /** The operation's name as called (an alias or the name). */
  readonly calledAs: string;
  /** What the operations reach (for built-in operations, `OpsServices`). */
  readonly context: C;
  /** Calls another operation as the same actor. */
  call(name: string, args?: unknown): Promise<unknown>;
  /** Runs `fn` once the caller has delivered the result (OpenUDS: after the response is written), else right after. */
  defer(fn: () => void): void;
}

/** A registered operation. */
export interface Operation<C = unknown> {
  readonly name: string;
  readonly aliases: readonly string[];
  readonly summary: string;
  readonly permission: Permission;
  /** Changes state: every call is audited. */
  readonly mutates: boolean;
  /** Named arguments (unknown keys are ignored); a loose shape, as the argument readers parse single fields of it. */
  readonly schema: z.ZodMiniObject<z.core.$ZodLooseShape>;
  /** Parameter names in positional order. */
  readonly positional: readonly string[];
  /** Runs with validated arguments; throws `OpsError` on failure. */
  run(args: never, call: OpCall<C>): unknown;
}

/** What {@link defineOp} takes. */
export interface OpSpec<C, S extends z.core.$ZodShape> {
  /** Lower case, dotted: `room.kick`, `persist.touches`, `user_name`. */
  readonly name: string;
  /** Other names of the same operation (OpenUDS and `api-call` spell some differently). */
  readonly aliases?: readonly string[];
  readonly summary: string;
  readonly permission: Permission;
  readonly mutates?: boolean;
  /** Argument schemas by name, in positional order. */
  readonly params?: S;
  run(args: z.output<z.ZodMiniObject<S>>, call: OpCall<C>): unknown;
}

/** A valid operation name: lower-case words of letters, digits and `_`, separated by dots. */
export const OP_NAME = /^[a-z][a-z0-9_]*(?:\.[a-z][a-z0-9_]*)*$/;

/** Declares an operation. Throws a TypeError for a malformed name. */
export function defineOp<C, S extends z.core.$ZodShape = Record<never, never>>(spec: OpSpec<C, S>): Operation<C> {
  for (const name of [spec.name, ...(spec.aliases ?? [])]) {
    if (!OP_NAME.test(name)) throw new TypeError(`Cannot define operation "${name}": expected dotted lower-case words`);
  }
  const shape = (spec.params ?? {}) as S;
  return {
    name: spec.name,
    aliases: spec.aliases ?? [],
    summary: spec.summary,
    permission: spec.permission,
    mutates: spec.mutates ?? false,
    schema: z.object(shape),
    positional: Object.keys(shape),
    run: spec.run as Operation<C>["run"],
  };
}
