/**
 * The one error of the self-update module, with a code saying which step
 * failed. Every failure before the executable is replaced leaves it
 * untouched; the message says why.
 *
 * @module
 */

/** What failed. */
export type UpdateErrorCode =
  | "UNAVAILABLE"
  | "MANIFEST"
  | "DOWNLOAD"
  | "TRUNCATED"
  | "SIZE"
  | "CHECKSUM"
  | "INSTALL"
  | "ROLLBACK"
  | "BUSY"
  | "REFUSED"
  | "CANCELLED";

/** A self-update step failed. */
export class UpdateError extends Error {
  readonly code: UpdateErrorCode;

  constructor(code: UpdateErrorCode, message: string) {
    super(message);
    this.name = "UpdateError";
    this.code = code;
  }
}
