/**
 * Journal recovery at startup (issue 5 "a torn last record is truncated
 * with a log line"; issue 14 "Journal integrity"). Every segment is read
 * and checked (`scan.ts`), then each finding is judged:
 *
 * - A damaged header the checksums restore, or a record that duplicates
 *   one read before (a copied segment), costs nothing: the segment is
 *   rewritten without the damage and the original kept under
 *   `journal/damaged/`. A segment holding only duplicates is moved there.
 * - Damage at the end of the last segment -- a write cut short, or a damaged
 *   last record -- is what an interrupted write leaves: it is truncated with
 *   a log line. So is a write cut short at the end of an older segment (a
 *   failed append the journal could not cut back). Damage anywhere else is
 *   not a torn write.
 * - Damage that holds only sequences at or below the database's applied
 *   sequence is not needed (the store has those records): it is dropped
 *   with a log line.
 * - Any other damage holds records that exist nowhere else. Startup fails
 *   closed, changing nothing, with a message naming each damaged stretch
 *   (segment, bytes, sequences) and what the operator can do -- unless
 *   `journal_damaged_records: skip` says to start without them: then they
 *   are dropped with an ERROR line each (the bytes kept under
 *   `journal/damaged/`) and counted.
 *
 * @module
 */

import type { Logger } from "../../util/log.ts";
import { type FormatVersion, segmentName } from "./format.ts";
import { describe, LineBudget, refuse, seqText } from "./recovery_report.ts";
import { preserve, rewriteSegment, setAside, truncateSegment } from "./repair.ts";
import type { Finding, SegmentScan } from "./scan.ts";
import { scanAll } from "./scan_dir.ts";

/** One segment file of the journal. */
export interface SegmentInfo {
  readonly path: string;
  readonly firstSeq: number;
  /** Last sequence in the file; `firstSeq - 1` while empty. */
  lastSeq: number;
  /** File size in bytes. */
  bytes: number;
  records: number;
  /** Record format of the file (`format.ts`). */
  readonly version: FormatVersion;
}

/** What to do with damaged records the database does not hold (`journal_damaged_records`). */
export type DamagedRecordsPolicy = "refuse" | "skip";

/** Options of {@link recoverJournal}. */
export interface RecoverOptions {
  readonly dir: string;
  readonly log: Logger;
  /** The database's applied sequence, when it counts this journal's sequences (0 otherwise). */
  readonly appliedSeq: number;
  readonly damaged: DamagedRecordsPolicy;
  /** Milliseconds now: names the copies kept under `damaged/`. */
  readonly now: number;
}

/** What recovery did (part of the journal's counters). */
export interface RecoveryCounters {
  torn_tails_truncated: number;
  records_repaired: number;
  duplicates_dropped: number;
  /** Damaged records at or below the applied sequence, dropped. */
  damaged_already_applied: number;
  /** Damaged records the database did not hold, dropped because of `journal_damaged_records: skip`. */
  damaged_skipped: number;
  segments_rewritten: number;
  segments_set_aside: number;
}

/** Scans, judges and repairs the segments under `dir` (which must exist); see the module doc. */
export async function recoverJournal(
  o: RecoverOptions,
): Promise<{ segments: SegmentInfo[]; counters: RecoveryCounters }> {
  const scans = await scanAll(o.dir);
  const counters: RecoveryCounters = {
    torn_tails_truncated: 0,
    records_repaired: 0,
    duplicates_dropped: 0,
    damaged_already_applied: 0,
    damaged_skipped: 0,
    segments_rewritten: 0,
    segments_set_aside: 0,
  };
  // A copy of another segment (its name disagrees with its header, and every record in it is read already).
  const aside = scans.filter((s) =>
    s.misnamed && s.records.length === 0 && s.findings.every((f) => f.kind === "duplicate")
  );
  const kept = scans.filter((s) => !aside.includes(s));
  const refusals: string[] = [];
  const plans = kept.map((scan, i) => judge(scan, i === kept.length - 1, o, refusals));
  for (const plan of plans) {
    const s = plan.scan;
    if (!s.misnamed) continue;
    // The name and the header disagree: the name stands when it fits between the records before and the first one here.
    if (s.records.length === 0 || (s.before < s.nameFirst && s.nameFirst <= s.records.seq(0))) plan.rewrite = true;
    else {
      refusals.push(
        `"${s.path}" says its first sequence is ${s.firstSeq}, its name says ${s.nameFirst}; rename it to ` +
          `${segmentName(s.firstSeq)} if it is the only copy of its records, or move it out of the journal directory`,
      );
    }
  }
  if (refusals.length) throw refuse(o.dir, o.appliedSeq, refusals);

  const lines = new LineBudget(o.log);
  for (const scan of aside) {
    const to = await setAside(o.dir, scan.path, o.now);
    counters.segments_set_aside++;
    counters.duplicates_dropped += scan.findings.filter((f) => f.kind === "duplicate").length;
    o.log.warn("journal: moved a duplicate segment aside; every record in it is in another segment", {
      segment: scan.path,
      moved_to: to,
    });
  }
  const segments: SegmentInfo[] = [];
  for (const plan of plans) {
    const { scan } = plan;
    report(plan, o, counters, lines);
    let bytes = scan.size;
    let version = scan.version;
    if (plan.rewrite) {
      const original = await preserve(o.dir, scan.path, o.now);
      bytes = await rewriteSegment(scan);
      version = 2;
      counters.segments_rewritten++;
      o.log.warn("journal: rewrote a damaged segment without its damage; the original is kept", {
        segment: scan.path,
        original,
        records: scan.records.length,
      });
    } else if (plan.cutAt !== null) {
      await truncateSegment(scan.path, plan.cutAt);
      bytes = plan.cutAt;
    }
    const n = scan.records.length;
    const firstSeq = scan.nameFirst;
    segments.push({
      path: scan.path,
      firstSeq,
      lastSeq: n ? scan.records.seq(n - 1) : firstSeq - 1,
      bytes,
      records: n,
      version,
    });
  }
  lines.flush();
  return { segments, counters };
}

