/**
 * The worker that applies journal records to the store (issue 5
 * "Write-ahead journal"), strictly in sequence order so that one watermark
 * makes every batch apply exactly once.
 *
 * Records arrive through a bounded in-memory intake (`intake.ts`);
 * when it goes journal-only (spec 3 §8 "when full for 100 ms the item stays
 * journal-only") the worker reads later records back from the segment files
 * once the queue has drained, and returns the intake to memory mode when it
 * has caught up. Batches are bounded by bytes as well as records.
 *
 * A store that is down (connection refused, shutting down, ..., or taken
 * over by another journal) makes the worker wait and retry the same batch with backoff: the game goes on and
 * the records wait in the journal. A record that fails by itself is retried
 * alone, then put on the dead-letter list with its error.
 *
 * Over 300 lines: the loop, its batch application, the retries and the dead
 * letters move one watermark together (the intake and the read-back are
 * apart already, `intake.ts`, `backlog.ts`).
 *
 * @module
 */

import type { Clock, TimerHandle } from "../../util/clock.ts";
import type { Logger } from "../../util/log.ts";
import type { Journal } from "../journal/mod.ts";
import { ApplyIntake, type IntakeCounters } from "./intake.ts";
import { Backlog, type Item } from "./backlog.ts";
import { isTransientDbError } from "../backends/mod.ts";
import { errorText, type JournalEntry, PersistenceError, type SeqEntry } from "../types.ts";

/** Default of {@link ApplyWorkerOptions.maxBatchBytes}. */
const MAX_BATCH_BYTES = 8 * 1024 * 1024;

/** How large one batch may be. */
export interface BatchLimits {
  /** Records from the queue. */
  readonly records: number;
  /** Bytes of record JSON (the batch ends with the record that reaches it). */
  readonly bytes: number;
}

/** Where the worker applies records (the {@link Store}). */
export interface ApplyTarget {
  applyBatch(batch: readonly SeqEntry[], through: number, now: number): Promise<void>;
  deadLetter(seq: number, body: string, error: string, attempts: number, now: number): Promise<void>;
}

/** Options of {@link ApplyWorker}. */
export interface ApplyWorkerOptions {
  readonly target: ApplyTarget;
  readonly journal: Journal;
  readonly clock: Clock;
  readonly log: Logger;
  /** Queue capacity (`persistence_queue_capacity`). */
  readonly capacity: number;
  /** Last sequence the store has applied. */
  readonly appliedSeq: number;
  /** Records per transaction from the queue (default 256). */
  readonly batchSize?: number;
  /** Records per transaction when reading back from the journal (default 2000). */
  readonly replayBatchSize?: number;
  /** Bytes of record JSON per transaction: a batch ends with the record that reaches it (default 8 MiB). */
  readonly maxBatchBytes?: number;
  /**
   * Asked before each batch, overrides `batchSize` and `maxBatchBytes` (the
   * embedded store: small batches while it applies on the event loop's
   * thread, large ones once it applies on a thread of its own).
   */
  readonly limits?: () => BatchLimits;
  /** Bytes of record JSON the queue holds at most (default 64 MiB; small records count 256). */
  readonly maxQueueBytes?: number;
  /** How long a record waits for room in a full queue (default 100 ms). */
  readonly holdMs?: number;
  /** Failures of a single record before it is dead-lettered (default 3). */
  readonly maxAttempts?: number;
  readonly retryMinMs?: number;
  readonly retryMaxMs?: number;
  readonly isTransient?: (error: unknown) => boolean;
}

/** Counters of the worker (exposed by `status()`). */
export interface ApplyCounters extends IntakeCounters {
  applied: number;
  batches: number;
  retries: number;
  store_outages: number;
  dead_lettered: number;
}

/** Applies journal records in order; see the module doc. */
export class ApplyWorker {
  readonly counters: ApplyCounters = {
    applied: 0,
    batches: 0,
    journal_only: 0,
    held: 0,
    unjournaled: 0,
    retries: 0,
    store_outages: 0,
    dead_lettered: 0,
  };
  readonly #o: ApplyWorkerOptions;
  readonly #backlog: Backlog;
  readonly #limits: () => BatchLimits;
  readonly #intake: ApplyIntake;
  #nextSeq: number;
  #processed: number;
  #storeUp = true;
  #lastError: string | null = null;
  #signal: (() => void) | null = null;
  #sleepTimer: TimerHandle | undefined;
  #cancelSleep: (() => void) | null = null;
  #waiters: { target: number; resolve: () => void }[] = [];
  #stopped = false;
  #loop: Promise<void> | null = null;

