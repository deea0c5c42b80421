/**
 * Converting a data directory of a server from before issue 15 -- its store
 * in PGlite under `data_dir/pglite` -- to the SQLite file that is the
 * embedded store now (`sqlite_store_db.ts`). `open_store.ts` runs it on the
 * first start that finds `pglite/PG_VERSION`; `chorus convert-store` runs
 * it by hand. PGlite is imported here, on demand, and nowhere else; `start`
 * converts in a worker thread that is terminated afterwards.
 *
 * Steps: the old database is migrated to this schema (an older server may
 * have left it behind), a new file `chorus.sqlite.converting` gets the
 * schema, every table is copied in chunks and its row count compared, the
 * file is checkpointed (synced), then renamed to `chorus.sqlite`, and only
 * then the old directory to `pglite.converted` -- a crash in between leaves
 * either the old directory alone (converted again on the next start) or
 * both, which `open_store.ts` refuses with a clear message.
 *
 * @module
 */

import type { Logger } from "../../util/log.ts";
import type { ConvertWorkerMessage } from "./pglite_convert_worker.ts";
import { migrate } from "./migrations.ts";
import { SQLITE_FILE, SqliteStoreDb } from "./sqlite_store_db.ts";
import type { SqlDb } from "./sql_db.ts";
import { num } from "./sql_db.ts";
import { workerScript } from "../../util/program_files.ts";

/** Rows per copied chunk (one SQLite transaction each). */
const CHUNK = 2000;

/** Where the old and the new store of a data directory live. */
export function storePaths(dataDir: string): { pglite: string; sqlite: string; converted: string } {
  return { pglite: `${dataDir}/pglite`, sqlite: `${dataDir}/${SQLITE_FILE}`, converted: `${dataDir}/pglite.converted` };
}

/** Whether `dataDir` holds an old PGlite store that has not been converted. */
export async function hasPgliteStore(dataDir: string): Promise<boolean> {
  return await Deno.stat(`${storePaths(dataDir).pglite}/PG_VERSION`).then(() => true, () => false);
}

/** What a conversion copied. */
export interface ConvertResult {
  /** Rows copied, by table. */
  readonly tables: Readonly<Record<string, number>>;
  /** Where the old directory went. */
  readonly movedTo: string;
  readonly ms: number;
}

/** The command that converts a data directory by hand (named in the refusal). */
export function convertCommand(dataDir: string): string {
  return `deno task convert-store --data-dir ${JSON.stringify(dataDir)}`;
}

/**
 * Converts `dataDir/pglite` into `dataDir/chorus.sqlite`. The caller holds
 * the directory's owner lock and has checked that no `chorus.sqlite` exists.
 * Throws (leaving the old directory as it was) when any step fails.
 */
export async function convertPgliteStore(dataDir: string, log: Logger, now: number): Promise<ConvertResult> {
  const started = performance.now();
  const paths = storePaths(dataDir);
  const tmp = `${paths.sqlite}.converting`;
  for (const f of [tmp, `${tmp}-wal`, `${tmp}-shm`]) await Deno.remove(f).catch(() => {});
  log.info("converting the PGlite store to SQLite (once; PGlite is loaded for it only)", {
    from: paths.pglite,
    to: paths.sqlite,
  });
  const { PgliteDb } = await import("./pglite_db.ts");
  const old = await PgliteDb.open(paths.pglite);
  let lite: SqliteStoreDb | null = null;
  const tables: Record<string, number> = {};
  try {
    await migrate(old, log, now);
    lite = SqliteStoreDb.open(tmp);
    await migrate(lite, log, now);
    const names = await lite.query(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name",
    );
    for (const { name } of names) tables[String(name)] = await copyTable(old, lite, String(name));
    await lite.checkpoint();
  } finally {
    await lite?.close().catch(() => {});
    await old.close().catch(() => {});
  }
  await Deno.rename(tmp, paths.sqlite);
  const movedTo = await freeName(paths.converted);
  await Deno.rename(paths.pglite, movedTo);
  const ms = Math.round(performance.now() - started);
  log.info(
    "converted the PGlite store to SQLite; the old directory is kept, delete it once satisfied",
    {
      to: paths.sqlite,
      old: movedTo,
      rows: Object.values(tables).reduce((a, b) => a + b, 0),
      ms,
    },
  );
  return { tables, movedTo, ms };
}

