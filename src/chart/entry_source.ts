/**
 * Reading one zip entry's bytes into a {@link ByteView} on demand. Stored
 * entries map to ranged reads of just the wanted bytes (plus a small
 * read-ahead); deflated ones are inflated incrementally with fflate's
 * streaming `Inflate`, fetching compressed data in growing chunks and keeping
 * only the decoded bytes that were asked for, stopping as soon as they are in.
 *
 * @module
 */

import { Inflate } from "fflate";
import type { ArchiveReader } from "./archive_reader.ts";
import type { ByteView } from "./bytes.ts";
import { ChartProbeError } from "./errors.ts";
import { LOCAL_HEADER_SIZE, localDataOffset, type ZipEntry } from "./zip.ts";

/** Decoded bytes kept or fetched beyond what a probe asked for, so that the next small read is already there. */
export const READ_AHEAD = 8192;
/**
 * Compressed bytes pushed into the inflater at once: small at the start of each fill, since deflate expands
 * up to ~1000× (a silent WAV) and a probe usually wants only a few KiB; doubling up to the maximum for long reads.
 */
const FIRST_PUSH = 256;
const MAX_PUSH = 16 * 1024;
const FIRST_CHUNK = 16 * 1024;
const MAX_CHUNK = 1024 * 1024;

/** Loads ranges of an entry's uncompressed bytes. */
export interface EntrySource {
  /** Uncompressed size. */
  readonly size: number;
  /** Makes `start..start+length` (clipped to the size) available in `view`. */
  fill(view: ByteView, start: number, length: number): Promise<void>;
}

/** Limits of entry reading. */
export interface EntryLimits {
  /** Largest uncompressed size accepted. */
  maxEntryBytes: number;
}

/** Checks an entry and reads its local header; returns a source of its uncompressed bytes. */
export async function openEntry(reader: ArchiveReader, e: ZipEntry, limits: EntryLimits): Promise<EntrySource> {
  const what = JSON.stringify(e.name);
  if (e.flags & 1) throw new ChartProbeError("unsupported", `Cannot read ${what}: the entry is encrypted`);
  if (e.method !== 0 && e.method !== 8) {
    throw new ChartProbeError("unsupported", `Cannot read ${what}: compression method ${e.method} is unsupported`);
  }
  if (e.uncompressedSize > limits.maxEntryBytes) {
    throw new ChartProbeError(
      "too_large",
      `Cannot read ${what}: ${e.uncompressedSize} bytes is over the entry cap of ${limits.maxEntryBytes}`,
    );
  }
  if (e.method === 0 && e.compressedSize !== e.uncompressedSize) {
    throw new ChartProbeError("corrupt_zip", `Cannot read ${what}: stored entry with differing sizes`);
  }
  // One request for the local header and the first data bytes (the local extra field may differ from the central one).
  const guess = LOCAL_HEADER_SIZE + new TextEncoder().encode(e.name).byteLength + 64 +
    Math.min(e.compressedSize, READ_AHEAD);
  const header = await reader.read(e.localOffset, LOCAL_HEADER_SIZE, { readAhead: guess });
  const dataStart = e.localOffset + localDataOffset(header, e.name);
  if (dataStart + e.compressedSize > reader.size) {
    throw new ChartProbeError("corrupt_zip", `Cannot read ${what}: the entry runs past the end of the archive`);
  }
  return e.method === 0
    ? new StoredSource(reader, dataStart, e.uncompressedSize)
    : new InflatingSource(reader, dataStart, e, what);
}

class StoredSource implements EntrySource {
  readonly size: number;
  readonly #reader: ArchiveReader;
  readonly #dataStart: number;

  constructor(reader: ArchiveReader, dataStart: number, size: number) {
    this.#reader = reader;
    this.#dataStart = dataStart;
    this.size = size;
  }

  async fill(view: ByteView, start: number, length: number): Promise<void> {
    const limitEnd = this.#dataStart + this.size;
    const bytes = await this.#reader.read(this.#dataStart + start, length, { readAhead: READ_AHEAD, limitEnd });
    view.add(start, bytes);
  }
}

