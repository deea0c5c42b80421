/**
 * `chorus convert-store`: converts the PGlite store of a data directory from
 * before issue 15 (`data_dir/pglite`) into the SQLite file the embedded
 * store is now (`data_dir/chorus.sqlite`). `start` does the same on its
 * first start; this role is what its refusal names when that failed, and
 * prints each table's row count. The server must not be running (it takes
 * the data directory's lock).
 *
 * @module
 */

import { convertPgliteStore, DataDirLock, hasPgliteStore, storePaths } from "../persistence/mod.ts";
import { LogHub } from "../util/log.ts";
import { EXIT, print } from "./role.ts";
import type { ServerRole } from "./server_role.ts";

/** The `convert-store` role. */
export const convertStore: ServerRole = {
  name: "convert-store",
  summary: "convert an old PGlite store (data_dir/pglite) to the SQLite file the embedded store uses now",
  usage: [
    "Converts data_dir/pglite (the embedded store of Chorus before SQLite) into data_dir/chorus.sqlite, compares",
    "every table's row count, and renames the old directory to data_dir/pglite.converted. The server must be",
    "stopped. `start` converts on its own; run this when it refused to start because the conversion failed.",
  ],
  run: async (run) => {
    const { config } = run.loaded;
    const log = new LogHub({ level: config.log_level, format: config.log_format }).logger();
    const paths = storePaths(config.data_dir);
    if (!(await hasPgliteStore(config.data_dir))) {
      print(`Nothing to convert: "${paths.pglite}" holds no PGlite store.`);
      return EXIT.ok;
    }
    if (await Deno.stat(paths.sqlite).then(() => true, () => false)) {
      print(`Cannot convert: "${paths.sqlite}" exists already; move it away first if "${paths.pglite}" is the data.`);
      return EXIT.runtime;
    }
    let lock: DataDirLock;
    try {
      lock = DataDirLock.acquire(config.data_dir, log, Date.now());
    } catch (error) {
      print(error instanceof Error ? error.message : String(error));
      return EXIT.runtime;
    }
    try {
      const result = await convertPgliteStore(config.data_dir, log, Date.now());
      print([
        `Converted "${paths.pglite}" to "${paths.sqlite}" in ${result.ms} ms; the old directory is now "${result.movedTo}".`,
        ...Object.entries(result.tables).map(([table, rows]) => `  ${table}: ${rows} rows`),
      ]);
      return EXIT.ok;
    } catch (error) {
      print(`Cannot convert "${paths.pglite}": ${error instanceof Error ? error.message : String(error)}`);
      return EXIT.runtime;
    } finally {
      lock.release();
    }
  },
};
