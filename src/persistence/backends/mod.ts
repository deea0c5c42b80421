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
// The drivers (PGlite, postgres.js) are not re-exported: `open_store.ts` loads the configured one on demand (issue 15);
// code that needs a driver itself imports its module.
export type { PgliteOptions } from "./pglite_db.ts";
export { describeUrl } from "./postgres_url.ts";
export { PGLITE_INITIAL_MEMORY, PGLITE_SETTINGS } from "./pglite_config.ts";
export { migrate, MIGRATIONS, SCHEMA_VERSION } from "./migrations.ts";
export type { MigrateResult, Migration } from "./migrations.ts";
