/**
 * The journal's segment files (`journal.ts`): the file operations it needs
 * (replaceable to inject faults), and opening the segment new records go
 * to -- always one of the current format: the last segment when it is one,
 * otherwise a new segment after it (older segments are read until
 * compaction deletes them).
 *
 * @module
 */

import { errorText, PersistenceError } from "../types.ts";
import { CURRENT_VERSION, SEGMENT_HEADER_BYTES, segmentHeader, segmentName } from "./format.ts";
import type { SegmentInfo } from "./recovery.ts";

/** The file operations the journal needs (a `Deno.FsFile` has them); replaceable to inject faults. */
export interface JournalFile {
  writeSync(p: Uint8Array): number;
  truncateSync(len?: number): void;
  syncSync(): void;
  sync(): Promise<void>;
  close(): void;
}

/** Opens (creating when missing) a segment for appending. */
export type OpenJournalFile = (path: string) => JournalFile;

/** Opens a segment file for appending, creating it when missing. */
export function openSegmentFile(path: string): JournalFile {
  return Deno.openSync(path, { read: true, write: true, create: true, append: true });
}

/**
 * Opens the segment new records go to (adding it to `segments` when new)
 * and says which sequence was allocated last: that of the last record, or
 * `minSeq` (the store's applied sequence) when that is higher.
 */
export function openActive(
  dir: string,
  segments: SegmentInfo[],
  minSeq: number,
  open: OpenJournalFile,
): { file: JournalFile; lastSeq: number } {
  let last = segments.at(-1);
  const lastSeq = Math.max(last?.lastSeq ?? 0, minSeq);
  if (last && last.version !== CURRENT_VERSION && last.records === 0) {
    // An empty segment of the old format: start it again in the current one.
    Deno.removeSync(last.path);
    segments.pop();
    last = undefined;
  }
  let active = last;
  if (!active || active.version !== CURRENT_VERSION) {
    const first = lastSeq + 1;
    active = { path: `${dir}/${segmentName(first)}`, firstSeq: first, lastSeq, bytes: 0, records: 0, version: 2 };
    segments.push(active);
  }
  try {
    const file = open(active.path);
    if (active.bytes < SEGMENT_HEADER_BYTES) {
      file.truncateSync(0);
      writeAll(file, segmentHeader(active.firstSeq));
      file.syncSync();
      active.bytes = SEGMENT_HEADER_BYTES;
      syncDir(dir);
    }
    return { file, lastSeq };
  } catch (error) {
    throw new PersistenceError("journal_write", `Cannot open the journal in "${dir}": ${errorText(error)}`);
  }
}

/** Writes all of `bytes` (a write may be partial). */
export function writeAll(file: JournalFile, bytes: Uint8Array): void {
  let offset = 0;
  while (offset < bytes.length) offset += file.writeSync(bytes.subarray(offset));
}

/** Makes a directory entry change durable (new segment file). */
export function syncDir(dir: string): void {
  try {
    const d = Deno.openSync(dir, { read: true });
    try {
      d.syncSync();
    } finally {
      d.close();
    }
  } catch {
    // Not supported on every platform; the file data itself is flushed.
  }
}
