/**
 * How the embedded database is configured, shared by the in-process
 * backend (`pglite_db.ts`) and the worker (`pglite_worker.ts`); this module
 * does not load PGlite itself.
 *
 * Memory (measured, BENCHMARKS.md "Persistence"): PGlite's WebAssembly
 * module declares 2048 pages, so `initialMemory` cannot go below 128 MiB;
 * what grows RSS beyond that is PostgreSQL's own `shared_buffers` (128 MB by
 * default). With the settings below a warm start idles near 170 MB RSS
 * instead of ~290 MB. The settings are rewritten into the directory's
 * `postgresql.conf` on every open.
 *
 * @module
 */

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

/** Type OID of int8 (bigint). */
const INT8 = 20;

/** PGlite's options for a database with `initialMemory` (int8 → number, as `sql_db.ts` promises). */
export function pgliteOptions(initialMemory: number): {
  initialMemory: number;
  postgresqlconf: string[];
  parsers: Record<number, (value: string) => unknown>;
} {
  return {
    initialMemory,
    postgresqlconf: [...PGLITE_SETTINGS],
    parsers: { [INT8]: (value: string) => Number(value) },
  };
}

/** Whether `dir` holds a PostgreSQL data directory already (initdb has run). */
export async function hasDataDir(dir: string): Promise<boolean> {
  try {
    await Deno.stat(`${dir}/PG_VERSION`);
    return true;
  } catch {
    return false;
  }
}
