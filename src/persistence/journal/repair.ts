/**
 * The file changes of journal recovery (`recovery.ts`): cutting a
 * torn tail, rewriting a segment without its damage, and keeping the
 * original of anything changed or removed under `journal/damaged/` (never
 * deleted by the server; the operator may inspect and delete it).
 *
 * Every change is made so that a crash in the middle leaves either the old
 * or the new file: a rewrite goes to a temporary file that is flushed and
 * then renamed over the segment, after the original was linked (or
 * copied) under `damaged/`.
 *
 * @module
 */

import { segmentHeader } from "./format.ts";
import { RecordEncoder } from "./record_v2.ts";
import type { SegmentScan } from "./scan.ts";

/** Folder of kept originals, inside the journal directory. */
export const DAMAGED_DIR = "damaged";

/** Truncates a segment at `at` and flushes it. */
export async function truncateSegment(path: string, at: number): Promise<void> {
  using file = await Deno.open(path, { write: true });
  await file.truncate(at);
  await file.sync();
}

/** Keeps a copy of `path` under `damaged/` (a hard link where possible); returns the copy's path. */
export async function preserve(dir: string, path: string, now: number): Promise<string> {
  const to = await target(dir, path, now, "");
  try {
    await Deno.link(path, to);
  } catch {
    await Deno.copyFile(path, to);
  }
  await syncDir(`${dir}/${DAMAGED_DIR}`);
  return to;
}

/** Moves `path` under `damaged/` (a duplicate segment); returns its new path. */
export async function setAside(dir: string, path: string, now: number): Promise<string> {
  const to = await target(dir, path, now, ".duplicate");
  await Deno.rename(path, to);
  await syncDir(`${dir}/${DAMAGED_DIR}`);
  await syncDir(dir);
  return to;
}

/** Rewrites a segment in format 2 with only its kept records; returns the new size. */
export async function rewriteSegment(scan: SegmentScan): Promise<number> {
  const bytes = await Deno.readFile(scan.path);
  const encoder = new RecordEncoder();
  const parts: Uint8Array[] = [segmentHeader(scan.nameFirst, 2)];
  for (let i = 0; i < scan.records.length; i++) {
    const { bodyStart, end } = scan.records.body(i);
    parts.push(encoder.encodeBytes(scan.records.seq(i), bytes.subarray(bodyStart, end)));
  }
  const size = parts.reduce((n, p) => n + p.length, 0);
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  const tmp = `${scan.path}.repair`;
  {
    using file = await Deno.open(tmp, { write: true, create: true, truncate: true });
    for (let written = 0; written < out.length;) written += await file.write(out.subarray(written));
    await file.sync();
  }
  await Deno.rename(tmp, scan.path);
  await syncDir(scan.path.slice(0, scan.path.lastIndexOf("/")));
  return size;
}

/** A free name under `damaged/` for `path`'s original. */
async function target(dir: string, path: string, now: number, tag: string): Promise<string> {
  await Deno.mkdir(`${dir}/${DAMAGED_DIR}`, { recursive: true });
  const stamp = new Date(now).toISOString().replace(/[:.]/g, "-");
  const base = `${dir}/${DAMAGED_DIR}/${path.slice(path.lastIndexOf("/") + 1)}${tag}.${stamp}`;
  for (let n = 0;; n++) {
    const candidate = n === 0 ? base : `${base}-${n}`;
    try {
      await Deno.lstat(candidate);
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return candidate;
      throw error;
    }
  }
}

/** Makes directory entry changes durable (not supported everywhere: then the data itself is flushed). */
async function syncDir(dir: string): Promise<void> {
  try {
    using d = await Deno.open(dir, { read: true });
    await d.sync();
  } catch {
    // Not every platform syncs directories.
  }
}
