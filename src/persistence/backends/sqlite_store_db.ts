/**
 * The embedded store (issue 15 "a light embedded default store"): one
 * SQLite file under `data_dir` through the roles' adapter (`src/db/sqlite.ts`,
 * Deno's built-in `node:sqlite`) behind the {@link SqlDb} seam.
 *
 * Durability: WAL with `synchronous = NORMAL`. A commit writes the log
 * without an fsync, so an apply batch never blocks the event loop on the
 * disk; a crash of the process loses nothing committed, a power loss may
 * lose the newest commits, whose records the journal still holds (their
 * watermark rolls back with them, so they are applied again exactly once).
 * {@link SqliteStoreDb.checkpoint} -- run before journal segments are
 * deleted (`persistence_jobs.ts` `compact`) -- writes the log into the file
 * and fsyncs both, so what the journal lets go of has survived a power loss.
 * Once play begins ({@link SqliteStoreDb.expectBusy}), or the store is busy
 * anyway ({@link BUSY_MS} inside SQLite on the main connection within
 * {@link BUSY_WINDOW_MS}), a worker thread with a connection of its own to
 * the same file (`sqlite_thread.ts`) takes two jobs off the event loop's
 * thread: WAL checkpoints, in the background instead of inside commits
 * (they copy committed pages only, so none of the above changes), and apply
 * batches ({@link SqliteStoreDb.runGuarded}: the statements go over in one
 * message and run in one transaction there, their guard included). An idle
 * or lightly used store keeps everything on the one connection: the thread
 * is a V8 isolate of its own (~16-18 MiB of RSS at start, against a server
 * of ~87 MiB), worth it only under load. A thread that is lost hands both
 * jobs back to the main connection for good.
 *
 * While the thread applies a batch it holds SQLite's writer lock: other
 * writes on the main connection (bindJournal, dead letters, retention
 * deletes, migrations) wait for that transaction to end, up to the busy
 * timeout of 5 s, blocking the event loop meanwhile (a batch takes 1-26 ms
 * at 300 rooms). Reads never wait (WAL). {@link SqliteStoreDb.checkpoint}
 * runs on the thread then, after the batches in flight.
 *
 * @module
 */

import { assertCheckpointed, SqliteDb } from "../../db/sqlite.ts";
import type { DbParam } from "../../db/types.ts";
import {
  type BatchGuard,
  type GuardedOutcome,
  guardPasses,
  type Queryable,
  type Row,
  type SqlDb,
  type SqlStatement,
  THREAD_LOST_CODE,
} from "./sql_db.ts";
import { type SqliteThread, startSqliteThread } from "./sqlite_thread.ts";

/**
 * Bytes of record JSON per apply transaction on SQLite (the apply worker's
 * `maxBatchBytes`; 8 MiB on PostgreSQL). Until the store is busy SQLite
 * runs in this thread, so a transaction blocks the event loop while it
 * runs; telemetry, the bulk of the bytes, stores at ~10 ms per 100 KiB
 * (BENCHMARKS.md "Embedded store"), so a batch stays near 25 ms. On the
 * store's thread the bound keeps each batch's message and the writer lock
 * it holds (which main-connection writes wait for) as short. A single
 * larger record is applied alone.
 */
export const SQLITE_APPLY_BATCH_BYTES = 256 * 1024;

/**
 * Batch limits on the store's thread: the event loop's share of a batch is
 * planning it and one message, and every batch waits for the thread's answer
 * (and for its checkpoints), so small batches would let the apply queue fall
 * behind at 300 rooms (measured: the queue filled and went journal-only).
 */
export const THREAD_BATCH = { records: 2048, bytes: 4 * 1024 * 1024 } as const;
/** Batch limits on the main connection (see {@link SQLITE_APPLY_BATCH_BYTES}). */
export const MAIN_BATCH = { records: 256, bytes: SQLITE_APPLY_BATCH_BYTES } as const;

