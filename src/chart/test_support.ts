/**
 * Test helpers of the chart prober: a small zip writer (stored or deflated
 * entries, archive comment, ZIP64 records, data descriptors, encryption and
 * method flags for error cases) and a rig serving arbitrary bytes through the
 * development API's file route, with its `Range` handling and request log.
 *
 * @module
 */

import { deflateSync } from "fflate";
import { serveBytes } from "../upstream/dev_range.ts";
import { type Rig, rig } from "../upstream/test_support.ts";
import { ChartProbeError } from "./errors.ts";

/** One entry for {@link zipArchive}. */
export interface TestEntry {
  name: string;
  data: Uint8Array | string;
  /** Deflate the entry (default false: stored). */
  deflate?: boolean;
  /** Override the method field (for unsupported-method tests). */
  method?: number;
  /** Extra general-purpose flags (1: encrypted). */
  flags?: number;
}

/** Options of {@link zipArchive}. */
export interface TestZipOptions {
  comment?: string;
  /** Write ZIP64 extra fields, end record and locator (sizes saturated in the 32-bit fields). */
  zip64?: boolean;
  /** Zero sizes and CRC in local headers and append data descriptors (flag bit 3). */
  dataDescriptor?: boolean;
}

function crc32(b: Uint8Array): number {
  let c = 0xffffffff;
  for (const x of b) {
    c ^= x;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0xedb88320 : c >>> 1;
  }
  return (c ^ 0xffffffff) >>> 0;
}

class Out {
  #chunks: Uint8Array[] = [];
  #small: number[] = [];
  length = 0;
  u8(v: number): void {
    this.#small.push(v & 0xff);
    this.length++;
  }
  le(v: number, n: number): void {
    for (let i = 0; i < n; i++) this.u8(Math.floor(v / 2 ** (8 * i)));
  }
  raw(b: Uint8Array): void {
    this.#flush();
    this.#chunks.push(b);
    this.length += b.byteLength;
  }
  bytes(): Uint8Array {
    this.#flush();
    const out = new Uint8Array(this.length);
    let at = 0;
    for (const c of this.#chunks) {
      out.set(c, at);
      at += c.byteLength;
    }
    return out;
  }
  #flush(): void {
    if (this.#small.length === 0) return;
    this.#chunks.push(Uint8Array.from(this.#small));
    this.#small = [];
  }
}

