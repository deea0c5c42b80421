/**
 * Reading one journal segment at startup (issue 14 "Journal integrity"):
 * every record is decoded and checksummed, and what is not an intact
 * record in order becomes a {@link Finding}. Nothing is decided or changed
 * here -- `recovery.ts` decides what each finding means (with the
 * database's applied sequence) and repairs the files.
 *
 * After damage the scan does not stop: it looks for the next record whose
 * header checks out (`RecordCodec.findNext`) and goes on from there, so
 * damage followed by intact records is never mistaken for a torn tail, and
 * the damaged stretch is known exactly (bytes, and the sequences it can
 * hold). A damaged header is first repaired if its checksums allow it.
 *
 * The scan is a pure function of the bytes and a {@link ScanContext}
 * shared by the segments in order (the last sequence so far, the records
 * seen, for duplicates), so it is tested without files.
 *
 * @module
 */

import { codecFor } from "./codecs.ts";
import { type FormatVersion, readSegmentHeader, type RecordCodec, SEGMENT_HEADER_BYTES, zeroTail } from "./format.ts";
import { V1_CODEC } from "./record_v1.ts";
import { V2_CODEC } from "./record_v2.ts";
import { RecordIndex, type SeqIndex } from "./seq_index.ts";
import { entrySpan, type JournalEntry } from "../types.ts";

/** A stretch of a segment that is not an intact record in order. */
export type Finding =
  /** A damaged header restored from its checksums: nothing lost. */
  | { readonly kind: "repaired"; readonly offset: number; readonly seq: number; readonly how: string }
  /** A record identical to one read before (a copied segment): nothing lost. */
  | { readonly kind: "duplicate"; readonly offset: number; readonly seq: number; readonly of: string }
  /** An intact record that does not fit: its sequence is taken by a different record, or is out of order. */
  | { readonly kind: "conflict"; readonly offset: number; readonly seq: number; readonly why: string }
  /**
   * Damaged bytes `[start, end)` that may hold the sequences `lo..hi`
   * (`hi` null until a later record bounds it; Infinity when none does).
   * `seq` is the record's own sequence when its header checked out.
   * `tail`: nothing intact follows in the segment; `short`: it is a write
   * cut short (the file ends inside a record whose header is fine or cut).
   */
  | {
    readonly kind: "damaged";
    readonly start: number;
    readonly end: number;
    readonly lo: number;
    hi: number | null;
    readonly seq: number | null;
    readonly why: string;
    readonly tail: boolean;
    readonly short: boolean;
  };

/** The damaged-stretch finding. */
export type Damaged = Extract<Finding, { kind: "damaged" }>;

/** One segment as scanned. */
export interface SegmentScan {
  readonly path: string;
  /** First sequence of the file's name. */
  readonly nameFirst: number;
  /** First sequence of the header (the name's when the header is damaged). */
  readonly firstSeq: number;
  readonly version: FormatVersion;
  /** The segment header was unreadable (rewritten from the name if the segment is kept). */
  readonly headerDamaged: boolean;
  /** The header names another first sequence than the file name. */
  readonly misnamed: boolean;
  /** Last sequence kept before this segment. */
  readonly before: number;
  readonly size: number;
  readonly records: RecordIndex;
  readonly findings: Finding[];
}

/** What the segments scanned in order share. */
export interface ScanContext {
  /** Last sequence of a record kept so far. */
  prevSeq: number;
  /** Every record kept so far, for duplicates. */
  readonly index: SeqIndex;
  /** Damaged stretches waiting for the next kept record to bound their sequences. */
  readonly unbounded: Damaged[];
}

/** A fresh context for the first segment. */
export function newScanContext(index: SeqIndex): ScanContext {
  return { prevSeq: 0, index, unbounded: [] };
}

