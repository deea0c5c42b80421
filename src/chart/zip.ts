/**
 * Pure parsers of the zip structures a prober needs (APPNOTE 6.3.x): the
 * end-of-central-directory record (searched backwards, so archive comments
 * work), the ZIP64 locator and end record, central-directory entries (with
 * ZIP64 extra fields) and the fixed part of a local file header.
 *
 * @module
 */

import { hasAscii, uint64LE, uintLE } from "./bytes.ts";
import { ChartProbeError } from "./errors.ts";

/** Size of the end-of-central-directory record without its comment. */
export const EOCD_SIZE = 22;
/** Bytes from the end that can hold the record: the record plus the longest comment. */
export const EOCD_SEARCH_BYTES = EOCD_SIZE + 0xffff;
/** Size of the ZIP64 end-of-central-directory locator, which sits right before the record. */
export const ZIP64_LOCATOR_SIZE = 20;
/** Size of the ZIP64 end-of-central-directory record (without extensible data). */
export const ZIP64_EOCD_SIZE = 56;
/** Fixed part of a local file header. */
export const LOCAL_HEADER_SIZE = 30;

const CD_ENTRY_SIZE = 46;

/** One central-directory entry. */
export interface ZipEntry {
  name: string;
  /** 0 stored, 8 deflated; others are unsupported. */
  method: number;
  /** General-purpose bit flags (bit 0: encrypted). */
  flags: number;
  compressedSize: number;
  uncompressedSize: number;
  /** Offset of the local file header. */
  localOffset: number;
}

/** Where the central directory is. */
export interface CentralDirectoryLocation {
  entries: number;
  size: number;
  offset: number;
}

/** The end-of-central-directory record found in the last bytes of the archive. */
export interface EndRecord extends CentralDirectoryLocation {
  /** Absolute offset of the record. */
  at: number;
  /** Absolute offset of the ZIP64 end record when a locator precedes the record, else `null`. */
  zip64At: number | null;
}

function corrupt(reason: string): ChartProbeError {
  return new ChartProbeError("corrupt_zip", `Cannot read the chart archive: ${reason}`);
}

/**
 * Finds the end record in `tail`, the archive's bytes from absolute offset `tailStart` to its end.
 * Prefers a record whose comment length reaches exactly the end; `null` when there is none.
 */
export function findEndRecord(tail: Uint8Array, tailStart: number): EndRecord | null {
  let loose = -1;
  for (let i = tail.byteLength - EOCD_SIZE; i >= 0; i--) {
    if (!hasAscii(tail, i, "PK\x05\x06")) continue;
    const comment = uintLE(tail, i + 20, 2);
    if (i + EOCD_SIZE + comment === tail.byteLength) return endRecordAt(tail, i, tailStart);
    if (loose < 0 && i + EOCD_SIZE + comment < tail.byteLength) loose = i; // trailing bytes after the comment
  }
  return loose < 0 ? null : endRecordAt(tail, loose, tailStart);
}

function endRecordAt(b: Uint8Array, i: number, tailStart: number): EndRecord {
  const disk = uintLE(b, i + 4, 2);
  const cdDisk = uintLE(b, i + 6, 2);
  if (disk !== cdDisk && disk !== 0xffff) {
    throw new ChartProbeError(
      "unsupported",
      "Cannot read the chart archive: split (multi-disk) archives are unsupported",
    );
  }
  const l = i - ZIP64_LOCATOR_SIZE;
  const zip64At = l >= 0 && hasAscii(b, l, "PK\x06\x07") ? uint64LE(b, l + 8) : null;
  return {
    at: tailStart + i,
    entries: uintLE(b, i + 10, 2),
    size: uintLE(b, i + 12, 4),
    offset: uintLE(b, i + 16, 4),
    zip64At,
  };
}

