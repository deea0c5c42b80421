/**
 * The error of chart parsing and building: what is wrong with a chart archive
 * (`invalid`), what it uses that is not supported (`unsupported`) and which
 * limit of `limits.ts` it exceeds (`too_large`). Messages read
 * `Cannot parse <what>: <reason>` and name the JSON path or text line.
 *
 * @module
 */

/** Why a chart could not be parsed. */
export type ChartParseErrorKind = "invalid" | "unsupported" | "too_large";

/** A chart archive that cannot be turned into the model. */
export class ChartParseError extends Error {
  override readonly name = "ChartParseError";
  /** What went wrong. */
  readonly kind: ChartParseErrorKind;

  /** Builds the error. */
  constructor(kind: ChartParseErrorKind, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.kind = kind;
  }
}

/** Throws an `invalid` {@link ChartParseError}. */
export function invalid(message: string): never {
  throw new ChartParseError("invalid", message);
}

/** Throws a `too_large` {@link ChartParseError}. */
export function tooLarge(message: string): never {
  throw new ChartParseError("too_large", message);
}
