/**
 * A sparse, read-only view of a file that is only partly downloaded. Format
 * probes are pure functions over a {@link ByteView}: when they touch bytes
 * that are not loaded yet, the view throws {@link MissingBytes}; the driver
 * loads that range and runs the probe again (so probes read linearly, and
 * unit tests simply pass whole files).
 *
 * @module
 */

import { ChartProbeError } from "./errors.ts";

/** Thrown by a {@link ByteView} for bytes that are not loaded; not an error of the file. */
export class MissingBytes extends Error {
  override readonly name = "MissingBytes";
  /** First missing offset. */
  readonly start: number;
  /** Bytes wanted from `start` (already clipped to the file size). */
  readonly length: number;

  /** Describes the range `start..start+length`. */
  constructor(start: number, length: number) {
    super(`bytes ${start}-${start + length - 1} are not loaded`);
    this.start = start;
    this.length = length;
  }
}

/** Loaded segments of a file of known size. */
export class ByteView {
  /** Size of the whole file in bytes. */
  readonly size: number;
  readonly #segments: { start: number; bytes: Uint8Array }[] = [];
  #loaded = 0;

  /** An empty view of a file of `size` bytes. */
  constructor(size: number) {
    this.size = size;
  }

  /** A view with the whole file loaded. */
  static of(bytes: Uint8Array): ByteView {
    const v = new ByteView(bytes.byteLength);
    v.add(0, bytes);
    return v;
  }

  /** Total bytes held (overlaps counted twice). */
  get loadedBytes(): number {
    return this.#loaded;
  }

  /** Adds bytes found at offset `start` (clipped to the file size). */
  add(start: number, bytes: Uint8Array): void {
    const len = Math.min(bytes.byteLength, this.size - start);
    if (len <= 0) return;
    this.#segments.push({ start, bytes: len === bytes.byteLength ? bytes : bytes.subarray(0, len) });
    this.#loaded += len;
  }

  /** Whether `start..start+length` (clipped to the size) is loaded. */
  has(start: number, length: number): boolean {
    return this.#find(start, Math.min(length, this.size - start)) !== undefined;
  }

  /** Up to `length` bytes from `start`, fewer at the end of the file; empty at or past the end. */
  upTo(start: number, length: number): Uint8Array {
    const len = Math.max(0, Math.min(length, this.size - start));
    if (len === 0) return new Uint8Array(0);
    const found = this.#find(start, len);
    if (found === undefined) throw new MissingBytes(start, len);
    return found;
  }

  /** Exactly `length` bytes from `start`; a {@link ChartProbeError} `bad_audio` when the file is shorter. */
  exact(start: number, length: number, what: string): Uint8Array {
    if (start < 0 || start + length > this.size) {
      throw new ChartProbeError("bad_audio", `Cannot read ${what}: the file ends at byte ${this.size}`);
    }
    return this.upTo(start, length);
  }

  #find(start: number, len: number): Uint8Array | undefined {
    for (const s of this.#segments) {
      if (s.start <= start && start + len <= s.start + s.bytes.byteLength) {
        return s.bytes.subarray(start - s.start, start - s.start + len);
      }
    }
    return undefined;
  }
}

/** Whether `bytes` holds the ASCII text `tag` at `at`. */
export function hasAscii(bytes: Uint8Array, at: number, tag: string): boolean {
  if (at < 0 || at + tag.length > bytes.byteLength) return false;
  for (let i = 0; i < tag.length; i++) if (bytes[at + i] !== tag.charCodeAt(i)) return false;
  return true;
}

/** Unsigned little-endian integer of `n` <= 6 bytes at `at` (missing bytes read as 0). */
export function uintLE(bytes: Uint8Array, at: number, n: number): number {
  let v = 0;
  for (let i = n - 1; i >= 0; i--) v = v * 256 + (bytes[at + i] ?? 0);
  return v;
}

/** Unsigned big-endian integer of `n` <= 6 bytes at `at` (missing bytes read as 0). */
export function uintBE(bytes: Uint8Array, at: number, n: number): number {
  let v = 0;
  for (let i = 0; i < n; i++) v = v * 256 + (bytes[at + i] ?? 0);
  return v;
}

/** Unsigned little-endian 64-bit integer; `null` above 2^53 - 1 (no exact number). */
export function uint64LE(bytes: Uint8Array, at: number): number | null {
  const lo = uintLE(bytes, at, 4);
  const hi = uintLE(bytes, at + 4, 4);
  const v = hi * 2 ** 32 + lo;
  return Number.isSafeInteger(v) ? v : null;
}
