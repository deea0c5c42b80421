/**
 * The databases behind persistence (issue 5 "Stores"): one SQL seam over
 * PGlite (embedded, in a worker thread) and PostgreSQL, opening and locking
 * them, and the schema migrations.
 *
 * @module
 */

export { isTransientDbError, num, numOrNull } from "./sql_db.ts";
export type { Backend, Queryable, Row, SqlDb } from "./sql_db.ts";
export { checkDataDir, describeDatabase, openStore } from "./open_store.ts";
export type { OpenedStore, OpenStoreOptions } from "./open_store.ts";
export { PgliteDb } from "./pglite_db.ts";
export type { PgliteOptions } from "./pglite_db.ts";
export { PgliteWorkerDb } from "./pglite_worker_db.ts";
export { describeUrl, PostgresDb } from "./postgres_db.ts";
export { PGLITE_INITIAL_MEMORY, PGLITE_SETTINGS } from "./pglite_config.ts";
export { migrate, MIGRATIONS, SCHEMA_VERSION } from "./migrations.ts";
export type { MigrateResult, Migration } from "./migrations.ts";
