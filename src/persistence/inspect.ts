/**
 * `wal inspect` (spec 3 §4.2 journal tools): the segment files, the
 * sequences (last written, flushed, applied) and the first records still
 * waiting to be applied, read back from disk.
 *
 * @module
 */

import type { ApplyWorker } from "./apply/mod.ts";
import { type Journal, JournalReader } from "./journal/mod.ts";

/** One segment in the inspection. */
export interface SegmentView {
  readonly file: string;
  readonly first_seq: number;
  readonly last_seq: number;
  readonly records: number;
  readonly bytes: number;
  /** Record format of the file (2; 1 for segments written before it, read until compacted). */
  readonly format: number;
}

/** A waiting record: sequence, type and size. */
export interface PendingView {
  readonly seq: number;
  readonly type: string;
  readonly bytes: number;
}

/** The inspection. */
export interface WalInspection {
  readonly dir: string;
  readonly segments: readonly SegmentView[];
  readonly last_seq: number;
  readonly synced_seq: number;
  readonly applied_seq: number;
  readonly pending: number;
  readonly mode: "memory" | "journal";
  readonly queue_depth: number;
  readonly journal_only: number;
  readonly first_pending: readonly PendingView[];
}

const decoder = new TextDecoder();

/** The type of a journaled body, or `unparseable`. */
export function decodeJournalBody(body: Uint8Array): { type: string; entry: unknown } {
  try {
    const entry = JSON.parse(decoder.decode(body));
    return { type: typeof entry?.t === "string" ? entry.t : "unknown", entry };
  } catch {
    return { type: "unparseable", entry: null };
  }
}

/** Inspects `journal` as applied by `worker`. */
export async function inspectJournal(journal: Journal, worker: ApplyWorker, limit: number): Promise<WalInspection> {
  const applied = worker.processedSeq;
  const records = limit > 0 ? await new JournalReader(journal).read(applied + 1, limit) : [];
  return {
    dir: journal.dir,
    segments: journal.segments().map((s) => ({
      file: s.path.slice(s.path.lastIndexOf("/") + 1),
      first_seq: s.firstSeq,
      last_seq: s.lastSeq,
      records: s.records,
      bytes: s.bytes,
      format: s.version,
    })),
    last_seq: journal.lastSeq,
    synced_seq: journal.syncedSeq,
    applied_seq: applied,
    pending: Math.max(0, journal.lastSeq - applied),
    mode: worker.mode,
    queue_depth: worker.queueDepth,
    journal_only: worker.counters.journal_only,
    first_pending: records.map((r) => ({ seq: r.seq, type: decodeJournalBody(r.body).type, bytes: r.body.length })),
  };
}
