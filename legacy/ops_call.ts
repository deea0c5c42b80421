/**
 * Calls another operation from inside one, synchronously when that one runs
 * synchronously (the built-in room and moderation changes do), as the same
 * actor: legacy operations stay synchronous, so a Lua host function gets
 * their real result within its call.
 *
 * @module
 */

import type { OpCall, OpsServices, ServerOps } from "../src/ops/mod.ts";

/** Runs `name` now as the caller's actor; throws its `OpsError`; refuses an operation that would wait. */
export function callNow(ops: ServerOps, call: OpCall<OpsServices>, name: string, args: unknown): unknown {
  const outcome = ops.tryCallNow(name, args, call.actor);
  if (outcome instanceof Promise) {
    throw new TypeError(`Cannot call ${name} synchronously: it waits`);
  }
  if (!outcome.ok) throw outcome.error;
  return outcome.value;
}
