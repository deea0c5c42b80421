/**
 * The small SQL seam of the roles' own stores (monitor proxy, account backend,
 * companion services): one interface, two backends -- SQLite through Deno's
 * built-in `node:sqlite` (the embedded default, a file under the role's data
 * directory) and PostgreSQL by URL. Statements are written once in the common
 * subset of both dialects with `$n` parameters; migrations may give a
 * statement per dialect where the two differ (identity columns).
 *
 * @module
 */

/** A result row. */
export type DbRow = Record<string, unknown>;

/** Which backend a database is. */
export type Dialect = "sqlite" | "postgres";

/** A parameter value both backends accept (booleans become 0/1 on SQLite). */
export type DbParam = string | number | bigint | boolean | null | Uint8Array;

/** Something that runs statements (the database, or an open transaction). */
export interface DbQueryable {
  /** Runs one statement with `$n` parameters and returns its rows. */
  query<T extends DbRow = DbRow>(sql: string, params?: readonly DbParam[]): Promise<T[]>;
  /** Runs a script of several statements without parameters. */
  exec(script: string): Promise<void>;
}

/** A database of either backend. */
export interface Db extends DbQueryable {
  /** The SQL dialect, for the few statements that differ. */
  readonly dialect: Dialect;
  /** Runs `fn` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: DbQueryable) => Promise<T>): Promise<T>;
  /** Closes the connection (pool); later calls fail. */
  close(): Promise<void>;
}

/** A failure to open or use a role's database; the message never holds a password. */
export class DbError extends Error {
  override readonly name = "DbError";
}

/** Numbers from integer columns: tolerate strings (int8 from PostgreSQL) and bigints. */
export function dbNum(value: unknown): number {
  return typeof value === "number" ? value : Number(value);
}

/** Booleans: PostgreSQL gives `true`/`false`, SQLite `1`/`0`. */
export function dbBool(value: unknown): boolean {
  return value === true || value === 1 || value === 1n || value === "t" || value === "true";
}