/** What recovery does to one kept segment. */
interface Plan {
  readonly scan: SegmentScan;
  /** Rewritten without its findings (kept records only, format 2). */
  rewrite: boolean;
  /** Truncated here (a torn tail), when not rewritten. */
  cutAt: number | null;
  /** What becomes of each finding. */
  readonly outcomes: {
    readonly f: Finding;
    readonly as: "torn" | "empty" | "applied" | "skipped" | "repaired" | "duplicate";
  }[];
}

/** Judges the findings of one segment; adds what must refuse the start to `refusals`. */
function judge(scan: SegmentScan, last: boolean, o: RecoverOptions, refusals: string[]): Plan {
  const plan: Plan = { scan, rewrite: scan.headerDamaged, cutAt: null, outcomes: [] };
  for (const f of scan.findings) {
    if (f.kind === "repaired" || f.kind === "duplicate") {
      plan.rewrite = true;
      plan.outcomes.push({ f, as: f.kind });
      continue;
    }
    if (f.kind === "damaged" && f.tail && (last || f.short)) {
      plan.cutAt = f.start;
      plan.outcomes.push({ f, as: "torn" });
      continue;
    }
    const hi = f.kind === "damaged" ? f.hi ?? Infinity : f.seq;
    const lo = f.kind === "damaged" ? f.lo : f.seq;
    if (lo > hi) plan.outcomes.push({ f, as: "empty" });
    else if (hi <= o.appliedSeq) plan.outcomes.push({ f, as: "applied" });
    else if (o.damaged === "skip") plan.outcomes.push({ f, as: "skipped" });
    else refusals.push(describe(scan.path, f));
    plan.rewrite = true;
  }
  return plan;
}

/** Logs and counts what one plan drops. */
function report(plan: Plan, o: RecoverOptions, counters: RecoveryCounters, lines: LineBudget): void {
  const segment = plan.scan.path;
  if (plan.scan.headerDamaged || plan.scan.misnamed) {
    o.log.warn("journal: a segment header was damaged; it is rewritten from the file name", {
      segment,
      header_first_seq: plan.scan.misnamed ? plan.scan.firstSeq : undefined,
    });
  }
  const duplicates = plan.outcomes.filter((d) => d.as === "duplicate").length;
  if (duplicates) {
    counters.duplicates_dropped += duplicates;
    o.log.warn("journal: dropped records that duplicate records of another segment", { segment, records: duplicates });
  }
  for (const { f, as } of plan.outcomes) {
    const where = f.kind === "damaged"
      ? { offset: f.start, bytes: f.end - f.start, sequences: seqText(f), damage: f.why }
      : { offset: f.offset, seq: f.seq };
    if (as === "repaired" && f.kind === "repaired") {
      counters.records_repaired++;
      lines.log("warn", "journal: repaired a damaged record header; nothing lost", {
        segment,
        ...where,
        damage: f.how,
      });
    } else if (as === "torn") {
      counters.torn_tails_truncated++;
      lines.log("warn", "journal: truncated a torn record at the end of a segment", { segment, ...where });
    } else if (as === "empty") {
      lines.log("warn", "journal: dropped damaged bytes that hold no record", { segment, ...where });
    } else if (as === "applied") {
      counters.damaged_already_applied++;
      lines.log("warn", "journal: dropped damaged bytes whose records the database already holds", {
        segment,
        ...where,
        applied_seq: o.appliedSeq,
      });
    } else if (as === "skipped") {
      counters.damaged_skipped++;
      lines.log("error", "journal: skipped a damaged record (journal_damaged_records: skip); its records are lost", {
        segment,
        ...where,
      });
    }
  }
}
