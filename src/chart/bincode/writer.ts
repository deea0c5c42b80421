/**
 * Writer of bincode 1.3 with `with_varint_encoding()` (extended.md §5.5):
 * little-endian; `u8` and `bool` one raw byte; other integers varint -- below
 * 251 one byte, else 251/252/253/254 followed by the value as u16/u32/u64/u128
 * LE; signed integers zigzag-mapped first; `f32` 4 bytes LE; lengths of
 * strings and sequences as varint u64; `Option` a 0/1 byte then the value;
 * enum variants as varint u32 index. Output goes to a sink in chunks of
 * {@link CHUNK_BYTES}; large `f32` arrays are handed over without copying.
 *
 * @module
 */

import { concatBytes } from "../../util/bytes.ts";

/** Size of the chunks passed to the sink. */
export const CHUNK_BYTES = 64 * 1024;

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
/** Float arrays at least this long are passed to the sink as views of their own memory. */
const DIRECT_FLOATS = 4096;

/** Receives encoded bytes in order. The writer never reuses a chunk it has passed on. */
export type ByteSink = (chunk: Uint8Array) => void;

/** Streaming bincode writer. */
export class BincodeWriter {
  #buf = new Uint8Array(CHUNK_BYTES);
  #view = new DataView(this.#buf.buffer);
  #pos = 0;
  #written = 0;
  readonly #sink: ByteSink;

  /** A writer passing its output to `sink`; call {@link finish} at the end. */
  constructor(sink: ByteSink) {
    this.#sink = sink;
  }

  /** Bytes written so far (including those still buffered). */
  get length(): number {
    return this.#written + this.#pos;
  }

  #room(n: number): void {
    if (this.#pos + n > this.#buf.byteLength) this.#flush();
  }

  #flush(): void {
    if (this.#pos === 0) return;
    this.#sink(this.#buf.subarray(0, this.#pos));
    this.#written += this.#pos;
    this.#buf = new Uint8Array(CHUNK_BYTES);
    this.#view = new DataView(this.#buf.buffer);
    this.#pos = 0;
  }

  /** Flushes what is buffered. */
  finish(): void {
    this.#flush();
  }

  /** `u8`: one raw byte. */
  u8(v: number): void {
    if (!Number.isInteger(v) || v < 0 || v > 255) throw new RangeError(`Cannot encode u8 ${v}`);
    this.#room(1);
    this.#buf[this.#pos++] = v;
  }

  /** `bool`: one byte 0 or 1. */
  bool(v: boolean): void {
    this.#room(1);
    this.#buf[this.#pos++] = v ? 1 : 0;
  }

  /** Unsigned varint (u16, u32, u64, usize, u128 up to 2^53 - 1). */
  varint(v: number): void {
    if (!Number.isSafeInteger(v) || v < 0) throw new RangeError(`Cannot encode unsigned integer ${v}`);
    this.#room(9);
    const b = this.#buf, d = this.#view;
    if (v < 251) b[this.#pos++] = v;
    else if (v < 0x10000) {
      b[this.#pos] = 251;
      d.setUint16(this.#pos + 1, v, true);
      this.#pos += 3;
    } else if (v < 0x100000000) {
      b[this.#pos] = 252;
      d.setUint32(this.#pos + 1, v, true);
      this.#pos += 5;
    } else {
      b[this.#pos] = 253;
      d.setUint32(this.#pos + 1, v % 0x100000000, true);
      d.setUint32(this.#pos + 5, Math.floor(v / 0x100000000), true);
      this.#pos += 9;
    }
  }

  /** Signed varint (i32, i64): zigzag (0 -> 0, -1 -> 1, 1 -> 2, ...) then {@link varint}. */
  zigzag(v: number): void {
    if (!Number.isSafeInteger(v) || Math.abs(v) > 2 ** 52) throw new RangeError(`Cannot encode signed integer ${v}`);
    this.varint(v >= 0 ? v * 2 : -v * 2 - 1);
  }

  /** `f32`, 4 bytes LE (the value is rounded to f32). */
  f32(v: number): void {
    this.#room(4);
    this.#view.setFloat32(this.#pos, v, true);
    this.#pos += 4;
  }

  /** Enum variant index. */
  variant(index: number): void {
    this.varint(index);
  }

  /** `Option` tag, then the caller writes the value when present. */
  option(present: boolean): void {
    this.u8(present ? 1 : 0);
  }

  /** Raw bytes without a length. */
  raw(bytes: Uint8Array): void {
    if (bytes.byteLength > CHUNK_BYTES) {
      this.#flush();
      this.#sink(bytes.slice());
      this.#written += bytes.byteLength;
      return;
    }
    this.#room(bytes.byteLength);
    this.#buf.set(bytes, this.#pos);
    this.#pos += bytes.byteLength;
  }

  /** `Vec<u8>`: length, then the bytes. */
  bytes(b: Uint8Array): void {
    this.varint(b.byteLength);
    this.raw(b);
  }

  /** `String`: UTF-8 length, then the bytes. */
  str(s: string): void {
    this.bytes(new TextEncoder().encode(s));
  }

  /** `Vec<f32>`: length, then 4 bytes LE each; long arrays go to the sink as views of their memory. */
  f32s(a: Float32Array): void {
    this.varint(a.length);
    if (LITTLE_ENDIAN && a.length >= DIRECT_FLOATS) {
      this.#flush();
      this.#sink(new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
      this.#written += a.byteLength;
      return;
    }
    for (let i = 0; i < a.length; i++) this.f32(a[i]!);
  }
}

/** Encodes with `write` into one byte array (for small values and tests). */
export function encodeToBytes(write: (w: BincodeWriter) => void): Uint8Array {
  const chunks: Uint8Array[] = [];
  const w = new BincodeWriter((c) => chunks.push(c));
  write(w);
  w.finish();
  return concatBytes(chunks);
}