class InflatingSource implements EntrySource {
  readonly size: number;
  readonly #reader: ArchiveReader;
  readonly #dataStart: number;
  readonly #compressedSize: number;
  readonly #what: string;
  #inflate!: Inflate;
  /** Compressed bytes fetched so far. */
  #fetched = 0;
  /** Fetched compressed bytes not yet pushed. */
  #pending: Uint8Array = new Uint8Array(0);
  /** Uncompressed bytes produced so far. */
  #produced = 0;
  #ended = false;
  #chunk = FIRST_CHUNK;
  /** Where decoded bytes `start..end` are collected during the current fill. */
  #keep: { start: number; end: number; buf: Uint8Array } | null = null;

  constructor(reader: ArchiveReader, dataStart: number, e: ZipEntry, what: string) {
    this.#reader = reader;
    this.#dataStart = dataStart;
    this.#compressedSize = e.compressedSize;
    this.size = e.uncompressedSize;
    this.#what = what;
    this.#restart();
  }

  async fill(view: ByteView, start: number, length: number): Promise<void> {
    const end = Math.min(this.size, start + length);
    // Decoded bytes are not kept behind us: a read backwards starts the stream again.
    if (start < this.#produced) this.#restart();
    const keepEnd = Math.min(this.size, start + Math.max(length, READ_AHEAD));
    const keep = { start, end: keepEnd, buf: new Uint8Array(keepEnd - start) };
    this.#keep = keep;
    let push = FIRST_PUSH;
    try {
      while (this.#produced < end) {
        if (this.#ended) {
          throw new ChartProbeError("corrupt_zip", `Cannot inflate ${this.#what}: data ends before the declared size`);
        }
        if (this.#pending.byteLength === 0 && this.#fetched < this.#compressedSize) await this.#fetch();
        const piece = this.#pending.subarray(0, push);
        push = Math.min(MAX_PUSH, push * 2);
        this.#pending = this.#pending.subarray(piece.byteLength);
        const last = this.#fetched >= this.#compressedSize && this.#pending.byteLength === 0;
        this.#push(piece, last);
        if (last) this.#ended = true;
      }
    } finally {
      this.#keep = null;
    }
    // One segment, so that probes can read across the decoder's output chunks.
    view.add(start, keep.buf.subarray(0, Math.min(this.#produced, keep.end) - start));
  }

  #restart(): void {
    this.#inflate = new Inflate((chunk) => this.#onData(chunk));
    this.#fetched = 0;
    this.#pending = new Uint8Array(0);
    this.#produced = 0;
    this.#ended = false;
  }

  async #fetch(): Promise<void> {
    const limitEnd = this.#dataStart + this.#compressedSize;
    const at = this.#dataStart + this.#fetched;
    const bytes = await this.#reader.read(at, 1, { readAhead: this.#chunk, limitEnd, keep: false });
    this.#pending = bytes;
    this.#fetched += bytes.byteLength;
    this.#chunk = Math.min(MAX_CHUNK, this.#chunk * 4);
  }

  #push(piece: Uint8Array, last: boolean): void {
    try {
      this.#inflate.push(piece, last);
    } catch (e) {
      if (e instanceof ChartProbeError) throw e;
      const reason = e instanceof Error ? e.message : String(e);
      throw new ChartProbeError("corrupt_zip", `Cannot inflate ${this.#what}: ${reason}`, { cause: e });
    }
  }

  #onData(chunk: Uint8Array): void {
    const from = this.#produced;
    this.#produced += chunk.byteLength;
    if (this.#produced > this.size) {
      throw new ChartProbeError("corrupt_zip", `Cannot inflate ${this.#what}: data exceeds the declared size`);
    }
    const k = this.#keep;
    if (!k) return;
    const s = Math.max(from, k.start);
    const e = Math.min(this.#produced, k.end);
    if (s < e) k.buf.set(chunk.subarray(s - from, e - from), s - k.start);
  }
}