/** Builds a zip archive byte by byte (independent of fflate's writer, so the reader is tested against both). */
export function zipArchive(entries: TestEntry[], o: TestZipOptions = {}): Uint8Array {
  const enc = new TextEncoder();
  const out = new Out();
  const central = new Out();
  const SAT = 0xffffffff;
  for (const e of entries) {
    const raw = typeof e.data === "string" ? enc.encode(e.data) : e.data;
    const data = e.deflate ? deflateSync(raw, { level: 6 }) : raw;
    const name = enc.encode(e.name);
    const method = e.method ?? (e.deflate ? 8 : 0);
    const flags = (e.flags ?? 0) | (o.dataDescriptor ? 8 : 0) | 0x800;
    const crc = crc32(raw);
    const offset = out.length;
    const z64 = new Out();
    if (o.zip64) [raw.byteLength, data.byteLength, offset].forEach((v) => z64.le(v, 8));
    const z64Bytes = z64.bytes();
    const extra = o.zip64 ? Uint8Array.of(1, 0, z64.length, 0, ...z64Bytes) : new Uint8Array(0);
    const sizes = (c: number, u: number) => o.zip64 ? [SAT, SAT] : [c, u];
    out.le(0x04034b50, 4);
    out.le(o.zip64 ? 45 : 20, 2);
    out.le(flags, 2);
    out.le(method, 2);
    out.le(0, 4); // time and date
    const [lc, lu] = o.dataDescriptor ? [0, 0] : sizes(data.byteLength, raw.byteLength);
    out.le(o.dataDescriptor ? 0 : crc, 4);
    out.le(lc!, 4);
    out.le(lu!, 4);
    out.le(name.byteLength, 2);
    out.le(o.zip64 && !o.dataDescriptor ? 20 : 0, 2);
    out.raw(name);
    if (o.zip64 && !o.dataDescriptor) out.raw(Uint8Array.of(1, 0, 16, 0, ...z64Bytes.subarray(0, 16)));
    out.raw(data);
    if (o.dataDescriptor) {
      out.le(0x08074b50, 4);
      out.le(crc, 4);
      out.le(data.byteLength, o.zip64 ? 8 : 4);
      out.le(raw.byteLength, o.zip64 ? 8 : 4);
    }
    const [cc, cu] = sizes(data.byteLength, raw.byteLength);
    central.le(0x02014b50, 4);
    central.le(o.zip64 ? 45 : 20, 2);
    central.le(o.zip64 ? 45 : 20, 2);
    central.le(flags, 2);
    central.le(method, 2);
    central.le(0, 4);
    central.le(crc, 4);
    central.le(cc!, 4);
    central.le(cu!, 4);
    central.le(name.byteLength, 2);
    central.le(extra.byteLength, 2);
    central.le(0, 2); // comment
    central.le(0, 2); // disk
    central.le(0, 2); // internal attributes
    central.le(0, 4); // external attributes
    central.le(o.zip64 ? SAT : offset, 4);
    central.raw(name);
    central.raw(extra);
  }
  const cdOffset = out.length;
  const centralLength = central.length;
  out.raw(central.bytes());
  if (o.zip64) {
    const at = out.length;
    out.le(0x06064b50, 4);
    out.le(44, 8);
    out.le(45, 2);
    out.le(45, 2);
    out.le(0, 4);
    out.le(0, 4);
    out.le(entries.length, 8);
    out.le(entries.length, 8);
    out.le(centralLength, 8);
    out.le(cdOffset, 8);
    out.le(0x07064b50, 4);
    out.le(0, 4);
    out.le(at, 8);
    out.le(1, 4);
  }
  const comment = enc.encode(o.comment ?? "");
  out.le(0x06054b50, 4);
  out.le(0, 4);
  out.le(o.zip64 ? 0xffff : entries.length, 2);
  out.le(o.zip64 ? 0xffff : entries.length, 2);
  out.le(o.zip64 ? SAT : centralLength, 4);
  out.le(o.zip64 ? SAT : cdOffset, 4);
  out.le(comment.byteLength, 2);
  out.raw(comment);
  return out.bytes();
}

/** Deterministic incompressible filler (an "illustration"). */
export function noise(n: number, seed = 1): Uint8Array {
  const b = new Uint8Array(n);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    b[i] = x & 0xff;
  }
  return b;
}

/** URL of the archive served by {@link fileRig}. */
export const FILE_URL = "http://dev.invalid/files/chart-1.zip";

/** A rig whose file route serves `bytes` (honouring `Range` unless `ignoreRange`). */
export function fileRig(bytes: Uint8Array, o: { ignoreRange?: boolean; contentType?: string } = {}): Rig {
  const r = rig();
  r.api.state.setFault("files", {
    hook: (req) =>
      serveBytes(req, bytes, { contentType: o.contentType ?? "application/zip", ignoreRange: o.ignoreRange ?? false }),
  });
  return r;
}

/** What `f` throws (fails the test when it returns). */
export function thrown(f: () => unknown): unknown {
  try {
    f();
  } catch (e) {
    return e;
  }
  throw new Error("expected an exception");
}

/** The `kind` of the {@link ChartProbeError} `f` throws (anything else is rethrown). */
export function errorKind(f: () => unknown): string {
  const e = thrown(f);
  if (e instanceof ChartProbeError) return e.kind;
  throw e;
}

/** An ID3v2.4 tag with `size` body bytes (zero padding). */
export function id3Tag(size: number): Uint8Array {
  const t = new Uint8Array(10 + size);
  t.set([0x49, 0x44, 0x33, 4, 0, 0, (size >> 21) & 0x7f, (size >> 14) & 0x7f, (size >> 7) & 0x7f, size & 0x7f]);
  return t;
}

/** The parts one after another. */
export function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}
