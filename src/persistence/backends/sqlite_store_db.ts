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
 * {@link SqliteStoreDb.checkpoint} — run before journal segments are
 * deleted (`persistence_jobs.ts` `compact`) — writes the log into the file
 * and fsyncs both, so what the journal lets go of has survived a power loss.
 * Between those, once the store is busy ({@link BUSY_COMMITS} commits within
 * {@link BUSY_WINDOW_MS}), a worker thread checkpoints the log in the
 * background (`sqlite_checkpointer.ts`) instead of SQLite doing it inside
 * commits on the event loop's thread; it copies committed pages only, so
 * none of the above changes. An idle or lightly used store keeps SQLite's
 * own checkpoints: the thread is a V8 isolate of its own (~16 MiB of RSS at
 * start, against a server of ~87 MiB), worth it only under load.
 *
 * @module
 */

import { SqliteDb } from "../../db/sqlite.ts";
import type { DbParam } from "../../db/types.ts";
import type { Queryable, Row, SqlDb } from "./sql_db.ts";
import { type Checkpointer, startCheckpointer } from "./sqlite_checkpointer.ts";

/**
 * Bytes of record JSON per apply transaction on SQLite (the apply worker's
 * `maxBatchBytes`; 8 MiB on PostgreSQL). SQLite runs in this thread, so a
 * transaction blocks the event loop while it runs; telemetry, the bulk of
 * the bytes, stores at ~10 ms per 100 KiB (BENCHMARKS.md "Embedded store"),
 * so a batch stays near 25 ms. A single larger record is applied alone.
 */
export const SQLITE_APPLY_BATCH_BYTES = 256 * 1024;

/** Commits within {@link BUSY_WINDOW_MS} that make the store busy enough for the background checkpointer. */
export const BUSY_COMMITS = 50;
/** The window of {@link BUSY_COMMITS}, ms. */
export const BUSY_WINDOW_MS = 10_000;

/** File name of the embedded store inside `data_dir`. */
export const SQLITE_FILE = "chorus.sqlite";

/** The embedded SQLite store. */
export class SqliteStoreDb implements SqlDb {
  readonly backend = "sqlite" as const;
  readonly #db: SqliteDb;
  readonly #path: string;
  /** The background checkpointer once the store got busy; it resolves to null when its thread could not start. */
  #checkpointer: Promise<Checkpointer | null> | null = null;
  #windowStart = 0;
  #windowCommits = 0;

  private constructor(db: SqliteDb, path: string) {
    this.#db = db;
    this.#path = path;
  }

  /** Counts a commit; the {@link BUSY_COMMITS}th within {@link BUSY_WINDOW_MS} starts the background checkpointer. */
  #committed(): void {
    if (this.#checkpointer || this.#path === ":memory:") return;
    const now = performance.now();
    if (now - this.#windowStart > BUSY_WINDOW_MS) {
      this.#windowStart = now;
      this.#windowCommits = 0;
    }
    if (++this.#windowCommits < BUSY_COMMITS) return;
    const db = this.#db;
    this.#checkpointer = startCheckpointer(this.#path).then(
      async (c) => {
        // Only once the thread runs: until then (or if it never does) SQLite checkpoints in commits as before.
        // The log is started over after the thread's checkpoints; one that grew meanwhile is cut back to 64 MiB then.
        await db.exec("PRAGMA wal_autocheckpoint = 0; PRAGMA journal_size_limit = 67108864");
        return c;
      },
      () => null,
    );
  }

  /** Opens (creating when missing) the store at `path` (`:memory:` for tests). The caller holds the owner lock. */
  static open(path: string): SqliteStoreDb {
    return new SqliteStoreDb(SqliteDb.open(path, "normal"), path);
  }

  /** True once the background checkpointer runs (automatic checkpoints in commits are then off). */
  async backgroundCheckpoints(): Promise<boolean> {
    return this.#checkpointer !== null && (await this.#checkpointer) !== null;
  }

  query<T extends Row = Row>(sql: string, params: readonly unknown[] = []): Promise<T[]> {
    return this.#db.query<T>(sql, params as readonly DbParam[]);
  }

  exec(script: string): Promise<void> {
    return this.#db.exec(script);
  }

  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    this.#committed();
    return this.#db.transaction((tx) =>
      fn({
        query: <R extends Row = Row>(sql: string, params: readonly unknown[] = []) =>
          tx.query<R>(sql, params as readonly DbParam[]),
        exec: (script: string) => tx.exec(script),
      })
    );
  }

  checkpoint(): Promise<void> {
    return this.#db.checkpoint();
  }

  async close(): Promise<void> {
    await (await this.#checkpointer)?.stop();
    await this.#db.close();
  }
}
