/**
 * Byte layout of the write-ahead journal (issue 5 "Write-ahead journal").
 *
 * A segment file `<first seq, 20 digits>.wal` starts with a 16-byte header:
 * the magic `CHJRNL01` and the first sequence (u64 LE). Records follow:
 *
 * | offset | size | field                                         |
 * |--------|------|-----------------------------------------------|
 * | 0      | 4    | body length N (u32 LE)                        |
 * | 4      | 4    | CRC-32 of bytes 8 .. 17+N (u32 LE)            |
 * | 8      | 8    | sequence (u64 LE)                             |
 * | 16     | 1    | format version (1)                            |
 * | 17     | N    | body: UTF-8 JSON of a {@link JournalEntry}    |
 *
 * The checksum is zlib's CRC-32 (`node:zlib`), a vetted implementation.
 *
 * @module
 */

import { crc32 } from "node:zlib";

/** Segment header magic. */
export const SEGMENT_MAGIC = new TextEncoder().encode("CHJRNL01");
/** Bytes of the segment header. */
export const SEGMENT_HEADER_BYTES = 16;
/** Bytes of a record header. */
export const RECORD_HEADER_BYTES = 17;
/** Record format version written by this code. */
export const RECORD_VERSION = 1;
/** Largest body accepted; anything longer is damage, not data. */
export const MAX_BODY_BYTES = 16 * 1024 * 1024;

const encoder = new TextEncoder();

/** File name of the segment whose first record is `firstSeq`. */
export function segmentName(firstSeq: number): string {
  return `${String(firstSeq).padStart(20, "0")}.wal`;
}

/** First sequence encoded in a segment file name, or null for other files. */
export function parseSegmentName(name: string): number | null {
  const m = /^(\d{20})\.wal$/.exec(name);
  return m ? Number(m[1]) : null;
}

/** The 16-byte header of a new segment. */
export function segmentHeader(firstSeq: number): Uint8Array {
  const out = new Uint8Array(SEGMENT_HEADER_BYTES);
  out.set(SEGMENT_MAGIC, 0);
  new DataView(out.buffer).setBigUint64(8, BigInt(firstSeq), true);
  return out;
}

/** Checks a segment header; returns its first sequence or null when it is not one. */
export function readSegmentHeader(bytes: Uint8Array): number | null {
  if (bytes.length < SEGMENT_HEADER_BYTES) return null;
  for (let i = 0; i < SEGMENT_MAGIC.length; i++) if (bytes[i] !== SEGMENT_MAGIC[i]) return null;
  return Number(new DataView(bytes.buffer, bytes.byteOffset, SEGMENT_HEADER_BYTES).getBigUint64(8, true));
}

/** Reusable encoder of records (one per journal; avoids an allocation per append). */
export class RecordEncoder {
  #buf = new Uint8Array(64 * 1024);

  /** Frames `body` as record `seq`; the returned view is valid until the next call. */
  encode(seq: number, body: string): Uint8Array {
    const need = RECORD_HEADER_BYTES + body.length * 3;
    if (this.#buf.length < need) this.#buf = new Uint8Array(Math.max(need, this.#buf.length * 2));
    const buf = this.#buf;
    const { written } = encoder.encodeInto(body, buf.subarray(RECORD_HEADER_BYTES));
    if (written > MAX_BODY_BYTES) {
      throw new RangeError(`Cannot journal a record: ${written} bytes exceed the ${MAX_BODY_BYTES}-byte limit`);
    }
    const view = new DataView(buf.buffer, 0, RECORD_HEADER_BYTES);
    view.setUint32(0, written, true);
    view.setBigUint64(8, BigInt(seq), true);
    buf[16] = RECORD_VERSION;
    view.setUint32(4, crc32(buf.subarray(8, RECORD_HEADER_BYTES + written)), true);
    return buf.subarray(0, RECORD_HEADER_BYTES + written);
  }
}

/** Result of decoding the bytes at one offset. */
export type DecodeResult =
  | { readonly kind: "record"; readonly seq: number; readonly body: Uint8Array; readonly end: number }
  /** Fewer bytes than the header or the declared length: the record was cut short. */
  | { readonly kind: "short" }
  /** A full-length record whose checksum, version or length is wrong. */
  | { readonly kind: "bad"; readonly end: number; readonly why: string };

/** Decodes the record at `offset` of `bytes` (a segment or a chunk of one). */
export function decodeRecord(bytes: Uint8Array, offset: number): DecodeResult {
  if (bytes.length - offset < RECORD_HEADER_BYTES) return { kind: "short" };
  const view = new DataView(bytes.buffer, bytes.byteOffset + offset, RECORD_HEADER_BYTES);
  const length = view.getUint32(0, true);
  if (length > MAX_BODY_BYTES) return { kind: "bad", end: bytes.length, why: `length ${length} is too large` };
  const end = offset + RECORD_HEADER_BYTES + length;
  if (end > bytes.length) return { kind: "short" };
  const sum = view.getUint32(4, true);
  if (crc32(bytes.subarray(offset + 8, end)) !== sum) return { kind: "bad", end, why: "checksum mismatch" };
  if (bytes[offset + 16] !== RECORD_VERSION) {
    return { kind: "bad", end, why: `unknown record version ${bytes[offset + 16]}` };
  }
  const seq = Number(view.getBigUint64(8, true));
  return { kind: "record", seq, body: bytes.subarray(offset + RECORD_HEADER_BYTES, end), end };
}

/** True when every byte from `offset` on is zero (a pre-allocated or zero-filled tail). */
export function zeroTail(bytes: Uint8Array, offset: number): boolean {
  for (let i = offset; i < bytes.length; i++) if (bytes[i] !== 0) return false;
  return true;
}
