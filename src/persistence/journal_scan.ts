/**
 * Journal recovery scan at startup (issue 5 "Startup replays unapplied
 * records…; a torn last record is truncated with a log line"). Every segment
 * is read and every checksum verified. Damage at the tail of a segment — a
 * record cut short, or a full-length last record whose checksum fails, or a
 * zero-filled tail — is what an interrupted write leaves and is truncated
 * with a log line. Damage followed by intact records is not a torn write: the
 * scan fails closed and names the file and offset (unlike a silent skip).
 *
 * @module
 */

import type { Logger } from "../util/log.ts";
import {
  decodeRecord,
  parseSegmentName,
  readSegmentHeader,
  SEGMENT_HEADER_BYTES,
  segmentHeader,
  zeroTail,
} from "./journal_format.ts";
import { PersistenceError } from "./types.ts";

/** One segment file of the journal. */
export interface SegmentInfo {
  readonly path: string;
  readonly firstSeq: number;
  /** Last sequence in the file; `firstSeq - 1` while empty. */
  lastSeq: number;
  /** File size in bytes. */
  bytes: number;
  records: number;
}

/** What the scan found. */
export interface ScanResult {
  readonly segments: SegmentInfo[];
  /** Torn tails truncated. */
  readonly truncated: number;
}

/** Scans every segment under `dir` (which must exist), repairing torn tails. */
export async function scanJournal(dir: string, log: Logger): Promise<ScanResult> {
  const names: { name: string; first: number }[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const first = entry.isFile ? parseSegmentName(entry.name) : null;
    if (first !== null) names.push({ name: entry.name, first });
  }
  names.sort((a, b) => a.first - b.first);
  const segments: SegmentInfo[] = [];
  let truncated = 0;
  let prevSeq = 0;
  for (const { name, first } of names) {
    const path = `${dir}/${name}`;
    const bytes = await Deno.readFile(path);
    const header = readSegmentHeader(bytes);
    if (header === null) {
      if (bytes.length < SEGMENT_HEADER_BYTES && zeroOrPrefixOfHeader(bytes, first)) {
        // Created but the header never fully reached the disk: rewrite it.
        log.warn("journal: rewrote the cut-short header of a segment", { segment: path, bytes: bytes.length });
        await Deno.writeFile(path, segmentHeader(first));
        segments.push({ path, firstSeq: first, lastSeq: first - 1, bytes: SEGMENT_HEADER_BYTES, records: 0 });
        truncated++;
        continue;
      }
      throw new PersistenceError(
        "journal_corrupt",
        `Cannot recover the journal: "${path}" is not a journal segment (bad header); move it out of the journal directory`,
      );
    }
    if (header !== first) {
      throw new PersistenceError(
        "journal_corrupt",
        `Cannot recover the journal: "${path}" claims first sequence ${header}, its name says ${first}`,
      );
    }
    const info: SegmentInfo = { path, firstSeq: first, lastSeq: first - 1, bytes: bytes.length, records: 0 };
    let offset = SEGMENT_HEADER_BYTES;
    while (offset < bytes.length) {
      const r = decodeRecord(bytes, offset);
      if (r.kind === "record") {
        if (r.seq <= prevSeq || r.seq < first) {
          throw new PersistenceError(
            "journal_corrupt",
            `Cannot recover the journal: sequence ${r.seq} at byte ${offset} of "${path}" does not follow ${prevSeq}`,
          );
        }
        prevSeq = r.seq;
        info.lastSeq = r.seq;
        info.records++;
        offset = r.end;
        continue;
      }
      const torn = r.kind === "short" || r.end >= bytes.length || zeroTail(bytes, offset);
      if (!torn) {
        throw new PersistenceError(
          "journal_corrupt",
          `Cannot recover the journal: "${path}" is damaged at byte ${offset} (${r.why}) and intact data follows; ` +
            `move the file aside to start without its records`,
        );
      }
      log.warn("journal: truncated a torn record at the end of a segment", {
        segment: path,
        offset,
        bytes: bytes.length - offset,
        after_seq: info.lastSeq >= first ? info.lastSeq : undefined,
      });
      const file = await Deno.open(path, { write: true });
      try {
        await file.truncate(offset);
        await file.sync();
      } finally {
        file.close();
      }
      info.bytes = offset;
      truncated++;
      break;
    }
    segments.push(info);
  }
  return { segments, truncated };
}

/** True when `bytes` is a prefix of the header segment `first` would have (or zeros). */
function zeroOrPrefixOfHeader(bytes: Uint8Array, first: number): boolean {
  const header = segmentHeader(first);
  return bytes.every((b, i) => b === 0 || b === header[i]);
}
