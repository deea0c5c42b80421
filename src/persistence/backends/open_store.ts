/**
 * Opening the durable store (issue 5 "Stores"): check that `data_dir` is
 * usable, take its owner lock, then open the SQLite file
 * `data_dir/chorus.sqlite` when no `database_url` is configured (issue 15;
 * an old PGlite store under `data_dir/pglite` is converted first), or
 * PostgreSQL otherwise (taking its owner lock: one server per database),
 * and migrate. The journal lives under `data_dir/journal` with either
 * backend, so the lock is taken in both cases.
 *
 * @module
 */

import type { Logger } from "../../util/log.ts";
import { DataDirLock } from "../lock.ts";
import { migrate, type MigrateResult, type Migration, MIGRATIONS } from "./migrations.ts";
import { convertCommand, convertPgliteStoreInWorker, hasPgliteStore, storePaths } from "./pglite_convert.ts";
import { describeUrl } from "./postgres_url.ts";
import { SQLITE_FILE, SqliteStoreDb } from "./sqlite_store_db.ts";
import type { SqlDb } from "./sql_db.ts";
import { isDiskFull } from "../error_text.ts";
import { errorText, PersistenceError } from "../types.ts";

/** What {@link openStore} needs. */
export interface OpenStoreOptions {
  readonly dataDir: string;
  readonly databaseUrl: string | null;
  readonly log: Logger;
  readonly now: number;
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
        db = await openEmbedded(o.dataDir, o.log, o.now);
      }
    }
    const schema = await migrate(db, o.log, o.now, o.migrations ?? MIGRATIONS);
    return { db, lock, schema };
  } catch (error) {
    if (db && !o.db) await db.close().catch(() => {});
    lock.release();
    if (error instanceof PersistenceError) throw error;
    if (!o.db && !o.databaseUrl) throw embeddedFailure(storePaths(o.dataDir).sqlite, "use", error);
    throw new PersistenceError("database", `Cannot open the database: ${errorText(error)}`, { cause: error });
  }
}

/**
 * The embedded store: `data_dir/chorus.sqlite`, converted first from an old
 * `data_dir/pglite` when one is there (`pglite_convert.ts`); a failed
 * conversion refuses the start with the command that converts by hand.
 */
async function openEmbedded(dataDir: string, log: Logger, now: number): Promise<SqlDb> {
  const paths = storePaths(dataDir);
  const exists = await Deno.stat(paths.sqlite).then(() => true, () => false);
  if (await hasPgliteStore(dataDir)) {
    if (exists) {
      throw new PersistenceError(
        "database",
        `Cannot choose the embedded database: "${dataDir}" holds both "${SQLITE_FILE}" and an unconverted PGlite ` +
          `store "pglite"; move away the one that does not hold the current data (after a conversion that was ` +
          `interrupted, "pglite" can go) and start again`,
      );
    }
    try {
      await convertPgliteStoreInWorker(dataDir, log, now);
    } catch (error) {
      const why = errorText(error);
      const advice = isDiskFull(why) ? "free space on the disk that holds data_dir, then " : "";
      throw new PersistenceError(
        "database",
        `Cannot convert the PGlite store in "${paths.pglite}" to SQLite: ${why}; it is left as it was \u2014 ` +
          `${advice}run \`${convertCommand(dataDir)}\` to convert it (or start an older Chorus on it)`,
        { cause: error },
      );
    }
  }
  const started = performance.now();
  try {
    const db = SqliteStoreDb.open(paths.sqlite);
    log.info(exists ? "embedded database open" : "embedded database created", {
      file: paths.sqlite,
      ms: Math.round(performance.now() - started),
    });
    return db;
  } catch (error) {
    throw embeddedFailure(paths.sqlite, exists ? "open" : "create", error);
  }
}

/**
 * Says which step failed on which file, and what to do about the disk: SQLite
 * reports a full disk while it maps its shared-memory file as a plain
 * "disk I/O error".
 */
function embeddedFailure(file: string, step: string, error: unknown): PersistenceError {
  const why = errorText(error);
  const advice = isDiskFull(why)
    ? "; free space on the disk that holds data_dir and start again"
    : /disk I\/O error/.test(why)
    ? "; check that the disk that holds data_dir has free space and works, then start again"
    : "";
  return new PersistenceError("database", `Cannot ${step} the embedded database "${file}": ${why}${advice}`, {
    cause: error,
  });
}

/** The database as messages name it: never the URL (it may hold a password). */
export function describeDatabase(config: { readonly data_dir: string; readonly database_url: string | null }): string {
  if (!config.database_url) return `the embedded database "${storePaths(config.data_dir).sqlite}"`;
  const { host, database } = describeUrl(config.database_url);
  return `the PostgreSQL database "${database}" on ${host}`;
}
