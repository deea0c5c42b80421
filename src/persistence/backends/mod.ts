/**
 * The databases behind persistence (issue 5 "Stores"): one SQL seam over
 * SQLite (embedded, `node:sqlite`; issue 15) and PostgreSQL, opening and
 * locking them, converting an old PGlite store, and the schema migrations.
 *
 * @module
 */

export { isTransientDbError, num, numOrNull } from "./sql_db.ts";
export type { Backend, Queryable, Row, SqlDb } from "./sql_db.ts";
export { checkDataDir, describeDatabase, openStore } from "./open_store.ts";
export type { OpenedStore, OpenStoreOptions } from "./open_store.ts";
// postgres.js is not re-exported: `open_store.ts` loads it on demand when `database_url` is set (issue 15); code
// that needs the driver itself imports `postgres_db.ts`. SQLite is Deno's built-in `node:sqlite`.
export { describeUrl } from "./postgres_url.ts";
export { SQLITE_APPLY_BATCH_BYTES, SQLITE_FILE, SqliteStoreDb } from "./sqlite_store_db.ts";
export { convertCommand, convertPgliteStore, hasPgliteStore, storePaths } from "./pglite_convert.ts";
export type { ConvertResult } from "./pglite_convert.ts";
export { migrate, MIGRATIONS, SCHEMA_VERSION } from "./migrations.ts";
export type { MigrateResult, Migration } from "./migrations.ts";
