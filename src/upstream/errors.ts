/**
 * The one error type of the upstream boundary. Messages read
 * `Cannot <action>: <reason>` and never contain a token or password.
 *
 * @module
 */

/** What went wrong with an upstream call. */
export type UpstreamErrorKind = "http" | "network" | "timeout" | "invalid_response" | "aborted";

/** Logical upstream endpoints, used for statistics and error reports. */
export type UpstreamEndpoint = "me" | "chart" | "record" | "login" | "download" | "user" | "user_search";

/** Fields of an {@link UpstreamError}. */
export interface UpstreamErrorInit {
  kind: UpstreamErrorKind;
  endpoint: UpstreamEndpoint;
  /** The request URL (never carries credentials: tokens travel in headers or bodies). */
  url: string;
  /** HTTP status for `http` errors. */
  status?: number;
  /** `Cannot fetch chart 42` -- the action part of the message. */
  action: string;
  /** The reason part of the message. */
  reason: string;
  /** Seconds the server asked us to wait (`Retry-After`), when it did. */
  retryAfterMs?: number;
  cause?: unknown;
}

/** A failed upstream call; `message` is `<action>: <reason>`. */
export class UpstreamError extends Error {
  override readonly name = "UpstreamError";
  /** What went wrong. */
  readonly kind: UpstreamErrorKind;
  /** Which endpoint failed. */
  readonly endpoint: UpstreamEndpoint;
  /** The request URL. */
  readonly url: string;
  /** HTTP status, for `http` errors. */
  readonly status: number | undefined;
  /** The reason without the action prefix (for example `HTTP 404 Not Found`). */
  readonly reason: string;
  /** Server-requested delay before a retry, if any. */
  readonly retryAfterMs: number | undefined;

  /** Builds the error; `message` is `<action>: <reason>`. */
  constructor(init: UpstreamErrorInit) {
    super(`${init.action}: ${init.reason}`, init.cause === undefined ? undefined : { cause: init.cause });
    this.kind = init.kind;
    this.endpoint = init.endpoint;
    this.url = init.url;
    this.status = init.status;
    this.reason = init.reason;
    this.retryAfterMs = init.retryAfterMs;
  }

  /** Whether another attempt may succeed: network errors, timeouts, 5xx, 408 and 429. */
  get retryable(): boolean {
    if (this.kind === "network" || this.kind === "timeout") return true;
    if (this.kind !== "http" || this.status === undefined) return false;
    return this.status >= 500 || this.status === 408 || this.status === 429;
  }
}

const REASONS: Readonly<Record<number, string>> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  408: "Request Timeout",
  409: "Conflict",
  413: "Content Too Large",
  416: "Range Not Satisfiable",
  422: "Unprocessable Content",
  429: "Too Many Requests",
  500: "Internal Server Error",
  501: "Not Implemented",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout",
};

/** `HTTP 404 Not Found`; falls back to a built-in phrase when the response has no status text. */
export function httpReason(status: number, statusText: string): string {
  const text = statusText.trim() || REASONS[status] || "";
  return text ? `HTTP ${status} ${text}` : `HTTP ${status}`;
}
