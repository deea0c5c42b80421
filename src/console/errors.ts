/**
 * Errors of operator commands, shared by the console, the in-game console
 * and the local socket (spec 3 §7 rule 1). Codes extend the server's
 * {@link AdminErrorCode}s with the ones only a command front end produces.
 *
 * @module
 */

import type { AdminErrorCode, AdminResult } from "../server/mod.ts";

/** Every code a command can fail with (documented in `docs/openuds.md`). */
export type ErrorCode =
  | AdminErrorCode
  /** No command of that name. */
  | "UNKNOWN_COMMAND"
  /** The subsystem the command needs is not running in this process (persistence, plugins, …). */
  | "UNAVAILABLE";

/** A command failed with a code and an English message. */
export class CommandError extends Error {
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string) {
    super(message);
    this.name = "CommandError";
    this.code = code;
  }
}

/** The value of a successful {@link AdminResult}; throws its failure as a {@link CommandError}. */
export function unwrap<T>(result: AdminResult<T>): T {
  if (!result.ok) throw new CommandError(result.code, result.message);
  return result.value;
}

/** Throws `INVALID_ARGUMENT`. */
export function invalid(message: string): never {
  throw new CommandError("INVALID_ARGUMENT", message);
}

/** Throws `UNAVAILABLE` naming the missing subsystem. */
export function unavailable(what: string): never {
  throw new CommandError("UNAVAILABLE", what);
}
