/**
 * The one error envelope of the account backend (spec 2 §7 leaves it open):
 * `{"error": "<sentence>", "code": "<stable_code>", "status": <HTTP status>}`.
 * Codes are stable identifiers clients may branch on; messages are for
 * people and may change. Bad input never becomes a 500, and a 500 never
 * carries an exception text (the original answered `repr(e)`).
 *
 * @module
 */

/** Every code, with its HTTP status. `docs/accounts.md` lists when each is used. */
export const ERROR_STATUS = {
  invalid_json: 400,
  invalid_request: 400,
  invalid_id: 400,
  unauthenticated: 401,
  invalid_credentials: 401,
  permission_denied: 403,
  wrong_current_password: 403,
  cross_origin: 403,
  csrf_failed: 403,
  not_found: 404,
  user_not_found: 404,
  group_not_found: 404,
  room_not_found: 404,
  user_not_in_room: 404,
  username_taken: 409,
  group_name_taken: 409,
  game_account_bound: 409,
  last_root: 409,
  group_not_empty: 409,
  default_group: 409,
  body_too_large: 413,
  unsupported_media_type: 415,
  invalid_username: 422,
  invalid_password: 422,
  invalid_group_name: 422,
  invalid_permissions: 422,
  unknown_group: 422,
  invalid_game_account: 422,
  game_account_not_found: 422,
  rate_limited: 429,
  internal_error: 500,
  upstream_error: 502,
  game_server_unavailable: 503,
  busy: 503,
} as const;

/** A stable error code. */
export type ErrorCode = keyof typeof ERROR_STATUS;

/** Body of every error response. */
export interface ErrorEnvelope {
  readonly error: string;
  readonly code: ErrorCode;
  readonly status: number;
}

/** An error answered to the client as the envelope; thrown by handlers, caught by the app. */
export class ApiError extends Error {
  override readonly name = "ApiError";
  readonly code: ErrorCode;
  /** Extra response headers (e.g. `Retry-After`). */
  readonly headers: Readonly<Record<string, string>>;

  constructor(code: ErrorCode, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.code = code;
    this.headers = headers;
  }

  /** The HTTP status of the code. */
  get status(): number {
    return ERROR_STATUS[this.code];
  }
}

/** The envelope of `error` as a JSON response. */
export function errorResponse(error: ApiError): Response {
  const body: ErrorEnvelope = { error: error.message, code: error.code, status: error.status };
  return new Response(JSON.stringify(body), {
    status: error.status,
    headers: { "content-type": "application/json", ...error.headers },
  });
}