/** Whether the end record has a field saturated so that the ZIP64 record must be read. */
export function needsZip64(r: EndRecord): boolean {
  return r.zip64At !== null || r.entries === 0xffff || r.size === 0xffffffff || r.offset === 0xffffffff;
}

/** Parses a ZIP64 end-of-central-directory record. */
export function parseZip64End(b: Uint8Array): CentralDirectoryLocation {
  if (!hasAscii(b, 0, "PK\x06\x06") || b.byteLength < ZIP64_EOCD_SIZE) throw corrupt("bad ZIP64 end record");
  const entries = uint64LE(b, 32);
  const size = uint64LE(b, 40);
  const offset = uint64LE(b, 48);
  if (entries === null || size === null || offset === null) throw corrupt("ZIP64 sizes over 2^53");
  return { entries, size, offset };
}

/** Parses `count` central-directory entries from `b` (the whole directory). */
export function parseCentralDirectory(b: Uint8Array, count: number): ZipEntry[] {
  const out: ZipEntry[] = [];
  const names = new TextDecoder();
  let at = 0;
  for (let n = 0; n < count; n++) {
    if (at + CD_ENTRY_SIZE > b.byteLength || !hasAscii(b, at, "PK\x01\x02")) {
      throw corrupt(`central directory entry ${n} of ${count} is missing`);
    }
    const nameLen = uintLE(b, at + 28, 2);
    const extraLen = uintLE(b, at + 30, 2);
    const commentLen = uintLE(b, at + 32, 2);
    const end = at + CD_ENTRY_SIZE + nameLen + extraLen + commentLen;
    if (end > b.byteLength) throw corrupt(`central directory entry ${n} overruns the directory`);
    const entry: ZipEntry = {
      name: names.decode(b.subarray(at + CD_ENTRY_SIZE, at + CD_ENTRY_SIZE + nameLen)),
      method: uintLE(b, at + 10, 2),
      flags: uintLE(b, at + 8, 2),
      compressedSize: uintLE(b, at + 20, 4),
      uncompressedSize: uintLE(b, at + 24, 4),
      localOffset: uintLE(b, at + 42, 4),
    };
    applyZip64Extra(entry, b.subarray(at + CD_ENTRY_SIZE + nameLen, at + CD_ENTRY_SIZE + nameLen + extraLen));
    out.push(entry);
    at = end;
  }
  return out;
}

/** Replaces saturated 32-bit fields by the 64-bit values of the ZIP64 extra field (id 1), in APPNOTE order. */
function applyZip64Extra(e: ZipEntry, extra: Uint8Array): void {
  const fields = (["uncompressedSize", "compressedSize", "localOffset"] as const).filter((k) => e[k] === 0xffffffff);
  if (fields.length === 0) return;
  for (let at = 0; at + 4 <= extra.byteLength;) {
    const id = uintLE(extra, at, 2);
    const len = uintLE(extra, at + 2, 2);
    if (id === 1) {
      if (len < fields.length * 8 || at + 4 + len > extra.byteLength) throw corrupt(`short ZIP64 field of ${e.name}`);
      fields.forEach((k, i) => {
        const v = uint64LE(extra, at + 4 + i * 8);
        if (v === null) throw corrupt(`ZIP64 size of ${JSON.stringify(e.name)} over 2^53`);
        e[k] = v;
      });
      return;
    }
    at += 4 + len;
  }
  throw corrupt(`${JSON.stringify(e.name)} has saturated sizes but no ZIP64 field`);
}

/** Offset of the entry's data from its local header, given the header's first 30 bytes. */
export function localDataOffset(b: Uint8Array, name: string): number {
  if (!hasAscii(b, 0, "PK\x03\x04") || b.byteLength < LOCAL_HEADER_SIZE) {
    throw corrupt(`no local file header for ${JSON.stringify(name)}`);
  }
  return LOCAL_HEADER_SIZE + uintLE(b, 26, 2) + uintLE(b, 28, 2);
}
