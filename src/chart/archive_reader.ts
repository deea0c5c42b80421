/**
 * Ranged reads of one chart archive for the prober: a first read of the head
 * tells the size (from `Content-Range`) and whether the server honours
 * `Range`. If it does not (a `200` with the whole body), the archive is read
 * once in full -- within the download cap -- and every later read is served
 * from memory, since each ranged request would otherwise start again at byte 0.
 * Counts requests and bytes received, and gives each request the time left of
 * the probe's budget.
 *
 * @module
 */

import type { Clock } from "../util/clock.ts";
import type { CallOptions, RangeResult, Upstream } from "../upstream/mod.ts";
import { UpstreamError } from "../upstream/errors.ts";
import { ChartProbeError, fromUpstreamError } from "./errors.ts";

/** Bytes asked for by the first request (it usually also covers `info.yml`, the first entry of most archives). */
export const HEAD_BYTES = 8192;
/** Archives up to this size are read completely right after the head. */
export const SMALL_ARCHIVE_BYTES = 64 * 1024;
/** Cached segments kept (the head, the tail, the central directory, a few entry reads). */
const MAX_SEGMENTS = 16;

/** How a reader talks to upstream. */
export interface ReaderContext {
  upstream: Upstream;
  url: string;
  clock: Clock;
  /** Monotonic clock time (ms) after which no request starts. */
  deadline: number;
  /** Total budget, for messages. */
  budgetMs: number;
  signal: AbortSignal | undefined;
  /** Bytes the probe may receive in total. */
  maxDownloadBytes: number;
}

/** Options of {@link ArchiveReader.read}. */
export interface ReadOptions {
  /** Fetch at least this many bytes from `start` when a request is needed (default: exactly `length`). */
  readAhead?: number;
  /** Never fetch at or past this offset (default: the archive size). */
  limitEnd?: number;
  /** Keep the fetched bytes for later reads (default true; streaming reads pass false). */
  keep?: boolean;
}

interface Segment {
  start: number;
  bytes: Uint8Array;
}

/** Reads byte ranges of one archive; create with {@link ArchiveReader.open}. */
export class ArchiveReader {
  /** Size of the archive in bytes. */
  size = 0;
  /** Body bytes received so far (for a server ignoring `Range`, everything it sent). */
  bytesDownloaded = 0;
  /** HTTP requests made. */
  requests = 0;
  /** Whether the server answered a ranged request with the whole body. */
  rangeIgnored = false;
  readonly #ctx: ReaderContext;
  readonly #segments: Segment[] = [];

  private constructor(ctx: ReaderContext) {
    this.#ctx = ctx;
  }

  /** Reads the head of the archive and learns its size. */
  static async open(ctx: ReaderContext): Promise<ArchiveReader> {
    const r = new ArchiveReader(ctx);
    let head: RangeResult;
    try {
      head = await r.#request(0, HEAD_BYTES - 1);
    } catch (e) {
      const empty = e instanceof ChartProbeError && e.cause instanceof UpstreamError && e.cause.status === 416;
      if (empty) throw new ChartProbeError("not_zip", "Cannot read the chart archive: the file is empty", { cause: e });
      throw e;
    }
    if (head.partial && head.totalSize !== null) {
      r.size = head.totalSize;
    } else if (head.partial) {
      // `Content-Range: bytes 0-n/*`: the size comes from a suffix request.
      const tail = await r.#call((o) => ctx.upstream.fetchTail(ctx.url, HEAD_BYTES, o), HEAD_BYTES);
      r.#count(tail, tail.bytes.byteLength);
      r.size = tail.start + tail.bytes.byteLength;
      r.#keep({ start: tail.start, bytes: tail.bytes });
    } else if (head.totalSize !== null && head.totalSize === head.bytes.byteLength) {
      r.size = head.totalSize; // the whole file fitted in the head
    } else {
      await r.#loadWhole(head.totalSize);
      return r;
    }
    if (r.size > head.bytes.byteLength && r.size <= SMALL_ARCHIVE_BYTES) await r.#completeSmall(head.bytes);
    else r.#keep({ start: 0, bytes: head.bytes });
    return r;
  }

