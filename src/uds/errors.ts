/**
 * OpenUDS error codes (spec 3 §7 rule 1; documented in `docs/openuds.md`):
 * the console's command codes plus those of the socket protocol itself.
 *
 * @module
 */

import type { ErrorCode } from "../console/mod.ts";

/** Every `error.code` a client can see. */
export type UdsErrorCode =
  | ErrorCode
  /** A command before the handshake finished, or a wrong token. */
  | "UNAUTHORIZED"
  /** A frame that is not a JSON object, or an unknown frame type. */
  | "INVALID_FRAME"
  /** `max_connections` clients are connected already. */
  | "TOO_MANY_CONNECTIONS";

/** A command failed. */
export class UdsError extends Error {
  readonly code: UdsErrorCode;
  /** More detail for the `error` object (`cli.execute` puts the output lines here). */
  readonly extra: Readonly<Record<string, unknown>> | undefined;
  constructor(code: UdsErrorCode, message: string, extra?: Readonly<Record<string, unknown>>) {
    super(message);
    this.name = "UdsError";
    this.code = code;
    this.extra = extra;
  }
}