/**
 * Milliseconds spent inside SQLite on the main connection within
 * {@link BUSY_WINDOW_MS} that make the store busy enough for its thread
 * when nobody said so ({@link SqliteStoreDb.expectBusy}, called when play
 * begins): 5 % of the event loop over half a minute. A burst of 10,000
 * logins makes ~1 s of SQLite over 20 s (measured), not worth the thread's
 * memory for the idle hours after it.
 */
export const BUSY_MS = 1500;
/** The window of {@link BUSY_MS}, ms. */
export const BUSY_WINDOW_MS = 30_000;

/** SQLite's own checkpoint threshold (pages of log), given back to the main connection when the thread is lost. */
const AUTO_CHECKPOINT_PAGES = 1000;

/** Options of {@link SqliteStoreDb.open}. */
export interface SqliteStoreOptions {
  /** Milliseconds inside SQLite on the main connection within {@link BUSY_WINDOW_MS} that start the thread (default {@link BUSY_MS}); 0 starts it at open. */
  readonly threadAfterMs?: number;
  /** Monotonic milliseconds that time statements and the window (default `performance.now`; tests inject one). */
  readonly now?: () => number;
  /** Starts the thread (default {@link startSqliteThread}); tests wrap it to watch or end the thread. */
  readonly startThread?: (path: string) => Promise<SqliteThread>;
}

/** File name of the embedded store inside `data_dir`. */
export const SQLITE_FILE = "chorus.sqlite";

/** The embedded SQLite store. */
export class SqliteStoreDb implements SqlDb {
  readonly backend = "sqlite" as const;
  readonly #db: SqliteDb;
  readonly #path: string;
  readonly #threadAfter: number;
  readonly #now: () => number;
  readonly #startThread: (path: string) => Promise<SqliteThread>;
  /** The thread once the store got busy; it resolves to null when the thread could not start. */
  #thread: Promise<SqliteThread | null> | null = null;
  /** The thread once it runs and the main connection has handed it the checkpoints. */
  #running: SqliteThread | null = null;
  #closing = false;
  #windowStart = 0;
  /** The connection's {@link SqliteDb.busyMs} at {@link #windowStart}. */
  #windowBusy = 0;
  /** The connection's {@link SqliteDb.busyMs} after the last transaction. */
  #lastBusy = 0;

  private constructor(db: SqliteDb, path: string, options: SqliteStoreOptions) {
    this.#db = db;
    this.#path = path;
    this.#threadAfter = options.threadAfterMs ?? BUSY_MS;
    this.#now = options.now ?? (() => performance.now());
    this.#startThread = options.startThread ?? startSqliteThread;
    if (this.#threadAfter <= 0 && path !== ":memory:") this.#start();
  }

  /**
   * After a transaction on the main connection: the
   * {@link SqliteStoreOptions.threadAfterMs} spent inside SQLite within
   * {@link BUSY_WINDOW_MS} start the thread (the connection's own count:
   * the time other work ran between a transaction's statements is not
   * SQLite's).
   */
  #spent(): void {
    if (this.#thread || this.#path === ":memory:") return;
    const now = this.#now();
    const busy = this.#db.busyMs;
    if (now - this.#windowStart > BUSY_WINDOW_MS) {
      // A new window, starting with the transaction just run.
      this.#windowStart = now;
      this.#windowBusy = this.#lastBusy;
    }
    this.#lastBusy = busy;
    if (busy - this.#windowBusy >= this.#threadAfter) this.#start();
  }

  /** Runs a transaction on the main connection, then {@link #spent}. */
  async #timed<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } finally {
      this.#spent();
    }
  }

  #start(): void {
    const db = this.#db;
    this.#thread = this.#startThread(this.#path).then(
      async (thread) => {
        // Only once the thread runs: until then (or if it never does) SQLite checkpoints in commits as before.
        // The log is started over after the thread's checkpoints; one that grew meanwhile is cut back to 64 MiB then.
        try {
          await db.exec("PRAGMA wal_autocheckpoint = 0; PRAGMA journal_size_limit = 67108864");
        } catch {
          await thread.stop(); // Closed meanwhile.
          return null;
        }
        thread.lost.then(async () => {
          if (this.#running === thread) this.#running = null;
          // Checkpoints go back into commits; batches come back to the main connection by themselves (runGuarded).
          await db.exec(`PRAGMA wal_autocheckpoint = ${AUTO_CHECKPOINT_PAGES}`);
        }).catch(() => {});
        if (!this.#closing) this.#running = thread;
        return thread;
      },
      () => null,
    );
  }

