/**
 * The embedded backend as shipped: PGlite in a directory under `data_dir`
 * (issue 5: "a newcomer needs nothing"), running in a module worker
 * (`pglite_worker.ts`) so that the database's synchronous WebAssembly work
 * runs on another core instead of blocking the game's event loop.
 *
 * Everything is serialized here, behind one lock: a statement waits for the
 * one before it, and a transaction holds the lock from `BEGIN` to `COMMIT`
 * or `ROLLBACK` (its own statements go straight through), as PGlite's
 * in-process `transaction` does. Errors keep their SQLSTATE `code`, so
 * `isTransientDbError` (`sql_db.ts`) classifies them as with the other backends. A
 * worker that dies fails the calls in flight with `CONNECTION_CLOSED`
 * (transient): records wait in the journal and the game goes on. The next
 * call starts a new worker on the same directory (PGlite recovers it as
 * after a crash; this process still holds the `data_dir` lock, so nobody
 * else opened it meanwhile), at the earliest {@link RESPAWN_MIN_MS} after
 * the death, doubling up to {@link RESPAWN_MAX_MS} while starts fail or new
 * workers die soon after starting; calls before then fail as transient too. Once a worker answers again the apply
 * worker's retry succeeds, the store counts as up and `/health/ready`
 * recovers (spec 3 §7 rule 3).
 *
 * The worker inherits the process's permissions (`deno task start` grants
 * what PGlite needs); a `deno compile`d binary must embed the worker with
 * `--include src/persistence/backends/pglite_worker.ts`. Where no worker can start,
 * `open_store.ts` falls back to the in-process {@link PgliteDb}.
 *
 * @module
 */

import type { Clock } from "../../util/clock.ts";
import type { Logger } from "../../util/log.ts";
import { hasDataDir, PGLITE_INITIAL_MEMORY } from "./pglite_config.ts";
import { describeError } from "../error_text.ts";
import { Channel, WorkerStartError } from "./pglite_channel.ts";
import type { Queryable, Row, SqlDb } from "./sql_db.ts";

/** Options of {@link PgliteWorkerDb.open}. */
export interface PgliteWorkerOptions {
  /** Directory of the database; omitted = in memory (tests; a new worker then starts empty). */
  readonly dir?: string;
  readonly initialMemory?: number;
  /** The worker script (tests); default `pglite_worker.ts`. */
  readonly workerUrl?: URL;
  /** Times the respawn back-off (its `monotonic()`); default the runtime's monotonic clock. */
  readonly clock?: Pick<Clock, "monotonic">;
  readonly log?: Logger;
}

/** First wait before a dead worker is replaced, in milliseconds. */
export const RESPAWN_MIN_MS = 250;
/** Longest wait between attempts to start a worker again. */
export const RESPAWN_MAX_MS = 30_000;

const WORKER_URL = new URL("./pglite_worker.ts", import.meta.url);

/** PGlite in a worker behind the {@link SqlDb} seam. */
export class PgliteWorkerDb implements SqlDb {
  readonly backend = "pglite" as const;
  readonly #o: PgliteWorkerOptions;
  #channel: Channel;
  /** Settles when the last operation queued so far has finished (never rejects). */
  #tail: Promise<unknown> = Promise.resolve();
  #closed = false;
  /** While the worker is dead: when the next start may be tried, and the wait after that one. */
  #respawn: { at: number; why: string } | null = null;
  /** The last back-off, in milliseconds. */
  #delay = RESPAWN_MIN_MS;
  /** Workers started again after one died. */
  respawns = 0;

  #startedAt = 0;

  private constructor(channel: Channel, o: PgliteWorkerOptions) {
    this.#o = o;
    this.#channel = this.#watch(channel);
  }

