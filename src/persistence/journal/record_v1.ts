/**
 * Journal record format 1 (issue 5), read only: data directories written
 * before format 2 still start, and their records are applied; new records
 * go to format-2 segments (`format.ts`).
 *
 * | offset | size | field                                         |
 * |--------|------|-----------------------------------------------|
 * | 0      | 4    | body length N (u32 LE)                        |
 * | 4      | 4    | CRC-32 of bytes 8 .. 17+N (u32 LE)            |
 * | 8      | 8    | sequence (u64 LE)                             |
 * | 16     | 1    | format version (1)                            |
 * | 17     | N    | body: UTF-8 JSON of a journal entry           |
 *
 * The format has no marker and no header checksum: a length that points
 * past the end of the file looks like a write cut short. So the scanner
 * looks for an intact record after any damage before calling it a torn
 * tail, and a damaged length is repaired from where that record starts
 * (the checksum covers everything but the length, so it confirms the
 * repair). A damaged sequence or body cannot be told apart or repaired.
 *
 * @module
 */

import { crc32 } from "node:zlib";
import { type Decoded, MAX_BODY_BYTES, type RecordCodec, type Repaired } from "./format.ts";

/** Bytes before the body. */
export const V1_HEADER_BYTES = 17;

/** Length, checksum and version at `offset`, and the extent they declare. */
function header(bytes: Uint8Array, offset: number) {
  const view = new DataView(bytes.buffer, bytes.byteOffset + offset, V1_HEADER_BYTES);
  const length = view.getUint32(0, true);
  return { length, sum: view.getUint32(4, true), seq: Number(view.getBigUint64(8, true)), end: offset + 17 + length };
}

/** True when the record at `offset` is whole and its checksum holds. */
function intact(bytes: Uint8Array, offset: number): boolean {
  if (bytes.length - offset < V1_HEADER_BYTES || bytes[offset + 16] !== 1) return false;
  const { length, sum, end } = header(bytes, offset);
  return length <= MAX_BODY_BYTES && end <= bytes.length && crc32(bytes.subarray(offset + 8, end)) === sum;
}

/** The format-1 codec. */
export const V1_CODEC: RecordCodec = {
  version: 1,
  headerBytes: V1_HEADER_BYTES,

  decode(bytes: Uint8Array, offset: number): Decoded {
    if (bytes.length - offset < V1_HEADER_BYTES) return { kind: "short", seq: null };
    const { length, sum, seq, end } = header(bytes, offset);
    if (length > MAX_BODY_BYTES) return { kind: "bad", end: null, seq: null, why: `length ${length} is too large` };
    if (end > bytes.length) return { kind: "short", seq: null };
    if (crc32(bytes.subarray(offset + 8, end)) !== sum) {
      // Length or checksum damaged, or the sequence or body: nothing here says which.
      return { kind: "bad", end: null, seq: null, why: "checksum mismatch" };
    }
    if (bytes[offset + 16] !== 1) {
      return { kind: "bad", end, seq: null, why: `unknown record version ${bytes[offset + 16]}` };
    }
    const bodyStart = offset + V1_HEADER_BYTES;
    return { kind: "record", seq, bodyStart, end, bodyCrc: crc32(bytes.subarray(bodyStart, end)) };
  },

  findNext(bytes: Uint8Array, from: number): number {
    // JSON text never holds the byte 1, so the version byte rules out nearly every offset at once.
    for (let o = from; o + V1_HEADER_BYTES <= bytes.length; o++) {
      if (bytes[o + 16] === 1 && intact(bytes, o)) return o;
    }
    return -1;
  },

  repair(bytes: Uint8Array, offset: number, end: number): Repaired | null {
    const length = end - offset - V1_HEADER_BYTES;
    if (length < 0 || length > MAX_BODY_BYTES || bytes[offset + 16] !== 1) return null;
    const h = header(bytes, offset);
    const actual = crc32(bytes.subarray(offset + 8, end));
    const bodyStart = offset + V1_HEADER_BYTES;
    const found = (how: string): Repaired => ({
      seq: h.seq,
      bodyStart,
      end,
      bodyCrc: crc32(bytes.subarray(bodyStart, end)),
      how,
    });
    // The checksum covers sequence, version and body, not the length: a match confirms the length from the boundary.
    if (actual === h.sum) return found(h.length === length ? "nothing" : "length");
    // One flipped bit in the stored checksum of a record whose length agrees with the boundary.
    if (h.length === length && popcount(actual ^ h.sum) === 1) return found("one bit of the checksum");
    return null;
  },

  declaredLength(bytes: Uint8Array, offset: number): number {
    return new DataView(bytes.buffer, bytes.byteOffset + offset, 4).getUint32(0, true);
  },
};

function popcount(x: number): number {
  let n = 0;
  for (let v = x >>> 0; v; v &= v - 1) n++;
  return n;
}