  /** Opens (creating when missing) the store at `path` (`:memory:` for tests, never with a thread). The caller holds the owner lock. */
  static open(path: string, options: SqliteStoreOptions = {}): SqliteStoreDb {
    return new SqliteStoreDb(SqliteDb.open(path, "normal", options.now), path, options);
  }

  /** Play began: the thread starts now (`SqlDb.expectBusy`); 300 rooms make ~300 ms of SQLite per 10 s. */
  expectBusy(): void {
    if (!this.#thread && this.#path !== ":memory:" && !this.#closing) this.#start();
  }

  /** How large the next apply batch may be: larger once batches go to the thread (`ApplyWorkerOptions.limits`). */
  batchLimits(): { readonly records: number; readonly bytes: number } {
    return this.#running?.alive && !this.#closing ? THREAD_BATCH : MAIN_BATCH;
  }

  /** True once the thread runs (waiting for one that is starting): checkpoints and apply batches are then its. */
  async threadRunning(): Promise<boolean> {
    return (await this.#thread)?.alive ?? false;
  }

  /**
   * Runs a guarded batch (`SqlDb.runGuarded`): on the thread while it runs,
   * on the main connection otherwise (the same transaction: `BEGIN
   * IMMEDIATE`, the guard's row, the statements). A thread lost meanwhile
   * rejects with a transient error; the next batch runs on the main
   * connection.
   */
  async runGuarded(guard: BatchGuard, statements: readonly SqlStatement[]): Promise<GuardedOutcome> {
    const thread = this.#running;
    if (thread?.alive && !this.#closing) return await thread.runGuarded(guard, statements);
    return await this.#timed(() =>
      this.#db.transaction(async (tx) => {
        const [row] = await tx.query(guard.sql);
        if (!guardPasses(guard, row)) return { ran: false, row };
        for (const s of statements) await tx.query(s.sql, s.params as readonly DbParam[]);
        return { ran: true, row };
      })
    );
  }

  query<T extends Row = Row>(sql: string, params: readonly unknown[] = []): Promise<T[]> {
    return this.#db.query<T>(sql, params as readonly DbParam[]);
  }

  exec(script: string): Promise<void> {
    return this.#db.exec(script);
  }

  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.#timed(() =>
      this.#db.transaction((tx) =>
        fn({
          query: <R extends Row = Row>(sql: string, params: readonly unknown[] = []) =>
            tx.query<R>(sql, params as readonly DbParam[]),
          exec: (script: string) => tx.exec(script),
        })
      )
    );
  }

  /**
   * FULL checkpoint. While the thread runs it checkpoints there, after the
   * batches sent before (the main connection's commits are in the log
   * already): FULL waits for the writer's lock, which a batch on the thread
   * may hold, and on the main connection it would wait (and copy the log
   * and fsync) on the event loop's thread; it also cannot collide there
   * with the thread's periodic checkpoints. A thread lost meanwhile leaves it
   * to the main connection.
   */
  async checkpoint(): Promise<void> {
    const thread = this.#running;
    if (thread?.alive && !this.#closing) {
      try {
        return assertCheckpointed(await thread.checkpoint());
      } catch (error) {
        if ((error as { code?: unknown }).code !== THREAD_LOST_CODE) throw error;
      }
    }
    await this.#db.checkpoint();
  }

  /** Waits for a batch in flight on the thread, stops the thread, then closes the main connection. */
  async close(): Promise<void> {
    this.#closing = true;
    await (await this.#thread)?.stop();
    this.#running = null;
    await this.#db.close();
  }
}
