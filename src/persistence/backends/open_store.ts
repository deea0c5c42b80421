/**
 * Opening the durable store (issue 5 "Stores"): check that `data_dir` is
 * usable, take its owner lock, then open PGlite under `data_dir/pglite` (in
 * a worker thread) when no `database_url` is configured, or PostgreSQL
 * otherwise (taking its owner lock: one server per database), and migrate.
 * The journal lives under `data_dir/journal` with either backend, so the
 * lock is taken in both cases.
 *
 * @module
 */

import type { Clock } from "../../util/clock.ts";
import type { Logger } from "../../util/log.ts";
import { DataDirLock } from "../lock.ts";
import { migrate, type MigrateResult, type Migration, MIGRATIONS } from "./migrations.ts";
import { WorkerStartError } from "./pglite_channel.ts";
import { describeUrl } from "./postgres_url.ts";
import type { SqlDb } from "./sql_db.ts";
import { isDiskFull } from "../error_text.ts";
import { errorText, PersistenceError } from "../types.ts";

/** What {@link openStore} needs. */
export interface OpenStoreOptions {
  readonly dataDir: string;
  readonly databaseUrl: string | null;
  readonly log: Logger;
  readonly now: number;
  /** Times the embedded database's worker restarts (default the runtime's monotonic clock). */
  readonly clock?: Clock;
  /** Use this database instead of opening one (tests). */
  readonly db?: SqlDb;
  readonly migrations?: readonly Migration[];
}

/** An open, migrated store and the lock that guards its directory. */
export interface OpenedStore {
  readonly db: SqlDb;
  readonly lock: DataDirLock;
  readonly schema: MigrateResult;
}

/** Makes sure `dir` exists and accepts writes; throws a clear `data_dir` error otherwise. */
export async function checkDataDir(dir: string): Promise<void> {
  const probe = `${dir}/.write-test-${Deno.pid}`;
  try {
    await Deno.mkdir(dir, { recursive: true });
    await Deno.writeTextFile(probe, "ok");
    await Deno.remove(probe);
  } catch (error) {
    throw new PersistenceError(
      "data_dir",
      `Cannot use data_dir "${dir}": it is not a writable directory (${errorText(error)}); ` +
        `fix its permissions or choose another --data-dir`,
      { cause: error },
    );
  }
}

/** Checks the directory, locks it, opens the backend and migrates it. */
export async function openStore(o: OpenStoreOptions): Promise<OpenedStore> {
  await checkDataDir(o.dataDir);
  const lock = DataDirLock.acquire(o.dataDir, o.log, o.now);
  let db: SqlDb | undefined = o.db;
  try {
    if (!db) {
      if (o.databaseUrl) {
        // Each driver is loaded only when it is the one configured (issue 15 "Load on demand").
        const { PostgresDb } = await import("./postgres_db.ts");
        const pg = db = await PostgresDb.open(o.databaseUrl, o.log);
        // Before migrating or reading anything: one server per database (postgres_owner_lock.ts).
        await pg.lockOwner(o.log);
      } else {
        const started = performance.now();
        const dir = `${o.dataDir}/pglite`;
        const fresh = await Deno.stat(`${dir}/PG_VERSION`).then(() => false, () => true);
        if (fresh) o.log.info("creating the embedded database (the first start takes a few seconds)", { dir });
        try {
          db = await openEmbedded(dir, o.log, o.clock);
        } catch (error) {
          throw embeddedFailure(dir, fresh, error);
        }
        o.log.info("embedded database open", {
          dir,
          ms: Math.round(performance.now() - started),
        });
      }
    }
    const schema = await migrate(db, o.log, o.now, o.migrations ?? MIGRATIONS);
    return { db, lock, schema };
  } catch (error) {
    if (db && !o.db) await db.close().catch(() => {});
    lock.release();
    if (error instanceof PersistenceError) throw error;
    throw new PersistenceError("database", `Cannot open the database: ${errorText(error)}`, { cause: error });
  }
}

/** Says which step failed, on which directory, and what to do about a full disk. */
function embeddedFailure(dir: string, fresh: boolean, error: unknown): PersistenceError {
  const why = errorText(error);
  const advice = isDiskFull(why) ? "; free space on the disk that holds data_dir and start again" : "";
  const step = fresh ? "create" : "open";
  return new PersistenceError("database", `Cannot ${step} the embedded database in "${dir}": ${why}${advice}`, {
    cause: error,
  });
}

/**
 * PGlite in a worker (`pglite_worker_db.ts`), so the database never blocks
 * the game's event loop; in this thread only where no worker can start
 * (e.g. a `deno compile` build without `--include src/persistence/backends/pglite_worker.ts`).
 */
async function openEmbedded(dir: string, log: Logger, clock: Clock | undefined): Promise<SqlDb> {
  try {
    const { PgliteWorkerDb } = await import("./pglite_worker_db.ts");
    return await PgliteWorkerDb.open({ dir, log, ...(clock ? { clock } : {}) });
  } catch (error) {
    if (!(error instanceof WorkerStartError)) throw error;
    log.warn("the embedded database runs in the main thread: its worker cannot start", {
      dir,
      error: errorText(error),
    });
    const { PgliteDb } = await import("./pglite_db.ts");
    return await PgliteDb.open({ dir });
  }
}

/** The database as messages name it: never the URL (it may hold a password). */
export function describeDatabase(config: { readonly data_dir: string; readonly database_url: string | null }): string {
  if (!config.database_url) return `the embedded database "${config.data_dir}/pglite"`;
  const { host, database } = describeUrl(config.database_url);
  return `the PostgreSQL database "${database}" on ${host}`;
}