  /** Reads the rest of a small archive in one request: cheaper than several ranged ones. */
  async #completeSmall(head: Uint8Array): Promise<void> {
    const rest = await this.read(head.byteLength, this.size - head.byteLength, { keep: false });
    const whole = new Uint8Array(this.size);
    whole.set(head);
    whole.set(rest.subarray(0, this.size - head.byteLength), head.byteLength);
    this.#segments.length = 0;
    this.#keep({ start: 0, bytes: whole });
  }

  /**
   * Bytes from `start`: at least `length` of them (fewer only at `limitEnd`), possibly more when
   * a cached segment or the read-ahead holds more.
   */
  async read(start: number, length: number, o: ReadOptions = {}): Promise<Uint8Array> {
    const limit = Math.min(o.limitEnd ?? this.size, this.size);
    const end = Math.min(start + length, limit);
    if (start < 0 || end <= start) return new Uint8Array(0);
    const cached = this.#cached(start, end);
    if (cached) return cached.subarray(0, limit - start);
    if (this.rangeIgnored) {
      await this.#loadWhole(this.size);
      return this.read(start, length, o);
    }
    const fetchEnd = Math.min(limit, Math.max(end, start + (o.readAhead ?? 0)));
    const r = await this.#request(start, fetchEnd - 1);
    if (r.start !== start || r.bytes.byteLength < end - start) {
      throw new ChartProbeError(
        "corrupt_zip",
        `Cannot read the chart archive: got ${r.bytes.byteLength} bytes at ${r.start} for ${start}-${end - 1}; ` +
          "the archive is shorter than announced",
      );
    }
    if (o.keep !== false) this.#keep({ start, bytes: r.bytes });
    return r.bytes;
  }

  #cached(start: number, end: number): Uint8Array | undefined {
    for (const s of this.#segments) {
      if (s.start <= start && end <= s.start + s.bytes.byteLength) return s.bytes.subarray(start - s.start);
    }
    return undefined;
  }

  #keep(s: Segment): void {
    this.#segments.push(s);
    if (this.#segments.length > MAX_SEGMENTS) this.#segments.splice(1, 1); // keep the first (head or whole)
  }

  async #loadWhole(knownSize: number | null): Promise<void> {
    const room = this.#ctx.maxDownloadBytes - this.bytesDownloaded;
    if (knownSize !== null && knownSize > room) throw this.#tooLarge(`the archive of ${knownSize} bytes`);
    const r = await this.#request(0, (knownSize ?? room) - 1);
    // Without a length, a body filling the whole room may go on: refuse rather than guess.
    if (r.totalSize === null && r.bytes.byteLength >= room) throw this.#tooLarge("the archive");
    this.rangeIgnored = true;
    this.size = r.totalSize ?? r.bytes.byteLength;
    if (r.bytes.byteLength < this.size) {
      throw new ChartProbeError("corrupt_zip", `Cannot read the chart archive: body ended after ${r.bytes.byteLength}`);
    }
    this.#segments.length = 0;
    this.#segments.push({ start: 0, bytes: r.bytes.subarray(0, this.size) });
  }

  #tooLarge(what: string): ChartProbeError {
    return new ChartProbeError(
      "too_large",
      `Cannot download the chart archive: the server ignores Range and ${what} is over the remaining cap of ` +
        `${this.#ctx.maxDownloadBytes - this.bytesDownloaded} bytes`,
    );
  }

  async #request(start: number, endInclusive: number): Promise<RangeResult> {
    const want = endInclusive - start + 1;
    const r = await this.#call((o) => this.#ctx.upstream.fetchRange(this.#ctx.url, start, endInclusive, o), want);
    // A server ignoring Range sent everything from byte 0 up to what we asked for.
    this.#count(r, r.partial ? r.bytes.byteLength : r.start + r.bytes.byteLength);
    return r;
  }

  #count(r: RangeResult, received: number): void {
    this.bytesDownloaded += received;
    if (!r.partial) this.rangeIgnored = true;
    if (this.bytesDownloaded > this.#ctx.maxDownloadBytes) {
      throw new ChartProbeError(
        "too_large",
        `Cannot probe the chart archive: ${this.bytesDownloaded} bytes received, over the cap of ` +
          `${this.#ctx.maxDownloadBytes}`,
      );
    }
  }

  async #call(fn: (o: CallOptions) => Promise<RangeResult>, want: number): Promise<RangeResult> {
    const { clock, deadline, signal, budgetMs, maxDownloadBytes } = this.#ctx;
    if (signal?.aborted) throw new ChartProbeError("aborted", "Cannot probe the chart archive: aborted by caller");
    const left = deadline - clock.monotonic();
    if (left <= 0) {
      throw new ChartProbeError("timeout", `Cannot probe the chart archive: time budget of ${budgetMs} ms exhausted`);
    }
    if (this.bytesDownloaded + want > maxDownloadBytes) {
      throw new ChartProbeError(
        "too_large",
        `Cannot probe the chart archive: reading ${want} more bytes would exceed the cap of ${maxDownloadBytes}`,
      );
    }
    this.requests++;
    const o: CallOptions = signal ? { budgetMs: left, signal } : { budgetMs: left };
    try {
      return await fn(o);
    } catch (e) {
      throw fromUpstreamError(e);
    }
  }
}
