/**
 * Serving bytes with HTTP Range support (RFC 9110 §14) for the development
 * file server: single ranges `bytes=a-b`, `bytes=a-` and `bytes=-n` give
 * `206` with `Content-Range`; unsatisfiable ones `416` with `bytes *\/size`;
 * absent, malformed or multi-range headers the whole body with `200`.
 *
 * @module
 */

/** How a `Range` header applies to a resource of a given size. */
export type ResolvedRange =
  | { kind: "full" }
  | { kind: "partial"; start: number; end: number }
  | { kind: "unsatisfiable" };

/** Resolves a `Range` header against a resource of `size` bytes. */
export function resolveRange(header: string | null, size: number): ResolvedRange {
  if (header === null) return { kind: "full" };
  const m = /^bytes=(\d*)-(\d*)$/i.exec(header.trim());
  if (!m || (m[1] === "" && m[2] === "")) return { kind: "full" }; // malformed or multi-range: ignore
  if (m[1] === "") {
    const n = Number(m[2]);
    if (n === 0 || size === 0) return { kind: "unsatisfiable" };
    return { kind: "partial", start: Math.max(0, size - n), end: size - 1 };
  }
  const start = Number(m[1]);
  const last = m[2] === "" ? Infinity : Number(m[2]);
  if (last < start) return { kind: "full" }; // invalid range: ignore the header
  if (start >= size) return { kind: "unsatisfiable" };
  return { kind: "partial", start, end: Math.min(last, size - 1) };
}

/** Options of {@link serveBytes}. */
export interface ServeBytesOptions {
  contentType: string;
  /** Answer `200` with the whole body whatever the `Range` header says. */
  ignoreRange?: boolean;
  /** Extra response headers (ETag, Last-Modified, ...). */
  headers?: Record<string, string>;
}

/** A response for `bytes` honouring the request's `Range` header. */
export function serveBytes(req: Request, bytes: Uint8Array, o: ServeBytesOptions): Response {
  const size = bytes.byteLength;
  const headers = new Headers({
    "content-type": o.contentType,
    "accept-ranges": o.ignoreRange ? "none" : "bytes",
    ...o.headers,
  });
  const r: ResolvedRange = o.ignoreRange ? { kind: "full" } : resolveRange(req.headers.get("range"), size);
  if (r.kind === "unsatisfiable") {
    headers.set("content-range", `bytes */${size}`);
    return new Response(null, { status: 416, headers });
  }
  if (r.kind === "full") {
    headers.set("content-length", String(size));
    return new Response(bytes.slice(), { status: 200, headers });
  }
  headers.set("content-range", `bytes ${r.start}-${r.end}/${size}`);
  headers.set("content-length", String(r.end - r.start + 1));
  return new Response(bytes.slice(r.start, r.end + 1), { status: 206, headers });
}
