/**
 * Journals laid out byte for byte, for the corruption suite: segment files
 * written directly (format 2 as the journal writes it, or the old format
 * 1), records located, bits flipped, and the journal reopened and read.
 *
 * @module
 */

import { crc32 } from "node:zlib";
import { ManualClock } from "../../util/clock.ts";
import { LogHub } from "../../util/log.ts";
import { Journal, type JournalOptions } from "./journal.ts";
import { type FormatVersion, SEGMENT_HEADER_BYTES, segmentHeader, segmentName } from "./format.ts";
import { JournalReader } from "./reader.ts";
import { V1_CODEC } from "./record_v1.ts";
import { RecordEncoder, V2_CODEC } from "./record_v2.ts";
import type { JournalEntry } from "../types.ts";

/** The body of record `i` (a setting `k<i>`). */
export function body(i: number): string {
  return JSON.stringify({ t: "setting", key: `k${i}`, value: { i }, at: 1000 + i } satisfies JournalEntry);
}

/** A format-1 record, as the journal wrote it before format 2. */
export function encodeV1(seq: number, text: string): Uint8Array {
  const b = new TextEncoder().encode(text);
  const out = new Uint8Array(17 + b.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, b.length, true);
  view.setBigUint64(8, BigInt(seq), true);
  out[16] = 1;
  out.set(b, 17);
  view.setUint32(4, crc32(out.subarray(8)), true);
  return out;
}

/** Writes a segment holding records `seqs` (bodies {@link body}); returns its path. */
export async function writeSegment(
  dir: string,
  seqs: readonly number[],
  version: FormatVersion = 2,
  name = seqs[0]!,
): Promise<string> {
  const encoder = new RecordEncoder();
  const parts = [segmentHeader(seqs[0]!, version)];
  for (const seq of seqs) {
    parts.push(version === 1 ? encodeV1(seq, body(seq)) : encoder.encode(seq, body(seq)).slice());
  }
  const path = `${dir}/${segmentName(name)}`;
  await Deno.writeFile(path, concat(...parts));
  return path;
}

/** A journal directory of `segments` segments of `perSegment` records each (sequences from 1). */
export async function layout(segments: number, perSegment: number, version: FormatVersion = 2): Promise<{
  dir: string;
  paths: string[];
}> {
  const dir = await Deno.makeTempDir({ prefix: "chorus-wal-" });
  const paths: string[] = [];
  for (let s = 0; s < segments; s++) {
    paths.push(await writeSegment(dir, Array.from({ length: perSegment }, (_, i) => s * perSegment + i + 1), version));
  }
  return { dir, paths };
}

/** Start offsets of the records of a clean segment. */
export function recordOffsets(bytes: Uint8Array, version: FormatVersion = 2): number[] {
  const codec = version === 1 ? V1_CODEC : V2_CODEC;
  const out: number[] = [];
  for (let o = SEGMENT_HEADER_BYTES; o < bytes.length;) {
    const r = codec.decode(bytes, o);
    if (r.kind !== "record") throw new Error(`Cannot lay out the segment: no record at byte ${o}`);
    out.push(o);
    o = r.end;
  }
  return out;
}

/** A copy of `bytes` with bit `bit` of byte `at` flipped. */
export function flip(bytes: Uint8Array, at: number, bit = 0): Uint8Array {
  const out = bytes.slice();
  out[at]! ^= 1 << bit;
  return out;
}

/** The bytes joined. */
export function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** A quiet logger whose history the test reads, and a manual clock. */
export function journalEnv(): { clock: ManualClock; log: ReturnType<LogHub["logger"]>; logs: LogHub } {
  const logs = new LogHub({ level: "debug", sink: () => {} });
  return { clock: new ManualClock(), log: logs.logger(), logs };
}

/** Opens the journal in `dir` and reads every record back: the keys in order. */
export async function openAndRead(
  dir: string,
  o: Partial<JournalOptions> = {},
): Promise<{ journal: Journal; keys: string[]; logs: LogHub }> {
  const e = journalEnv();
  const journal = await Journal.open({ dir, clock: e.clock, log: e.log, ...o });
  const records = await new JournalReader(journal).read(1, 1_000_000);
  return { journal, keys: records.map((r) => JSON.parse(new TextDecoder().decode(r.body)).key), logs: e.logs };
}

/** Keys `k1..k<n>` without `except`. */
export function keysUpTo(n: number, except: readonly number[] = []): string[] {
  return Array.from({ length: n }, (_, i) => i + 1).filter((i) => !except.includes(i)).map((i) => `k${i}`);
}

/** Every file under `dir` with its bytes, to show that a refused start changed nothing. */
export async function snapshotDir(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for await (const e of Deno.readDir(dir)) {
    if (e.isFile) out.set(e.name, String(crc32(await Deno.readFile(`${dir}/${e.name}`))));
    else out.set(e.name + "/", "dir");
  }
  return out;
}
