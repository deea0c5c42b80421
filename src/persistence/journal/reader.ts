/**
 * Sequential reading of journal records back from the segment files: used
 * by startup replay and by the apply worker once records went journal-only
 * (issue 5: "the record stays journal-only and is applied later").
 *
 * @module
 */

import { codecFor } from "./codecs.ts";
import { SEGMENT_HEADER_BYTES } from "./format.ts";
import type { Journal } from "./journal.ts";
import { PersistenceError } from "../types.ts";

/** A record read back: sequence and raw JSON body. */
export interface RawRecord {
  readonly seq: number;
  readonly body: Uint8Array;
}

const CHUNK_BYTES = 1024 * 1024;

/** Reads records in sequence order; remembers where it stopped so the next read continues cheaply. */
export class JournalReader {
  readonly #journal: Journal;
  #cursor: { path: string; offset: number; nextSeq: number } | null = null;

  constructor(journal: Journal) {
    this.#journal = journal;
  }

  /**
   * Up to `max` records with sequence `>= fromSeq`, ascending; empty when
   * none are on disk yet. Stops early with the record whose body brings
   * the total to `maxBytes`, so a read of `max` telemetry bundles does not
   * hold gigabytes.
   */
  async read(fromSeq: number, max: number, maxBytes = Infinity): Promise<RawRecord[]> {
    const out: RawRecord[] = [];
    let bytes = 0;
    const segments = this.#journal.segments();
    for (const segment of segments) {
      if (out.length >= max || bytes >= maxBytes) break;
      if (segment.lastSeq < fromSeq || segment.records === 0) continue;
      const cursor = this.#cursor;
      let offset = cursor && cursor.path === segment.path && cursor.nextSeq <= fromSeq
        ? cursor.offset
        : SEGMENT_HEADER_BYTES;
      const codec = codecFor(segment.version);
      using file = await Deno.open(segment.path, { read: true });
      while (out.length < max && bytes < maxBytes && offset < segment.bytes) {
        const want = Math.min(CHUNK_BYTES, segment.bytes - offset);
        let chunk = await readAt(file, offset, want);
        let pos = 0;
        let progressed = false;
        while (out.length < max && bytes < maxBytes) {
          const r = codec.decode(chunk, pos);
          if (r.kind === "short") {
            if (pos === 0 && !progressed) {
              // One record larger than the chunk: read exactly its length.
              const length = chunk.length >= codec.headerBytes ? codec.declaredLength(chunk, 0) : 0;
              chunk = await readAt(file, offset, Math.min(codec.headerBytes + length, segment.bytes - offset));
              if (codec.decode(chunk, 0).kind === "short") throw damaged(segment.path, offset, "record cut short");
              continue;
            }
            break;
          }
          if (r.kind === "bad") throw damaged(segment.path, offset + pos, r.why);
          progressed = true;
          if (r.seq >= fromSeq) {
            out.push({ seq: r.seq, body: chunk.slice(r.bodyStart, r.end) });
            bytes += r.end - r.bodyStart;
          }
          pos = r.end;
          this.#cursor = { path: segment.path, offset: offset + pos, nextSeq: r.seq + 1 };
          if (offset + pos >= segment.bytes) break;
        }
        offset += pos;
        if (!progressed) break;
      }
    }
    return out;
  }
}

async function readAt(file: Deno.FsFile, offset: number, length: number): Promise<Uint8Array> {
  await file.seek(offset, Deno.SeekMode.Start);
  const buf = new Uint8Array(length);
  let filled = 0;
  while (filled < length) {
    const n = await file.read(buf.subarray(filled));
    if (n === null) break;
    filled += n;
  }
  return buf.subarray(0, filled);
}

function damaged(path: string, offset: number, why: string): PersistenceError {
  return new PersistenceError(
    "journal_corrupt",
    `Cannot read the journal: "${path}" is damaged at byte ${offset} (${why})`,
  );
}
