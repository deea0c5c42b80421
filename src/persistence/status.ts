/**
 * The `runtime persistence` report (spec 3 §4.2, §4.5 `runtime.persistence`):
 * queue depth, journal-only count, applied sequence, journal size and
 * segments, dead letters, last error and counters -- plus the production
 * counters of spec 3 §7 rule 4, which must stay 0.
 *
 * @module
 */

import type { AuthCache } from "../server/auth_cache.ts";
import { type Counters, INVARIANT_COUNTERS } from "../server/counters.ts";
import type { ApplyCounters, ApplyWorker } from "./apply/mod.ts";
import type { Backend } from "./backends/mod.ts";
import type { Journal, JournalCounters } from "./journal/mod.ts";
import type { TelemetrySegments } from "./telemetry/segment_store.ts";
import type { WriterCounters } from "./writer.ts";

/** What persistence reads from and restores into the server core. */
export interface CoreLink {
  readonly authCache: AuthCache;
  readonly seenPlayers: Set<number>;
  /** The production counters (spec 3 §7 rule 4), reported alongside. */
  readonly counters?: Counters;
}

/** The report. */
export interface PersistenceStatus {
  readonly backend: Backend | null;
  readonly data_dir: string;
  readonly store_up: boolean;
  /** `memory`: the queue keeps up; `journal`: records are read back from the segment files. */
  readonly mode: "memory" | "journal" | null;
  readonly queue_depth: number;
  readonly queue_capacity: number;
  /** Records that went journal-only because the queue stayed full (spec 3 §8). */
  readonly journal_only: number;
  readonly applied_seq: number;
  readonly last_seq: number;
  readonly synced_seq: number;
  /** Sequences not applied yet (a telemetry bundle takes one per batch). */
  readonly pending: number;
  readonly journal_bytes: number;
  readonly journal_segments: number;
  readonly dead_letters: number;
  readonly last_error: string | null;
  readonly counters: ApplyCounters & JournalCounters & WriterCounters;
  /** Touches and judges as wire bytes (telemetry/segment_store.ts): files open, bytes held, segments indexed. */
  readonly telemetry: TelemetryStatus | null;
  /** spec 3 §7 rule 4: every value must be 0. */
  readonly production_counters: Record<string, number> | null;
}

/** Telemetry store figures in the report. */
export interface TelemetryStatus {
  /** Player-round files being written, and bytes buffered or being written. */
  readonly open_files: number;
  readonly pending_bytes: number;
  /** Messages and bytes stored (entries with their length prefixes), segments indexed, records journaled. */
  readonly messages: number;
  readonly bytes: number;
  readonly segments: number;
  readonly records: number;
  /** Messages dropped: too much waiting for the disk, or the file failed (full disk, unwritable folder). */
  readonly dropped: number;
  readonly failed_files: number;
  /** Per player and round (`round_telemetry_max_mb`), in wire bytes. */
  readonly round_max_bytes: number;
  /** Touch frames and judge events over a player's budget, dropped, and their bytes. */
  readonly dropped_items: number;
  readonly dropped_bytes: number;
  /** Player-rounds that reached the budget. */
  readonly capped_rounds: number;
}

/** What the report is made of (any part may be missing before open). */
export interface StatusInput {
  readonly dataDir: string;
  readonly queueCapacity: number;
  readonly backend: Backend | null;
  readonly journal: Journal | null;
  readonly worker: ApplyWorker | null;
  readonly writer: { readonly counters: WriterCounters; readonly lastError: string | null };
  /** Dead letters found at startup, less those replayed since (the worker counts new ones). */
  readonly deadLetters: number;
  readonly core: CoreLink | null;
  readonly telemetry: TelemetrySegments | null;
}

const ZERO_APPLY: ApplyCounters = {
  applied: 0,
  batches: 0,
  journal_only: 0,
  held: 0,
  unjournaled: 0,
  retries: 0,
  store_outages: 0,
  dead_lettered: 0,
};
const ZERO_JOURNAL: JournalCounters = {
  appended: 0,
  bytes_written: 0,
  fsyncs: 0,
  write_failures: 0,
  sync_failures: 0,
  torn_tails_truncated: 0,
  records_repaired: 0,
  duplicates_dropped: 0,
  damaged_already_applied: 0,
  damaged_skipped: 0,
  segments_rewritten: 0,
  segments_set_aside: 0,
};

/** Builds the report from the parts. */
export function buildStatus(p: StatusInput): PersistenceStatus {
  const { journal, worker, telemetry: t } = p;
  const applied = worker?.processedSeq ?? 0;
  const last = journal?.lastSeq ?? 0;
  const core = p.core?.counters;
  return {
    backend: p.backend,
    data_dir: p.dataDir,
    store_up: worker?.storeUp ?? false,
    mode: worker?.mode ?? null,
    queue_depth: worker?.queueDepth ?? 0,
    queue_capacity: p.queueCapacity,
    journal_only: worker?.counters.journal_only ?? 0,
    applied_seq: applied,
    last_seq: last,
    synced_seq: journal?.syncedSeq ?? 0,
    pending: Math.max(0, last - applied),
    journal_bytes: journal?.bytes ?? 0,
    journal_segments: journal?.segments().length ?? 0,
    dead_letters: p.deadLetters + (worker?.counters.dead_lettered ?? 0),
    last_error: worker?.lastError ?? p.writer.lastError,
    counters: { ...(worker?.counters ?? ZERO_APPLY), ...(journal?.counters ?? ZERO_JOURNAL), ...p.writer.counters },
    production_counters: core ? Object.fromEntries(INVARIANT_COUNTERS.map((n) => [n, core.values[n]])) : null,
    telemetry: t
      ? {
        open_files: t.open,
        pending_bytes: t.pendingBytes,
        ...t.counters,
        round_max_bytes: t.cap.maxBytes,
        ...t.cap.counters,
      }
      : null,
  };
}