/** Reads segment `path` (named for `nameFirst`) from its bytes; see the module doc. */
export function scanSegment(path: string, nameFirst: number, bytes: Uint8Array, ctx: ScanContext): SegmentScan {
  const header = readSegmentHeader(bytes);
  let codec: RecordCodec;
  let headerDamaged = false;
  if (header) codec = codecFor(header.version);
  else {
    headerDamaged = true;
    codec = guessCodec(bytes);
  }
  const firstSeq = header?.firstSeq ?? nameFirst;
  const scan: SegmentScan = {
    path,
    nameFirst,
    firstSeq,
    version: codec.version,
    headerDamaged,
    misnamed: header !== null && header.firstSeq !== nameFirst,
    before: ctx.prevSeq,
    size: bytes.length,
    records: new RecordIndex(path),
    findings: [],
  };
  ctx.index.add(scan.records);
  if (headerDamaged && (bytes.length <= SEGMENT_HEADER_BYTES || zeroTail(bytes, SEGMENT_HEADER_BYTES))) return scan;
  const damaged = (start: number, end: number, seq: number | null, why: string, tail: boolean, short: boolean) => {
    const f: Damaged = { kind: "damaged", start, end, lo: ctx.prevSeq + 1, hi: seq, seq, why, tail, short };
    scan.findings.push(f);
    if (seq !== null) ctx.prevSeq = Math.max(ctx.prevSeq, seq);
    else ctx.unbounded.push(f);
  };
  let offset = SEGMENT_HEADER_BYTES;
  while (offset < bytes.length) {
    const r = codec.decode(bytes, offset);
    if (r.kind === "record") {
      keep(scan, ctx, bytes, offset, r.seq, r.bodyStart, r.end, r.bodyCrc, null);
      offset = r.end;
      continue;
    }
    if (r.kind === "bad" && r.end !== null && r.seq !== null) {
      // The header checked out: exactly this record's body is damaged.
      damaged(offset, r.end, r.seq, r.why, r.end >= bytes.length, false);
      offset = r.end;
      continue;
    }
    const next = codec.findNext(bytes, offset + 1);
    const end = next < 0 ? bytes.length : next;
    const repaired = r.kind === "short" && r.seq !== null ? null : codec.repair(bytes, offset, end);
    if (repaired) {
      keep(scan, ctx, bytes, offset, repaired.seq, repaired.bodyStart, end, repaired.bodyCrc, repaired.how);
    } else {
      const why = r.kind === "short" ? (next < 0 ? "cut short" : "length points past the next record") : r.why;
      damaged(offset, end, r.seq, why, next < 0, r.kind === "short" && next < 0);
    }
    offset = end;
  }
  return scan;
}

/** Keeps an intact (or repaired) record, or notes why it does not fit. */
function keep(
  scan: SegmentScan,
  ctx: ScanContext,
  bytes: Uint8Array,
  offset: number,
  seq: number,
  bodyStart: number,
  end: number,
  bodyCrc: number,
  repairedHow: string | null,
): void {
  if (seq <= ctx.prevSeq) {
    const prior = ctx.index.find(seq);
    if (prior && prior.bodyCrc === bodyCrc) {
      scan.findings.push({ kind: "duplicate", offset, seq, of: prior.where });
    } else {
      const why = prior
        ? `a different record with sequence ${seq} is at ${prior.where}`
        : `sequence ${seq} does not follow ${ctx.prevSeq}`;
      scan.findings.push({ kind: "conflict", offset, seq, why });
    }
    return;
  }
  if (seq < Math.min(scan.firstSeq, scan.nameFirst)) {
    const why = `sequence ${seq} is below the segment's first sequence ${scan.nameFirst}`;
    scan.findings.push({ kind: "conflict", offset, seq, why });
    return;
  }
  if (repairedHow !== null) scan.findings.push({ kind: "repaired", offset, seq, how: repairedHow });
  if (ctx.unbounded.length) {
    // The damage before this record holds at most the sequences before its span.
    const first = seq - spanOf(bytes.subarray(bodyStart, end)) + 1;
    for (const f of ctx.unbounded.splice(0)) f.hi = first - 1;
  }
  scan.records.push(seq, bodyCrc, offset, bodyStart, end);
  ctx.prevSeq = seq;
}

/** Sequences a record body takes (one unless it is a telemetry bundle); 1 when unparseable. */
function spanOf(body: Uint8Array): number {
  try {
    return entrySpan(JSON.parse(new TextDecoder().decode(body)) as JournalEntry);
  } catch {
    return 1;
  }
}

/** The format of a segment whose header is damaged: the one whose first record is found first. */
function guessCodec(bytes: Uint8Array): RecordCodec {
  const v2 = V2_CODEC.findNext(bytes, SEGMENT_HEADER_BYTES);
  const v1 = V1_CODEC.findNext(bytes, SEGMENT_HEADER_BYTES);
  return v1 >= 0 && (v2 < 0 || v1 < v2) ? V1_CODEC : V2_CODEC;
}
