/**
 * The periodic jobs of the persistence layer (spec 3 §8): playtime flush
 * (60 s), auth-cache save (60 s), instance heartbeat (30 s), retention
 * (1 h) and journal compaction (60 s: make the store durable, then delete
 * journal segments it fully holds). All timers use the injected clock. What
 * each job journals is given by {@link JobHooks}; the storage is passed in,
 * so the jobs reach nothing else of persistence.
 *
 * @module
 */

import type { Clock, TimerHandle } from "../util/clock.ts";
import type { Logger } from "../util/log.ts";
import type { JobName } from "./options.ts";
import { type RetentionResult, runRetention } from "./retention/mod.ts";
import type { Storage } from "./startup.ts";
import type { RetentionPolicy } from "./types.ts";

/** Default periods in milliseconds. */
export const JOB_PERIODS: Readonly<Record<JobName, number>> = {
  playtime: 60_000,
  auth: 60_000,
  heartbeat: 30_000,
  retention: 3_600_000,
  compact: 60_000,
};

/** What the jobs work with and journal. */
export interface JobHooks {
  readonly clock: Clock;
  readonly log: Logger;
  readonly storage: Pick<Storage, "store" | "journal" | "worker">;
  /** The retention policies in force. */
  policies(): readonly RetentionPolicy[];
  /** The folder of stored telemetry files, removed by retention with their rows (none: rows only). */
  readonly telemetryDir?: string;
  /** Journals the playtime accumulated so far. */
  flushPlaytime(): void;
  /** Journals the auth-cache changes since the last save (token hashes only). */
  saveAuthCache(): void;
  /** Journals this instance's heartbeat, or its stop. */
  heartbeat(stopped: boolean): void;
  /** Journals what is held in memory for batching: touch and judge batches, debounced room snapshots. */
  flushHeld(): void;
  /** A job failed (logged here; the hook records it as the last error). */
  failed(error: string): void;
}

/** Runs and stops the periodic jobs. */
export class PersistenceJobs {
  readonly #h: JobHooks;
  readonly #timers = new Map<string, TimerHandle>();
  #retention: Promise<RetentionResult[]> | null = null;
  #compacting: Promise<number> | null = null;

  constructor(hooks: JobHooks, periods: Partial<Record<JobName, number>>) {
    this.#h = hooks;
    const { clock } = hooks;
    const every = (name: JobName, fn: () => unknown) => {
      const ms = periods[name] ?? JOB_PERIODS[name];
      const tick = () => {
        this.#timers.set(name, clock.setTimeout(tick, ms));
        try {
          const r = fn();
          if (r instanceof Promise) r.catch((error) => this.#fail(name, error));
        } catch (error) {
          this.#fail(name, error);
        }
      };
      this.#timers.set(name, clock.setTimeout(tick, ms));
    };
    every("playtime", () => hooks.flushPlaytime());
    every("auth", () => hooks.saveAuthCache());
    every("heartbeat", () => {
      hooks.heartbeat(false);
      return hooks.storage.store.db.keepOwnerLock?.();
    });
    every("retention", () => this.runRetention());
    every("compact", () => this.compact());
  }

  /** One retention pass (skipped while one runs). */
  runRetention(): Promise<RetentionResult[]> {
    const h = this.#h;
    this.#retention ??= runRetention(
      h.storage.store.db,
      h.policies(),
      h.clock.now(),
      h.log,
      5000,
      h.telemetryDir ?? null,
    )
      .finally(() => (this.#retention = null));
    return this.#retention;
  }

  /** Makes the store durable and deletes journal segments it fully holds; returns segments deleted. */
  compact(): Promise<number> {
    this.#compacting ??= (async () => {
      const { journal, worker, store } = this.#h.storage;
      const through = worker.processedSeq;
      const segments = journal.segments();
      if (segments.length < 2 || segments[0]!.lastSeq > through) return 0;
      await store.db.checkpoint();
      return await journal.dropThrough(through);
    })().finally(() => (this.#compacting = null));
    return this.#compacting;
  }

  /** Final flushes, a bounded drain of the queue, then compaction. */
  async stop(drainMs: number): Promise<void> {
    const h = this.#h;
    for (const handle of this.#timers.values()) h.clock.clearTimeout(handle);
    this.#timers.clear();
    h.flushHeld();
    h.flushPlaytime();
    h.saveAuthCache();
    h.heartbeat(true);
    try {
      await h.storage.journal.sync();
    } catch (error) {
      this.#fail("final flush", error);
    }
    let timer: TimerHandle | undefined;
    await Promise.race([
      h.storage.worker.idle(),
      new Promise<void>((resolve) => (timer = h.clock.setTimeout(resolve, drainMs))),
    ]);
    h.clock.clearTimeout(timer);
    await this.#retention?.catch(() => {});
    if (h.storage.worker.storeUp) await this.compact().catch((error) => this.#fail("compact", error));
  }

  #fail(job: string, error: unknown): void {
    const text = error instanceof Error ? error.message : String(error);
    this.#h.failed(text);
    this.#h.log.error("persistence job failed", { job, error: text });
  }
}
