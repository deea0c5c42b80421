/**
 * Answers of the legacy HTTP API: JSON with `{"ok": true, ...}` or
 * `{"ok": false, "error": "<code>"}` and a real status (the lua-cpp server
 * answered 200 to everything, errors included; tphira uses statuses, and so
 * do we). Failures of operations map to tphira's codes where it has them.
 *
 * @module
 */

import { OpsError } from "../../src/ops/mod.ts";

/** A JSON answer. */
export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", ...headers },
  });
}

/** `{"ok": false, "error": code}` (with a message when it helps). */
export function fail(status: number, error: string, message?: string): Response {
  return json(status, message ? { ok: false, error, message } : { ok: false, error });
}

/** `{"ok": true, ...}`. */
export function ok(fields: Record<string, unknown> = {}): Response {
  return json(200, { ok: true, ...fields });
}

/** The answer to an operation's failure: tphira's code for the operation's, with its message. */
export function opFailure(error: unknown, notFound: { room?: string; user?: string } = {}): Response {
  if (!(error instanceof OpsError)) return fail(500, "internal-error");
  switch (error.code) {
    case "ROOM_NOT_FOUND":
      return fail(404, notFound.room ?? "room-not-found", error.message);
    case "USER_NOT_FOUND":
      return fail(404, notFound.user ?? "user-not-found", error.message);
    case "NOT_FOUND":
      return fail(404, "not-found", error.message);
    case "INVALID_ARGUMENT":
      return fail(400, "bad-request", error.message);
    case "INVALID_STATE":
      return fail(409, "invalid-state", error.message);
    case "CONFLICT":
      return fail(409, "conflict", error.message);
    case "FORBIDDEN":
      return fail(403, "forbidden", error.message);
    case "UNAVAILABLE":
      return fail(503, "unavailable", error.message);
    default:
      return fail(500, "internal-error");
  }
}
