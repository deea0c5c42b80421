/**
 * The one error of the operations layer (spec 3 §7 rule 1): every operation,
 * whichever surface called it, fails with an {@link OpsError} carrying a
 * stable code. Surfaces only render it: the console as `error: <message>`,
 * OpenUDS as `{code, message}`, HTTP as a status with `{error, code}`, a
 * plugin host as the `api-result` error string.
 *
 * The server's own results ({@link AdminResult}) use a subset of these codes;
 * {@link must} turns them into an `OpsError`.
 *
 * @module
 */

import type { AdminErrorCode, AdminResult } from "../server/mod.ts";

/** Every code an operation can fail with, in the order `docs/openuds.md` lists them. */
export const OPS_ERROR_CODES = [
  /** The room does not exist. */
  "ROOM_NOT_FOUND",
  /** The user is not online / not in that room / not banned / not an administrator. */
  "USER_NOT_FOUND",
  /** Something else named by the arguments does not exist (a round, an approval request, ...). */
  "NOT_FOUND",
  /** Missing or malformed argument, invalid configuration on reload. */
  "INVALID_ARGUMENT",
  /** The state does not allow it (start without a chart, the server shutting down, ...). */
  "INVALID_STATE",
  /** Already exists / already ready / already in that room / busy. */
  "CONFLICT",
  /** Refused on purpose: the actor lacks the permission, or the rule forbids it. */
  "FORBIDDEN",
  /** No operation (or console command) of that name. */
  "UNKNOWN_COMMAND",
  /** The subsystem the operation needs is not running in this process. */
  "UNAVAILABLE",
  /** An unexpected failure (logged on the server). */
  "INTERNAL",
] as const;

/** A stable error code of the operations layer. */
export type OpsErrorCode = (typeof OPS_ERROR_CODES)[number];

// The server's result codes must stay a subset of the operations layer's.
const _serverCodesAreOpsCodes: AdminErrorCode extends OpsErrorCode ? true : never = true;
void _serverCodesAreOpsCodes;

/** One problem with the arguments, by parameter path. */
export interface ArgumentIssue {
  /** `user_id`, `filters.state`; empty for the arguments as a whole. */
  readonly path: string;
  readonly message: string;
}

/** An operation failed. */
export class OpsError extends Error {
  readonly code: OpsErrorCode;
  /** More JSON for the error object (OpenUDS renders it next to `code` and `message`; `cli.execute` puts `output`). */
  readonly details: Readonly<Record<string, unknown>> | undefined;
  /** Argument problems of an `INVALID_ARGUMENT` from validation, for surfaces that render their own message. */
  readonly issues: readonly ArgumentIssue[];

  constructor(
    code: OpsErrorCode,
    message: string,
    options: { details?: Readonly<Record<string, unknown>>; issues?: readonly ArgumentIssue[] } = {},
  ) {
    super(message);
    this.name = "OpsError";
    this.code = code;
    this.details = options.details;
    this.issues = options.issues ?? [];
  }
}

/** Throws `INVALID_ARGUMENT`. */
export function invalid(message: string): never {
  throw new OpsError("INVALID_ARGUMENT", message);
}

/** Throws `UNAVAILABLE` naming the missing subsystem. */
export function unavailable(what: string): never {
  throw new OpsError("UNAVAILABLE", what);
}

/** Throws `ROOM_NOT_FOUND` in the one wording every surface shows. */
export function roomNotFound(id: string): never {
  throw new OpsError("ROOM_NOT_FOUND", `room not found: ${id}`);
}

/** The value of a successful server result; throws its failure as an {@link OpsError}. */
export function must<T>(result: AdminResult<T>): T {
  if (!result.ok) throw new OpsError(result.code, result.message);
  return result.value;
}

/** Any thrown value as an {@link OpsError}: itself, or `INTERNAL` with the original message. */
export function toOpsError(error: unknown): OpsError {
  if (error instanceof OpsError) return error;
  return new OpsError("INTERNAL", `internal error: ${error instanceof Error ? error.message : String(error)}`);
}