  constructor(o: ApplyWorkerOptions) {
    this.#o = o;
    const fixed = { records: o.batchSize ?? 256, bytes: o.maxBatchBytes ?? MAX_BATCH_BYTES };
    this.#limits = o.limits ?? (() => fixed);
    this.#backlog = new Backlog(o.journal, o.replayBatchSize ?? 2000, () => this.#limits().bytes);
    this.#intake = new ApplyIntake({
      clock: o.clock,
      log: o.log,
      capacity: o.capacity,
      maxQueueBytes: o.maxQueueBytes,
      holdMs: o.holdMs,
      counters: this.counters,
    });
    this.#nextSeq = o.appliedSeq + 1;
    this.#processed = o.appliedSeq;
  }

  /** Records held in memory waiting to be applied. */
  get queueDepth(): number {
    return this.#intake.depth;
  }

  /** `memory` while the queue keeps up; `journal` while records are read back from the files. */
  get mode(): "memory" | "journal" {
    return this.#intake.mode;
  }

  /** Every sequence up to this one is applied, dead-lettered or known not to exist. */
  get processedSeq(): number {
    return this.#processed;
  }

  /** False while the store is unreachable. */
  get storeUp(): boolean {
    return this.#storeUp;
  }

  /** The last apply error, if any. */
  get lastError(): string | null {
    return this.#lastError;
  }

  /** Starts the loop (reading back unapplied records first). */
  start(): void {
    this.#loop ??= this.#run();
  }

  /**
   * Hands over a record just appended to the journal (`journaled`), or one
   * whose append failed (kept in memory whatever the queue holds, so a full
   * disk loses nothing while the process lives). `body` is its JSON when at
   * hand (telemetry bundles: the database unpacks their rows from it).
   */
  admit(seq: number, entry: JournalEntry, journaled = true, body?: string): void {
    this.#intake.admit({ seq, entry, raw: body ?? null, journaled });
    this.#wake();
  }

  /** Resolves once everything appended so far is applied (or dead-lettered). */
  idle(): Promise<void> {
    const target = this.#o.journal.lastSeq;
    if (this.#processed >= target) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ target, resolve }));
  }

  /** Stops after the batch in flight; what is left stays in the journal for the next start. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#intake.close();
    this.#o.clock.clearTimeout(this.#sleepTimer);
    this.#cancelSleep?.();
    this.#wake();
    await this.#loop;
    await this.#backlog.close();
    for (const w of this.#waiters.splice(0)) w.resolve();
  }

  #wake(): void {
    const signal = this.#signal;
    this.#signal = null;
    signal?.();
  }

  async #run(): Promise<void> {
    while (!this.#stopped) {
      let batch: Item[] | null;
      try {
        batch = await this.#take();
      } catch (error) {
        this.#lastError = errorText(error);
        this.#o.log.error("cannot read the journal back; applying stopped", { error: this.#lastError });
        return;
      }
      if (batch === null) {
        if (this.#stopped) break;
        await new Promise<void>((resolve) => (this.#signal = resolve));
        continue;
      }
      if (batch.length) {
        await this.#apply(batch);
        // Let timers and sockets run between batches: an embedded store (SQLite) applies synchronously, so
        // without this a backlog would be applied batch after batch within one turn of the event loop.
        await new Promise<void>((resolve) => setTimeout(resolve, 0));
      }
    }
  }

  /** The next batch; null when there is nothing to do; empty to loop again. */
  async #take(): Promise<Item[] | null> {
    const limits = this.#limits();
    const queued = this.#intake.take(limits.records, limits.bytes);
    if (queued) return queued;
    if (this.#intake.mode === "memory") return null;
    const { before, items } = await this.#backlog.read(this.#nextSeq);
    items.push(...this.#intake.takeUnjournaled(this.#nextSeq, items.at(-1)?.seq ?? Infinity));
    items.sort((a, b) => a.seq - b.seq);
    if (items.length) return items;
    if (this.#o.journal.lastSeq !== before) return []; // Appends during the read: read again.
    // Caught up with the files: sequences up to `before` that are not on disk were never written.
    if (!this.#intake.toMemoryMode()) this.#progress(before);
    return [];
  }

  async #apply(batch: Item[]): Promise<void> {
    const through = batch.at(-1)!.seq;
    let delay = this.#o.retryMinMs ?? 100;
    const parsed = batch.every((i) => i.entry !== null);
    while (!this.#stopped && parsed) {
      try {
        await this.#o.target.applyBatch(batch.map(toSeqEntry), through, this.#o.clock.now());
        this.counters.batches++;
        this.counters.applied += batch.length;
        this.#up();
        this.#progress(through);
        return;
      } catch (error) {
        if (!this.#isTransient(error)) {
          this.#lastError = errorText(error);
          break;
        }
        this.#down(error);
        await this.#sleep(delay);
        delay = Math.min(delay * 2, this.#o.retryMaxMs ?? 5000);
      }
    }
    for (const item of batch) {
      if (this.#stopped) return;
      await this.#applyOne(item);
    }
  }

  async #applyOne(item: Item): Promise<void> {
    let attempts = 0;
    let delay = this.#o.retryMinMs ?? 100;
    let error: unknown = item.entry === null ? new SyntaxError("Cannot parse the journal record") : null;
    while (!this.#stopped) {
      if (item.entry !== null && (attempts < (this.#o.maxAttempts ?? 3))) {
        try {
          await this.#o.target.applyBatch([toSeqEntry(item)], item.seq, this.#o.clock.now());
          this.counters.batches++;
          this.counters.applied++;
          this.#up();
          this.#progress(item.seq);
          return;
        } catch (e) {
          error = e;
          if (this.#isTransient(e)) {
            this.#down(e);
            await this.#sleep(delay);
            delay = Math.min(delay * 2, this.#o.retryMaxMs ?? 5000);
            continue;
          }
          attempts++;
          this.counters.retries++;
          this.#lastError = errorText(e);
          continue;
        }
      }
      const text = errorText(error);
      try {
        const body = item.raw ?? JSON.stringify(item.entry);
        await this.#o.target.deadLetter(item.seq, body, text, Math.max(attempts, 1), this.#o.clock.now());
        this.counters.dead_lettered++;
        this.#o.log.error("journal record moved to the dead-letter list", { seq: item.seq, error: text });
        this.#progress(item.seq);
        return;
      } catch (e) {
        this.#down(e);
        await this.#sleep(delay);
        delay = Math.min(delay * 2, this.#o.retryMaxMs ?? 5000);
      }
    }
  }

  #isTransient(error: unknown): boolean {
    // A database taken over by another journal: wait like in an outage, never skip or dead-letter (journal/identity.ts).
    if (error instanceof PersistenceError && error.code === "journal_identity") return true;
    return (this.#o.isTransient ?? isTransientDbError)(error);
  }

  #up(): void {
    if (this.#storeUp) return;
    this.#storeUp = true;
    this.#o.log.info("store reachable again; applying the journal backlog", { next_seq: this.#nextSeq });
  }

  #down(error: unknown): void {
    this.#lastError = errorText(error);
    this.counters.retries++;
    if (!this.#storeUp) return;
    this.#storeUp = false;
    this.counters.store_outages++;
    this.#o.log.warn("store unavailable; records wait in the journal", { error: this.#lastError });
  }

  #progress(seq: number): void {
    if (seq < this.#processed) return;
    this.#processed = seq;
    this.#nextSeq = seq + 1;
    if (!this.#waiters.length) return;
    this.#waiters = this.#waiters.filter((w) => (w.target <= seq ? (w.resolve(), false) : true));
  }

  #sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      this.#sleepTimer = this.#o.clock.setTimeout(resolve, ms);
      this.#cancelSleep = resolve;
    }).finally(() => (this.#cancelSleep = null));
  }
}

function toSeqEntry(item: Item): SeqEntry {
  return { seq: item.seq, entry: item.entry!, body: item.raw };
}
