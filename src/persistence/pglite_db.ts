/**
 * The embedded backend: PGlite (PostgreSQL compiled to WebAssembly) in a
 * directory under `data_dir` (issue 5: "a newcomer needs nothing").
 *
 * Memory (measured, BENCHMARKS.md "Persistence"): PGlite's WebAssembly
 * module declares 2048 pages, so `initialMemory` cannot go below 128 MiB;
 * what grows RSS beyond that is PostgreSQL's own `shared_buffers` (128 MB by
 * default). With the settings below a warm start idles near 170 MB RSS
 * instead of ~290 MB. The settings are rewritten into the directory's
 * `postgresql.conf` on every open.
 *
 * PGlite runs with fsync off and has no cross-process lock (platform.md §4):
 * the owner lock is `lock.ts`, and {@link PgliteDb.checkpoint} makes the
 * data durable before journal segments are deleted.
 *
 * @module
 */

import { PGlite, type Transaction } from "@electric-sql/pglite";
import type { Queryable, Row, SqlDb } from "./sql_db.ts";

/** WebAssembly memory PGlite starts with: the smallest its module accepts. */
export const PGLITE_INITIAL_MEMORY = 128 * 1024 * 1024;

/** PostgreSQL settings for a small embedded store. */
export const PGLITE_SETTINGS: readonly string[] = [
  "shared_buffers=16MB",
  "wal_buffers=1MB",
  "work_mem=2MB",
  "maintenance_work_mem=16MB",
  "temp_buffers=2MB",
];

/** Options of {@link PgliteDb.open}. */
export interface PgliteOptions {
  /** Directory of the database; omitted = in memory (tests). */
  readonly dir?: string;
  readonly initialMemory?: number;
}

const INT8 = 20;

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
    if (o.dir && !(await exists(`${o.dir}/PG_VERSION`))) await initInWorker(o.dir, initialMemory);
    const db = await PGlite.create(o.dir ?? "memory://", {
      initialMemory,
      postgresqlconf: [...PGLITE_SETTINGS],
      parsers: { [INT8]: (value: string) => Number(value) },
    });
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

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * Creates a new data directory in a worker that is then terminated, so
 * `initdb`'s memory leaves the process (see `pglite_init_worker.ts`). Where
 * that fails the directory is created by the normal open.
 */
async function initInWorker(dir: string, initialMemory: number): Promise<void> {
  let worker: Worker;
  try {
    worker = new Worker(new URL("./pglite_init_worker.ts", import.meta.url), { type: "module" });
  } catch {
    return;
  }
  try {
    // Whatever the outcome (a build without workers, or initdb failing), the normal open
    // that follows creates the directory in this thread if needed and reports a real failure.
    await new Promise<void>((resolve) => {
      worker.onmessage = () => resolve();
      worker.onerror = (e) => {
        e.preventDefault();
        resolve();
      };
      worker.postMessage({ dir, initialMemory, settings: [...PGLITE_SETTINGS] });
    });
  } finally {
    worker.terminate();
  }
}

/** fsyncs every file below `dir`, then the directories themselves. */
async function syncTree(dir: string): Promise<void> {
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) await syncTree(path);
    else if (entry.isFile) await syncFile(path);
  }
  await syncFile(dir);
}

async function syncFile(path: string): Promise<void> {
  let file: Deno.FsFile;
  try {
    file = await Deno.open(path, { read: true });
  } catch {
    return; // Removed meanwhile (PostgreSQL recycles files).
  }
  try {
    await file.sync();
  } catch {
    // Directories cannot be fsynced on every platform.
  } finally {
    file.close();
  }
}