  /** Starts the back-off when `channel`'s worker dies: doubled when the worker before it died soon too. */
  #watch(channel: Channel): Channel {
    this.#startedAt = this.#now();
    channel.onDied = (error) => {
      if (this.#closed || channel !== this.#channel) return;
      const now = this.#now();
      const soon = this.respawns > 0 && now - this.#startedAt < RESPAWN_MAX_MS;
      const delay = soon ? Math.min(this.#delay * 2, RESPAWN_MAX_MS) : RESPAWN_MIN_MS;
      this.#delay = delay;
      this.#respawn = { at: now + delay, why: error.message };
      this.#o.log?.error("the embedded database's worker died; starting a new one", {
        error: error.message,
        in_ms: delay,
      });
    };
    return channel;
  }

  /**
   * Opens (creating when missing) the database in a new worker. The caller
   * holds the directory's owner lock. Throws {@link WorkerStartError} when
   * no worker can run.
   */
  static async open(o: PgliteWorkerOptions = {}): Promise<PgliteWorkerDb> {
    const initialMemory = o.initialMemory ?? PGLITE_INITIAL_MEMORY;
    if (o.dir && !(await hasDataDir(o.dir))) await initDataDir(o.dir, initialMemory);
    const channel = new Channel(o.workerUrl ?? WORKER_URL);
    try {
      await channel.call({ op: "open", dir: o.dir ?? null, initialMemory });
    } catch (error) {
      channel.terminate();
      throw error;
    }
    return new PgliteWorkerDb(channel, o);
  }

  query<T extends Row = Row>(sql: string, params: readonly unknown[] = []): Promise<T[]> {
    return this.#exclusive(() => this.#channel.call({ op: "query", sql, params }) as Promise<T[]>);
  }

  exec(script: string): Promise<void> {
    return this.#exclusive(async () => void await this.#channel.call({ op: "exec", sql: script }));
  }

  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.#exclusive(async () => {
      const channel = this.#channel;
      await channel.call({ op: "exec", sql: "BEGIN" });
      let open = true;
      const live = () => {
        if (!open) throw new Error("Cannot run a statement: its transaction is over");
      };
      const tx: Queryable = {
        query: async <R extends Row = Row>(sql: string, params: readonly unknown[] = []) => {
          live();
          return await channel.call({ op: "query", sql, params }) as R[];
        },
        exec: async (script: string) => {
          live();
          await channel.call({ op: "exec", sql: script });
        },
      };
      try {
        const result = await fn(tx);
        open = false;
        await channel.call({ op: "exec", sql: "COMMIT" });
        return result;
      } catch (error) {
        open = false;
        await channel.call({ op: "exec", sql: "ROLLBACK" }).catch(() => {});
        throw error;
      }
    });
  }

  /** Writes dirty pages out, then fsyncs every file of the directory (in the worker). */
  checkpoint(): Promise<void> {
    return this.#exclusive(async () => void await this.#channel.call({ op: "checkpoint" }));
  }

  /** Closes PGlite (after the operations queued so far), then ends the worker. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    try {
      await this.#exclusive(() => this.#channel.call({ op: "close" })).catch(() => {});
    } finally {
      this.#channel.terminate();
    }
  }

  /** Runs `fn` once everything queued before it has finished (with a live worker). */
  #exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.#tail.then(async () => {
      if (!this.#closed) await this.#alive();
      return await fn();
    });
    this.#tail = run.catch(() => {});
    return run;
  }

  /** Starts a new worker if the last one died and its back-off is over; throws a transient error otherwise. */
  async #alive(): Promise<void> {
    const died = this.#channel.died;
    if (!died) return;
    const now = this.#now();
    const r = this.#respawn ??= { at: now, why: died.message };
    if (now < r.at) throw transient(`${r.why}; a new worker starts in ${Math.ceil(r.at - now)} ms`);
    let channel: Channel | null = null;
    try {
      // Inside the try: a worker that cannot even be created (out of threads or memory) backs off like one that died.
      channel = new Channel(this.#o.workerUrl ?? WORKER_URL);
      await channel.call({
        op: "open",
        dir: this.#o.dir ?? null,
        initialMemory: this.#o.initialMemory ?? PGLITE_INITIAL_MEMORY,
      });
    } catch (error) {
      channel?.terminate();
      this.#delay = Math.min(this.#delay * 2, RESPAWN_MAX_MS);
      r.at = this.#now() + this.#delay;
      const why = describeError(error);
      this.#o.log?.warn("cannot start a new worker for the embedded database yet", {
        error: why,
        retry_ms: this.#delay,
      });
      throw transient(`${r.why}; a new worker failed to start (${why}), next try in ${this.#delay} ms`);
    }
    this.#channel = this.#watch(channel);
    this.#respawn = null;
    this.respawns++;
    this.#o.log?.info("the embedded database's new worker is running", { dir: this.#o.dir ?? "memory" });
  }

  #now(): number {
    return this.#o.clock ? this.#o.clock.monotonic() : performance.now();
  }
}

/**
 * Creates a new data directory in a worker that is then terminated, so
 * `initdb`'s memory leaves the process. Where that fails for another reason
 * than workers being unavailable, the open that follows creates the
 * directory itself and reports a real failure.
 */
export async function initDataDir(dir: string, initialMemory: number = PGLITE_INITIAL_MEMORY): Promise<void> {
  const channel = new Channel(WORKER_URL);
  try {
    await channel.call({ op: "init", dir, initialMemory });
  } catch (error) {
    if (error instanceof WorkerStartError) throw error;
  } finally {
    channel.terminate();
  }
}

/** A failure of the embedded database as unavailable (like a lost connection): the caller waits and retries. */
function transient(message: string): Error {
  const text = message.startsWith("Cannot use the embedded database")
    ? message
    : `Cannot use the embedded database: ${message}`;
  return Object.assign(new Error(text), { code: "CONNECTION_CLOSED" });
}

export { PgliteWorkerError, WorkerStartError } from "./pglite_channel.ts";
