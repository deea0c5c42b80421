/**
 * The one error type of chart-duration probing. The caller treats every
 * rejection alike (spec 3 §3.1 rule 1: an unresolved duration falls back to
 * 10000 s); `kind` is there for logs, statistics and tests.
 *
 * @module
 */

import { UpstreamError } from "../upstream/errors.ts";

/** Why a chart's audio duration could not be read. */
export type ChartProbeErrorKind =
  /** The chart has no archive URL (`file` is null). */
  | "no_file"
  /** The chart or its archive answered 404. */
  | "not_found"
  /** Another upstream failure (5xx, network error, malformed answer). */
  | "upstream"
  /** The probe's time budget ran out. */
  | "timeout"
  /** The caller's signal aborted the probe. */
  | "aborted"
  /** The file has no zip end-of-central-directory record. */
  | "not_zip"
  /** Malformed zip structures or compressed data. */
  | "corrupt_zip"
  /** No audio entry in the archive. */
  | "no_audio"
  /** Encrypted entries, unknown compression methods, split archives, unknown audio formats. */
  | "unsupported"
  /** The audio entry is malformed or does not state its length. */
  | "bad_audio"
  /** A byte, size or duration bound was exceeded. */
  | "too_large";

/** A failed probe; `message` reads `Cannot <action>: <reason>`. */
export class ChartProbeError extends Error {
  override readonly name = "ChartProbeError";
  /** What went wrong. */
  readonly kind: ChartProbeErrorKind;

  /** Builds the error (`cause` is kept for upstream failures). */
  constructor(kind: ChartProbeErrorKind, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.kind = kind;
  }
}

/** Maps an upstream failure to a {@link ChartProbeError}; anything else (a bug) is rethrown as is. */
export function fromUpstreamError(e: unknown): ChartProbeError {
  if (e instanceof ChartProbeError) return e;
  if (e instanceof UpstreamError) {
    const kind = e.kind === "timeout"
      ? "timeout"
      : e.kind === "aborted"
      ? "aborted"
      : e.kind === "http" && e.status === 404
      ? "not_found"
      : "upstream";
    return new ChartProbeError(kind, e.message, { cause: e });
  }
  throw e;
}
