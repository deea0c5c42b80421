/**
 * Reading the whole journal directory at startup for recovery
 * (`recovery.ts`): every segment file, in the order of its first
 * record's sequence, through one shared scan context (`scan.ts`).
 *
 * @module
 */

import { codecFor } from "./codecs.ts";
import {
  MAX_BODY_BYTES,
  parseSegmentName,
  readSegmentHeader,
  SEGMENT_HEADER_BYTES,
  type SegmentHeader,
} from "./format.ts";
import { newScanContext, scanSegment, type SegmentScan } from "./scan.ts";
import { SeqIndex } from "./seq_index.ts";

/**
 * Reads every segment in the order of its first record's sequence (a file's
 * name or header may be what is damaged or copied); a copy whose name and
 * header disagree comes after the original, so its records are duplicates.
 */
export async function scanAll(dir: string): Promise<SegmentScan[]> {
  const files: { path: string; nameFirst: number; key: number; misnamed: boolean }[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const nameFirst = entry.isFile ? parseSegmentName(entry.name) : null;
    if (nameFirst === null) continue;
    const path = `${dir}/${entry.name}`;
    const { header, firstRecord } = await peek(path);
    const key = firstRecord ?? header?.firstSeq ?? nameFirst;
    files.push({ path, nameFirst, key, misnamed: header !== null && header.firstSeq !== nameFirst });
  }
  files.sort((a, b) => a.key - b.key || Number(a.misnamed) - Number(b.misnamed) || a.nameFirst - b.nameFirst);
  const ctx = newScanContext(new SeqIndex());
  const scans: SegmentScan[] = [];
  for (const f of files) scans.push(scanSegment(f.path, f.nameFirst, await Deno.readFile(f.path), ctx));
  for (const f of ctx.unbounded) f.hi = Infinity;
  return scans;
}

/** The segment header and the sequence of the first record when it checks out, reading as little as possible. */
async function peek(path: string): Promise<{ header: SegmentHeader | null; firstRecord: number | null }> {
  using file = await Deno.open(path, { read: true });
  let head = await readAt(file, 0, SEGMENT_HEADER_BYTES + 64);
  const header = readSegmentHeader(head);
  if (!header) return { header, firstRecord: null };
  const codec = codecFor(header.version);
  if (head.length < SEGMENT_HEADER_BYTES + codec.headerBytes) return { header, firstRecord: null };
  let r = codec.decode(head, SEGMENT_HEADER_BYTES);
  if (r.kind === "short" && r.seq === null) {
    // Format 1 checks a record only whole: read all of it.
    const length = codec.declaredLength(head, SEGMENT_HEADER_BYTES);
    if (length > MAX_BODY_BYTES) return { header, firstRecord: null };
    head = await readAt(file, 0, SEGMENT_HEADER_BYTES + codec.headerBytes + length);
    r = codec.decode(head, SEGMENT_HEADER_BYTES);
  }
  // Format 2 vouches for a sequence by the header checksum alone.
  return { header, firstRecord: r.kind === "record" || r.seq !== null ? r.seq : null };
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
