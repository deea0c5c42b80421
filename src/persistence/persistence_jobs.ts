/**
 * The periodic jobs of the persistence layer (spec 3 §8): playtime flush
 * (60 s), auth-cache save (60 s), instance heartbeat (30 s), retention
 * (1 h) and journal compaction (60 s: make the store durable, then delete
 * journal segments it fully holds). All timers use the injected clock.
 *
 * @module
 */

import type { TimerHandle } from "../util/clock.ts";
import type { PersistenceCore as Persistence } from "./startup.ts";
import { type RetentionResult, runRetention } from "./retention/retention.ts";
import { errorText } from "./types.ts";

/** Default periods in milliseconds. */
export const JOB_PERIODS = {
  playtime: 60_000,
  auth: 60_000,
  heartbeat: 30_000,
  retention: 3_600_000,
  compact: 60_000,
} as const;

/** Runs and stops the periodic jobs of one {@link Persistence}. */
export class PersistenceJobs {
  readonly #p: Persistence;
  readonly #timers = new Map<string, TimerHandle>();
  #retention: Promise<RetentionResult[]> | null = null;
  #compacting: Promise<number> | null = null;

  constructor(p: Persistence, periods: Partial<Record<keyof typeof JOB_PERIODS, number>>) {
    this.#p = p;
    const every = (name: keyof typeof JOB_PERIODS, fn: () => unknown) => {
      const ms = periods[name] ?? JOB_PERIODS[name];
      const tick = () => {
        this.#timers.set(name, p.o.clock.setTimeout(tick, ms));
        try {
          const r = fn();
          if (r instanceof Promise) r.catch((error) => this.#fail(name, error));
        } catch (error) {
          this.#fail(name, error);
        }
      };
      this.#timers.set(name, p.o.clock.setTimeout(tick, ms));
    };
    every("playtime", () => this.flushPlaytime());
    every("auth", () => this.saveAuthCache());
    every("heartbeat", () => {
      p.write(p.instanceEntry(false));
      return p.store.db.keepOwnerLock?.();
    });
    every("retention", () => this.runRetention());
    every("compact", () => this.compact());
  }

  /** Journals the playtime accumulated so far. */
  flushPlaytime(): void {
    this.#p.recorder.flushPlaytime(this.#p.o.clock.now());
  }

  /** Journals the auth-cache changes since the last save (token hashes only). */
  saveAuthCache(): void {
    const core = this.#p.core;
    if (!core) return;
    const entry = this.#p.authSync.diff(core.authCache.entries());
    if (entry) this.#p.write(entry);
  }

  /** One retention pass (skipped while one runs). */
  runRetention(): Promise<RetentionResult[]> {
    this.#retention ??= runRetention(this.#p.store.db, this.#p.policies, this.#p.o.clock.now(), this.#p.o.log)
      .finally(() => (this.#retention = null));
    return this.#retention;
  }

  /** Makes the store durable and deletes journal segments it fully holds; returns segments deleted. */
  compact(): Promise<number> {
    this.#compacting ??= (async () => {
      const journal = this.#p.journal;
      const through = this.#p.worker.processedSeq;
      const segments = journal.segments();
      if (segments.length < 2 || segments[0]!.lastSeq > through) return 0;
      await this.#p.store.db.checkpoint();
      return await journal.dropThrough(through);
    })().finally(() => (this.#compacting = null));
    return this.#compacting;
  }

  /** Final flushes, a bounded drain of the queue, then compaction. */
  async stop(drainMs: number): Promise<void> {
    const p = this.#p;
    for (const handle of this.#timers.values()) p.o.clock.clearTimeout(handle);
    this.#timers.clear();
    p.recorder.batcher.flushAll();
    p.snapshots.flushAll();
    this.flushPlaytime();
    this.saveAuthCache();
    p.write(p.instanceEntry(true));
    try {
      await p.journal.sync();
    } catch (error) {
      this.#fail("final flush", error);
    }
    let timer: TimerHandle | undefined;
    await Promise.race([
      p.worker.idle(),
      new Promise<void>((resolve) => (timer = p.o.clock.setTimeout(resolve, drainMs))),
    ]);
    p.o.clock.clearTimeout(timer);
    await this.#retention?.catch(() => {});
    if (p.worker.storeUp) await this.compact().catch((error) => this.#fail("compact", error));
  }

  #fail(job: string, error: unknown): void {
    this.#p.lastError = errorText(error);
    this.#p.o.log.error("persistence job failed", { job, error: this.#p.lastError });
  }
}
