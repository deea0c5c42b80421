/**
 * PGlite (PostgreSQL compiled to WebAssembly) in this thread: the embedded
 * backend where no worker can run (`open_store.ts` falls back to it), and
 * for tools and tests that want the database in-process. The server
 * normally runs PGlite in a worker (`pglite_worker_db.ts`); settings and
 * memory are the same (`pglite_config.ts`).
 *
 * PGlite runs with fsync off and has no cross-process lock (platform.md §4):
 * the owner lock is `../lock.ts`, and {@link PgliteDb.checkpoint} makes the
 * data durable before journal segments are deleted.
 *
 * @module
 */

import { PGlite, type Transaction } from "@electric-sql/pglite";
import { syncTree } from "./fs_sync.ts";
import { hasDataDir, PGLITE_INITIAL_MEMORY, pgliteOptions } from "./pglite_config.ts";
import { initDataDir } from "./pglite_worker_db.ts";
import type { Queryable, Row, SqlDb } from "./sql_db.ts";

export { PGLITE_INITIAL_MEMORY, PGLITE_SETTINGS } from "./pglite_config.ts";

/** Options of {@link PgliteDb.open}. */
export interface PgliteOptions {
  /** Directory of the database; omitted = in memory (tests). */
  readonly dir?: string;
  readonly initialMemory?: number;
}

function wrap(q: PGlite | Transaction): Queryable {
  return {
    async query<T extends Row = Row>(sql: string, params: readonly unknown[] = []): Promise<T[]> {
      return (await q.query<T>(sql, params as unknown[])).rows;
    },
    async exec(script: string): Promise<void> {
      await q.exec(script);
    },
  };
}

/** PGlite behind the {@link SqlDb} seam. */
export class PgliteDb implements SqlDb {
  readonly backend = "pglite" as const;
  readonly #db: PGlite;
  readonly #q: Queryable;
  readonly #dir: string | undefined;

  private constructor(db: PGlite, dir: string | undefined) {
    this.#db = db;
    this.#q = wrap(db);
    this.#dir = dir;
  }

  /** Opens (creating when missing) the database. The caller holds the directory's owner lock. */
  static async open(o: PgliteOptions = {}): Promise<PgliteDb> {
    const initialMemory = o.initialMemory ?? PGLITE_INITIAL_MEMORY;
    if (o.dir && !(await hasDataDir(o.dir))) {
      // initdb in a worker that is then terminated, so its memory leaves the process; without
      // workers PGlite.create below runs it here.
      await initDataDir(o.dir, initialMemory).catch(() => {});
    }
    const db = await PGlite.create(o.dir ?? "memory://", pgliteOptions(initialMemory));
    return new PgliteDb(db, o.dir);
  }

  query<T extends Row = Row>(sql: string, params?: readonly unknown[]): Promise<T[]> {
    return this.#q.query<T>(sql, params);
  }

  exec(script: string): Promise<void> {
    return this.#q.exec(script);
  }

  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.#db.transaction((tx) => fn(wrap(tx)));
  }

  /** Writes dirty pages out, then fsyncs every file of the directory. */
  async checkpoint(): Promise<void> {
    await this.#db.exec("CHECKPOINT");
    if (this.#dir) await syncTree(this.#dir);
  }

  async close(): Promise<void> {
    if (!this.#db.closed) await this.#db.close();
  }
}
