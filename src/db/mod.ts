/**
 * The roles' own stores (monitor proxy, account backend, companion services):
 * one small SQL seam over SQLite (embedded default) and PostgreSQL, with
 * numbered migrations.
 *
 * @module
 */

export * from "./types.ts";
export { expandMacros, migrate, type Migration, migrationScript } from "./migrate.ts";
export { type DbLocation, openDb } from "./open.ts";
export { SqliteDb, type SqliteSync, toSqliteParams } from "./sqlite.ts";
export { describeDbUrl, PostgresRoleDb } from "./postgres.ts";
