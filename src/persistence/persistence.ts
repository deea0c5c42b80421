/**
 * The persistence layer's public face (issue 5): {@link openPersistence}
 * returns a {@link Persistence} — the durable ban list and login journal for
 * the server context, room snapshots, queries, settings, benchmark reports,
 * and the functions behind `wal inspect`, `dead-letter list|replay` and
 * `runtime persistence`.
 *
 * @module
 */

import { decodeJournalBody, inspectJournal, type WalInspection } from "./inspect.ts";
import { PersistenceCore, type PersistenceOptions } from "./startup.ts";
import type { PlaytimeRow, SnapshotRow } from "./queries/rows.ts";
import type { RetentionResult } from "./retention/retention.ts";
import type { DeadLetter, ReplayOutcome } from "./apply/store.ts";
import { PersistenceError } from "./types.ts";

/** Outcome of {@link Persistence.replayDeadLetters}. */
export interface DeadLetterReplay {
  readonly replayed: number;
  readonly failed: readonly ReplayOutcome[];
}

/** A benchmark report to store. */
export interface BenchmarkReportInput {
  readonly id?: string;
  readonly title: string;
  readonly report: unknown;
}

/** Open persistence (see the module doc and {@link PersistenceCore}). */
export class Persistence extends PersistenceCore {
  /** Saves a room snapshot after a 500 ms debounce (spec 3 §2.1). */
  saveRoomSnapshot(roomId: string, payload: unknown): void {
    this.snapshots.save(roomId, payload);
  }

  /** Deletes a room's snapshot (the room is no longer persistent, or was closed). */
  deleteRoomSnapshot(roomId: string): void {
    this.snapshots.delete(roomId);
  }

  /** Every saved room snapshot (restore at startup). */
  async loadRoomSnapshots(): Promise<SnapshotRow[]> {
    const out: SnapshotRow[] = [];
    for (let since = 0;;) {
      const page = await this.queries.roomSnapshots(since, 1000);
      out.push(...page);
      if (page.length < 1000) return out;
      since = page.at(-1)!.seq;
    }
  }

  /** Accumulated playtime of `user` in milliseconds, including what is not flushed yet. */
  async playtime(user: number): Promise<number> {
    return await this.queries.playtime(user) + this.recorder.playtime.pendingFor(user, this.o.clock.now());
  }

  /** The `n` users with the most playtime, including unflushed time. */
  async topPlaytime(n: number): Promise<PlaytimeRow[]> {
    const now = this.o.clock.now();
    const rows = await this.queries.topPlaytime(n + this.recorder.playtime.inRooms);
    const live = rows.map((r) => ({ ...r, total_ms: r.total_ms + this.recorder.playtime.pendingFor(r.user_id, now) }));
    return live.sort((a, b) => b.total_ms - a.total_ms || a.user_id - b.user_id).slice(0, Math.max(0, n));
  }

  /** Stores a benchmark report; returns its id. */
  saveBenchmarkReport(input: BenchmarkReportInput): string {
    const id = input.id ?? crypto.randomUUID();
    this.write({ t: "benchmark", id, title: input.title, report: input.report, at: this.o.clock.now() });
    return id;
  }

  /** `wal inspect`: segments, sequences, and the first unapplied records. */
  walInspect(limit = 20): Promise<WalInspection> {
    return inspectJournal(this.journal, this.worker, limit);
  }

  /** `dead-letter list`: records that kept failing, with their errors. */
  deadLetters(limit = 100): Promise<DeadLetter[]> {
    return this.store.deadLetters(limit);
  }

  /** `dead-letter replay`: applies every dead letter again; the ones that succeed leave the list. */
  async replayDeadLetters(): Promise<DeadLetterReplay> {
    const failed: ReplayOutcome[] = [];
    let replayed = 0;
    for (const letter of await this.store.deadLetters(1000)) {
      const outcome = await this.store.replayDeadLetter(letter, this.o.clock.now());
      if (outcome.ok) {
        replayed++;
        this.deadLetterCount--;
      } else failed.push(outcome);
    }
    this.o.log.info("dead letters replayed", { replayed, failed: failed.length });
    return { replayed, failed };
  }

  /** Runs retention now (it also runs hourly). */
  runRetention(): Promise<RetentionResult[]> {
    if (!this.jobs) throw new PersistenceError("closed", "Cannot run retention: persistence is not open");
    return this.jobs.runRetention();
  }

  /** Journals playtime accumulated so far (it also happens every 60 s). */
  flushPlaytime(): void {
    this.jobs?.flushPlaytime();
  }

  /** Journals auth-cache changes (it also happens every 60 s). */
  saveAuthCache(): void {
    this.jobs?.saveAuthCache();
  }

  /** Deletes journal segments the store durably holds (it also happens every 60 s). */
  compactJournal(): Promise<number> {
    if (!this.jobs) throw new PersistenceError("closed", "Cannot compact: persistence is not open");
    return this.jobs.compact();
  }
}

/** Creates and opens persistence: checks and locks `data_dir`, opens and migrates the store, replays the journal. */
export async function openPersistence(o: PersistenceOptions): Promise<Persistence> {
  const p = new Persistence(o);
  await p.open();
  return p;
}

export { decodeJournalBody };
