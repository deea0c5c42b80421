/**
 * The one JSON error shape of the HTTP API: `{error, code}` with `code`
 * equal to the HTTP status (the monitor proxy's shape, extended.md §5.3).
 * Spec 1 §7 leaves errors open; `docs/http.md` lists every message. An
 * operation's failure (`OpsError`) is rendered with the status of its code.
 *
 * @module
 */

import type { OpsError, OpsErrorCode } from "../ops/mod.ts";

/** The HTTP status of each operation error code. */
export const STATUS_OF: Readonly<Record<OpsErrorCode, number>> = {
  ROOM_NOT_FOUND: 404,
  USER_NOT_FOUND: 404,
  NOT_FOUND: 404,
  UNKNOWN_COMMAND: 404,
  INVALID_ARGUMENT: 400,
  INVALID_STATE: 409,
  CONFLICT: 409,
  FORBIDDEN: 403,
  UNAVAILABLE: 503,
  INTERNAL: 500,
};

/** An operation's failure as a JSON error response (`message` defaults to the error's). */
export function opsErrorResponse(error: OpsError, message: string = error.message): Response {
  return jsonError(STATUS_OF[error.code], message);
}

/** Body of every JSON error response. */
export interface ErrorBody {
  readonly error: string;
  readonly code: number;
}

/** A JSON error response. */
export function jsonError(status: number, error: string, headers?: HeadersInit): Response {
  const body: ErrorBody = { error, code: status };
  const h = new Headers(headers);
  h.set("content-type", "application/json");
  return new Response(JSON.stringify(body), { status, headers: h });
}

/** 404 for a room that does not exist or is hidden. */
export function roomNotFound(name: string): Response {
  return jsonError(404, `room not found: ${name}`);
}

/** Parses a path parameter as a 32-bit signed user id; null when malformed. */
export function parseUserId(text: string): number | null {
  if (!/^-?[0-9]{1,10}$/.test(text)) return null;
  const n = Number(text);
  return n >= -2147483648 && n <= 2147483647 ? n : null;
}
