/**
 * Ranged downloads of chart archives (spec 3 §3.1 rule 5: the audio length is
 * read by a ranged download). Handles `206 Partial Content`, servers that
 * ignore `Range` and answer `200` with the whole body (read incrementally and
 * stopped as soon as the needed bytes are in, within a byte cap), and suffix
 * ranges (`bytes=-N`) for zip central directories.
 *
 * @module
 */

import { type Attempt, readBody } from "./transport.ts";

/** Bytes read by a ranged download. */
export interface RangeResult {
  /** The bytes, starting at absolute offset {@link RangeResult.start}. */
  bytes: Uint8Array;
  /** Absolute offset of `bytes[0]` in the resource. */
  start: number;
  /** Size of the whole resource when known. */
  totalSize: number | null;
  /** True for a `206` answer; false when the server ignored `Range`. */
  partial: boolean;
}

/** What to read: an inclusive byte range, or the last `n` bytes. */
export type RangeRequest =
  | { kind: "range"; start: number; end: number }
  | { kind: "tail"; length: number };

/** A parsed `Content-Range` header. */
export type ContentRange =
  | { start: number; end: number; total: number | null }
  | { unsatisfied: true; total: number };

/** Parses `bytes a-b/total`, `bytes a-b/*` or `bytes *\/total`; `null` when malformed. */
export function parseContentRange(value: string | null): ContentRange | null {
  if (!value) return null;
  const m = /^bytes\s+(\d+)-(\d+)\/(\d+|\*)$/i.exec(value.trim());
  if (m) {
    const start = Number(m[1]);
    const end = Number(m[2]);
    if (end < start) return null;
    return { start, end, total: m[3] === "*" ? null : Number(m[3]) };
  }
  const u = /^bytes\s+\*\/(\d+)$/i.exec(value.trim());
  return u ? { unsatisfied: true, total: Number(u[1]) } : null;
}

/** The `Range` header value for a request. */
export function rangeHeader(req: RangeRequest): string {
  return req.kind === "range" ? `bytes=${req.start}-${req.end}` : `bytes=-${req.length}`;
}

/** Signals a response that cannot satisfy the request; the client turns it into `invalid_response`. */
export class RangeResponseError extends Error {
  override readonly name = "RangeResponseError";
}

function contentLength(res: Response): number | null {
  const v = res.headers.get("content-length");
  return v !== null && /^\d+$/.test(v) ? Number(v) : null;
}

/**
 * Reads the bytes `req` asks for from a successful (`200` or `206`) response,
 * never reading more than `cap` bytes of body.
 */
export async function readRange(attempt: Attempt, res: Response, req: RangeRequest, cap: number): Promise<RangeResult> {
  if (res.status === 206) return await readPartial(attempt, res, req, cap);
  const total = contentLength(res);
  if (req.kind === "range") {
    // The server ignored Range: read from the start up to `end`, then stop.
    const need = Math.min(req.end + 1, total ?? Infinity);
    if (need > cap) {
      throw new RangeResponseError(
        `server ignored Range and reaching byte ${req.end} needs ${need} bytes, over the cap of ${cap}`,
      );
    }
    const r = await readBody(attempt, res, need);
    return {
      bytes: r.bytes.slice(Math.min(req.start, r.bytes.byteLength)),
      start: req.start,
      totalSize: r.complete ? r.bytes.byteLength : total,
      partial: false,
    };
  }
  // Suffix request answered in full: the whole body must fit the cap.
  if (total !== null && total > cap) {
    throw new RangeResponseError(`server ignored Range and the body of ${total} bytes is over the cap of ${cap}`);
  }
  const r = await readBody(attempt, res, cap + 1);
  if (!r.complete) throw new RangeResponseError(`server ignored Range and the body is over the cap of ${cap} bytes`);
  const size = r.bytes.byteLength;
  const start = Math.max(0, size - req.length);
  return { bytes: r.bytes.slice(start), start, totalSize: size, partial: false };
}

async function readPartial(attempt: Attempt, res: Response, req: RangeRequest, cap: number): Promise<RangeResult> {
  const cr = parseContentRange(res.headers.get("content-range"));
  if (!cr || "unsatisfied" in cr) throw new RangeResponseError("206 answer without a valid Content-Range");
  const wantStart = req.kind === "range" ? req.start : cr.start;
  const wantEnd = req.kind === "range" ? Math.min(req.end, cr.end) : cr.end;
  if (cr.start > wantStart || cr.end < wantStart) {
    throw new RangeResponseError(`server sent bytes ${cr.start}-${cr.end} for a request of ${rangeHeader(req)}`);
  }
  const need = wantEnd - cr.start + 1;
  if (need > cap) throw new RangeResponseError(`partial answer of ${need} bytes is over the cap of ${cap}`);
  const r = await readBody(attempt, res, need);
  if (r.bytes.byteLength < need) {
    throw new RangeResponseError(`body ended after ${r.bytes.byteLength} of ${need} bytes announced by Content-Range`);
  }
  return { bytes: r.bytes.slice(wantStart - cr.start), start: wantStart, totalSize: cr.total, partial: true };
}