/** Copies every row of `table` (the rows `migrate` put there first are replaced); returns the count, verified. */
async function copyTable(from: SqlDb, to: SqliteStoreDb, table: string): Promise<number> {
  const cols = await to.query("SELECT name, type FROM pragma_table_info($1) ORDER BY cid", [table]);
  const names = cols.map((c) => String(c.name));
  const json = new Set(cols.filter((c) => String(c.type).toUpperCase() === "JSONTEXT").map((c) => String(c.name)));
  const list = names.map((n) => `"${n}"`).join(", ");
  const insert = `INSERT INTO "${table}" (${list}) VALUES (${names.map((_, i) => `$${i + 1}`).join(", ")})`;
  await to.query(`DELETE FROM "${table}"`);
  let copied = 0;
  let after = "(0,0)";
  for (;;) {
    // Chunks in physical order from where the last one ended (a TID range scan, no sort).
    const rows = await from.query(
      `SELECT ctid::text AS chorus_ctid, ${list} FROM "${table}" WHERE ctid > $1::tid ORDER BY ctid LIMIT ${CHUNK}`,
      [after],
    );
    if (rows.length === 0) break;
    after = String(rows.at(-1)!.chorus_ctid);
    await to.transaction(async (tx) => {
      for (const row of rows) {
        // jsonb arrives parsed (a string value included): store its JSON text.
        await tx.query(insert, names.map((n) => json.has(n) && row[n] !== null ? JSON.stringify(row[n]) : row[n]));
      }
    });
    copied += rows.length;
    if (rows.length < CHUNK) break;
  }
  const [a] = await from.query(`SELECT COUNT(*) AS n FROM "${table}"`);
  const [b] = await to.query(`SELECT COUNT(*) AS n FROM "${table}"`);
  if (num(a?.n) !== copied || num(b?.n) !== copied) {
    throw new Error(`table ${table}: ${num(a?.n)} rows in PGlite, ${copied} read, ${num(b?.n)} in SQLite`);
  }
  return copied;
}

/**
 * {@link convertPgliteStore} in a worker thread (`pglite_convert_worker.ts`),
 * terminated afterwards: a process does not give PGlite's WebAssembly memory
 * back (measured: ~225 MB RSS after converting in `start`'s own thread, ~120
 * MB after a plain start). Where no worker can start (a binary built without
 * the script), it converts in this thread and says that a restart returns
 * the memory.
 */
export async function convertPgliteStoreInWorker(dataDir: string, log: Logger, now: number): Promise<ConvertResult> {
  let worker: Worker;
  try {
    worker = new Worker(workerScript("src/persistence/backends/pglite_convert_worker.ts"), { type: "module" });
  } catch (error) {
    log.warn("converting in the server's thread (no worker); restart once afterwards to return PGlite's memory", {
      error: error instanceof Error ? error.message : String(error),
    });
    return await convertPgliteStore(dataDir, log, now);
  }
  try {
    return await new Promise<ConvertResult>((resolve, reject) => {
      worker.onmessage = (e: MessageEvent<ConvertWorkerMessage>) => {
        const m = e.data;
        if (m.t === "log") log[m.level](m.msg, m.fields);
        else if (m.t === "done") resolve(m.result);
        else reject(new Error(m.message));
      };
      worker.onerror = (e) => {
        e.preventDefault();
        reject(new Error(e.message));
      };
      worker.postMessage({ dataDir, now });
    });
  } finally {
    worker.terminate();
  }
}

/** `path`, or `path.2`, `path.3`, ... when taken. */
async function freeName(path: string): Promise<string> {
  for (let i = 1;; i++) {
    const candidate = i === 1 ? path : `${path}.${i}`;
    if (!(await Deno.stat(candidate).then(() => true, () => false))) return candidate;
  }
}
