/**
 * Byte layout of the write-ahead journal (issue 5 "Write-ahead journal";
 * issue 14 "Journal integrity").
 *
 * A segment file `<first seq, 20 digits>.wal` starts with a 16-byte header:
 * the magic `CHJRNL0<v>` (`v` = the record format version of the whole
 * file) and the first sequence (u64 LE). Records follow, back to back, in
 * the segment's format:
 *
 * - version 2 (written by this code, `journal_record_v2.ts`): each record
 *   starts with a sync marker and carries a checksum of its header as well
 *   as of its body, so a damaged record can be told from a torn write, most
 *   header damage is repaired, and the records after a damaged one are found
 *   again (one bad record costs at most that record).
 * - version 1 (read only, `journal_record_v1.ts`): length, one checksum
 *   over sequence and body, no marker. Data directories written before
 *   version 2 still start; new records go to a new version-2 segment (the
 *   old segments are deleted by compaction once applied).
 *
 * The checksums are zlib's CRC-32 (`node:zlib`), a vetted implementation.
 *
 * @module
 */

/** Versions of the record format this code reads. */
export type FormatVersion = 1 | 2;

/** Format version of new segments. */
export const CURRENT_VERSION: FormatVersion = 2;

/** Bytes of the segment header (both versions). */
export const SEGMENT_HEADER_BYTES = 16;

/** Largest body accepted; anything longer is damage, not data. */
export const MAX_BODY_BYTES = 16 * 1024 * 1024;

const MAGIC_PREFIX = new TextEncoder().encode("CHJRNL0");

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
export function segmentHeader(firstSeq: number, version: FormatVersion = CURRENT_VERSION): Uint8Array {
  const out = new Uint8Array(SEGMENT_HEADER_BYTES);
  out.set(MAGIC_PREFIX, 0);
  out[7] = 0x30 + version;
  new DataView(out.buffer).setBigUint64(8, BigInt(firstSeq), true);
  return out;
}

/** A segment header as read. */
export interface SegmentHeader {
  readonly version: FormatVersion;
  readonly firstSeq: number;
}

/** Checks a segment header; null when it is not one (damaged, or another file). */
export function readSegmentHeader(bytes: Uint8Array): SegmentHeader | null {
  if (bytes.length < SEGMENT_HEADER_BYTES) return null;
  for (let i = 0; i < MAGIC_PREFIX.length; i++) if (bytes[i] !== MAGIC_PREFIX[i]) return null;
  const version = bytes[7]! - 0x30;
  if (version !== 1 && version !== 2) return null;
  const firstSeq = Number(new DataView(bytes.buffer, bytes.byteOffset, SEGMENT_HEADER_BYTES).getBigUint64(8, true));
  return { version, firstSeq };
}

/** What decoding the bytes at one offset found. */
export type Decoded =
  | {
    readonly kind: "record";
    readonly seq: number;
    readonly bodyStart: number;
    readonly end: number;
    /** CRC-32 of the body alone (compares records across formats). */
    readonly bodyCrc: number;
  }
  /**
   * Fewer bytes than the header or its declared length: a write cut short.
   * `seq` is set when the header itself checked out (format 2).
   */
  | { readonly kind: "short"; readonly seq: number | null }
  /**
   * Damage. `end` (where the record ends) and `seq` are set when the header
   * checked out and only the body is wrong.
   */
  | { readonly kind: "bad"; readonly end: number | null; readonly seq: number | null; readonly why: string };

/** A record restored from a damaged header: its true sequence and extent, and what was wrong. */
export interface Repaired {
  readonly seq: number;
  readonly bodyStart: number;
  readonly end: number;
  readonly bodyCrc: number;
  readonly how: string;
}

/** One record format: decoding, finding the next record after damage, and repairing a damaged header. */
export interface RecordCodec {
  readonly version: FormatVersion;
  /** Bytes before the body. */
  readonly headerBytes: number;
  /** Decodes the record at `offset`. */
  decode(bytes: Uint8Array, offset: number): Decoded;
  /**
   * The first offset at or after `from` where a record starts whose header
   * checks out (format 2; format 1 has no header checksum, so there the
   * whole record must), or -1.
   */
  findNext(bytes: Uint8Array, from: number): number;
  /**
   * The record at `offset` whose header is damaged, restored on the
   * knowledge that it must end exactly at `end` (the next record's start,
   * or the end of the file) -- or null when its checksums do not allow it.
   */
  repair(bytes: Uint8Array, offset: number, end: number): Repaired | null;
  /** The body length the header at `offset` declares (unchecked; the reader sizes a read with it). */
  declaredLength(bytes: Uint8Array, offset: number): number;
}

/** True when every byte from `offset` on is zero (a pre-allocated or zero-filled tail). */
export function zeroTail(bytes: Uint8Array, offset: number, end = bytes.length): boolean {
  for (let i = offset; i < end; i++) if (bytes[i] !== 0) return false;
  return true;
}
