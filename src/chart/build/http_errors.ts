/**
 * The errors of the chart service as HTTP answers: `{"error", "code"}` bodies
 * (extended.md §5.3) and the mapping of build failures to statuses -- 422 for
 * a chart that cannot be used, 502/504 for upstream failures.
 *
 * @module
 */

import { ChartProbeError } from "../errors.ts";
import { ChartParseError } from "../parse/errors.ts";

/** An answer with a status; thrown inside the service, turned into a JSON error response. */
export class ChartHttpError extends Error {
  override readonly name = "ChartHttpError";
  /** HTTP status. */
  readonly status: number;

  /** Builds the error. */
  constructor(status: number, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.status = status;
  }
}

/** A JSON error response `{"error", "code"}`. */
export function errorResponse(status: number, message: string, headers: Record<string, string> = {}): Response {
  return Response.json({ error: message, code: status }, {
    status,
    headers: { "cache-control": "no-store", ...headers },
  });
}

/** The HTTP error of a failed build (anything unexpected is rethrown). */
export function toHttpError(id: string, e: unknown): ChartHttpError {
  if (e instanceof ChartHttpError) return e;
  if (e instanceof ChartParseError) return new ChartHttpError(422, `chart ${id} cannot be used: ${e.message}`);
  if (e instanceof ChartProbeError) {
    switch (e.kind) {
      case "timeout":
        return new ChartHttpError(504, `chart ${id}: ${e.message}`);
      case "not_found":
      case "upstream":
      case "aborted":
        return new ChartHttpError(502, `cannot download chart ${id}: ${e.message}`);
      default:
        return new ChartHttpError(422, `chart ${id} cannot be used: ${e.message}`);
    }
  }
  throw e;
}
