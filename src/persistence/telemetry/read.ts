/**
 * Reading stored telemetry back (issue 15: decoded only when read): a
 * segment's byte range is read from its file and its entries -- wire payloads
 * -- are decoded with the protocol's own codec into touch frames or judge
 * events, the shape `persist.touches` / `persist.judges` always returned.
 *
 * @module
 */

import { join } from "node:path";
import { decodeClientCommand } from "../../protocol/mod.ts";
import { ENTRY_PREFIX_BYTES } from "../../replay/mod.ts";
import { TAG } from "./segment_types.ts";

/** Where a segment is (an index row's columns). */
export interface SegmentRef {
  readonly file: string;
  readonly offset: number;
  readonly bytes: number;
}

/** An index row's file name (never anything else: it is joined to the folder). */
const FILE = /^\d{1,10}\/\d{1,10}\/\d{1,15}\.phirarec$/;

/** The payloads of a segment's bytes, in order; stops at a torn entry. */
export function segmentPayloads(bytes: Uint8Array): Uint8Array[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out: Uint8Array[] = [];
  let at = 0;
  while (bytes.length - at >= ENTRY_PREFIX_BYTES) {
    const size = view.getUint32(at, true);
    if (bytes.length - at - ENTRY_PREFIX_BYTES < size) break;
    out.push(bytes.subarray(at + ENTRY_PREFIX_BYTES, at + ENTRY_PREFIX_BYTES + size));
    at += ENTRY_PREFIX_BYTES + size;
  }
  return out;
}

/** The items of `kind` in one segment's bytes (payloads of the other kind are skipped). */
export function decodeSegment(bytes: Uint8Array, kind: "touches" | "judges"): unknown[] {
  const items: unknown[] = [];
  for (const payload of segmentPayloads(bytes)) {
    if (payload[0] !== TAG[kind]) continue;
    const cmd = decodeClientCommand(payload);
    if (cmd.type === "Touches") { for (const f of cmd.frames) items.push(f); }
    else if (cmd.type === "Judges") { for (const j of cmd.judges) items.push(j); }
  }
  return items;
}

/**
 * The raw bytes of each segment (null for a segment whose file is gone or
 * shorter than its index says: deleted by retention or by its owner).
 */
export async function readSegments(dir: string, refs: readonly SegmentRef[]): Promise<(Uint8Array | null)[]> {
  const files = new Map<string, Deno.FsFile | null>();
  try {
    const out: (Uint8Array | null)[] = [];
    for (const ref of refs) {
      if (!FILE.test(ref.file)) {
        out.push(null);
        continue;
      }
      let file = files.get(ref.file);
      if (file === undefined) {
        file = await Deno.open(join(dir, ref.file), { read: true }).catch((error) => {
          if (error instanceof Deno.errors.NotFound) return null;
          throw error;
        });
        files.set(ref.file, file);
      }
      out.push(file ? await readRange(file, ref.offset, ref.bytes) : null);
    }
    return out;
  } finally {
    for (const f of files.values()) f?.close();
  }
}

async function readRange(file: Deno.FsFile, offset: number, length: number): Promise<Uint8Array | null> {
  await file.seek(offset, Deno.SeekMode.Start);
  const out = new Uint8Array(length);
  let at = 0;
  while (at < length) {
    const n = await file.read(out.subarray(at));
    if (n === null) return null;
    at += n;
  }
  return out;
}
