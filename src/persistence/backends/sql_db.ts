/**
 * The small SQL seam both backends implement (platform.md §4: a small
 * adapter with query and transaction): SQLite (embedded default, the one
 * adapter of `src/db/sqlite.ts`) and PostgreSQL. Statements are written in
 * the common subset of both dialects, with a variant per dialect where they
 * differ (`apply/sql.ts`). Rows come back with int8 values as numbers,
 * booleans as booleans and JSON columns parsed on both backends.
 *
 * @module
 */

import type { Dialect } from "../../db/types.ts";

/** A result row. */
export type Row = Record<string, unknown>;

/** Something that runs statements (the database, or an open transaction). */
export interface Queryable {
  /** Runs one statement with `$n` parameters. */
  query<T extends Row = Row>(sql: string, params?: readonly unknown[]): Promise<T[]>;
  /** Runs a script of several statements without parameters. */
  exec(script: string): Promise<void>;
}

/** One statement with its parameters (`apply/plan.ts` builds them). */
export interface SqlStatement {
  readonly sql: string;
  readonly params: readonly unknown[];
}

/**
 * What {@link SqlDb.runGuarded} checks inside its transaction before the
 * statements run: `sql` reads one row (none reads as all nulls); the
 * statements run only while that row's `below.column` (a number, null as 0)
 * is less than `below.value` and each column of `equal` holds exactly its
 * value (a column that is not text reads as null).
 */
export interface BatchGuard {
  readonly sql: string;
  readonly below: { readonly column: string; readonly value: number };
  readonly equal?: Readonly<Record<string, string | null>>;
}

/** The outcome of {@link SqlDb.runGuarded}: whether the statements ran (and committed), and the guard row read. */
export interface GuardedOutcome {
  readonly ran: boolean;
  readonly row: Row | undefined;
}

/** True when `row` passes `guard` (see {@link BatchGuard}); shared by every place that runs guarded batches. */
export function guardPasses(guard: BatchGuard, row: Row | undefined): boolean {
  if (num(row?.[guard.below.column] ?? 0) >= guard.below.value) return false;
  for (const [column, value] of Object.entries(guard.equal ?? {})) {
    const found = row?.[column];
    if ((typeof found === "string" ? found : null) !== value) return false;
  }
  return true;
}

/** Which backend a database is (and so which SQL dialect it speaks). */
export type Backend = Dialect;

/** A database connection (pool) of either backend. */
export interface SqlDb extends Queryable {
  readonly backend: Backend;
  /** Runs `fn` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /** Makes everything committed so far survive a power loss (the embedded store commits without an fsync). */
  checkpoint(): Promise<void>;
  /**
   * Optional: runs `statements` in one transaction whose first step reads
   * `guard`'s row; when the row does not pass it rolls back and returns the
   * row instead, so the caller decides what to run. Backends provide it when
   * they can run such a batch somewhere cheaper than the caller's thread
   * (SQLite: its worker thread once the store is busy); callers without it
   * use {@link transaction}.
   */
  runGuarded?(guard: BatchGuard, statements: readonly SqlStatement[]): Promise<GuardedOutcome>;
  /**
   * Heavy writes are coming (play began): a backend that moves its writes
   * off the event loop's thread when busy (the embedded store) does so now
   * rather than once it measured them.
   */
  expectBusy?(): void;
  /** Takes the database's owner lock again if it was lost (PostgreSQL; `postgres_owner_lock.ts`). */
  keepOwnerLock?(): Promise<void>;
  close(): Promise<void>;
}

/** SQLSTATE classes that mean "the database is unavailable now", not "this record is bad". */
const TRANSIENT_SQLSTATE_CLASSES = ["08", "53", "57", "58"];
/** Single SQLSTATEs worth retrying: serialization failure, deadlock. */
const TRANSIENT_SQLSTATES = ["40001", "40P01"];
/**
 * SQLite primary result codes of a busy or locked file, an I/O error and a
 * full disk (`node:sqlite` errors carry them as `errcode`, possibly
 * extended, except errors of `exec`, which carry only the message).
 */
const TRANSIENT_SQLITE_CODES = [5, 6, 10, 13];
/** The messages of those codes. */
const TRANSIENT_SQLITE_TEXT = /database is locked|database table is locked|disk I\/O error|database or disk is full/;
/**
 * The code of the error a batch rejects with when the embedded store's
 * thread stopped while it ran (`sqlite_thread.ts`): whether it committed is
 * unknown, so it is retried like a lost connection (its watermark makes a
 * second run skip what the first one committed).
 */
export const THREAD_LOST_CODE = "ERR_SQLITE_THREAD_LOST";
/** Client-side codes of postgres.js and Node for a lost or refused connection. */
const CONNECTION_CODES = [
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "CONNECT_TIMEOUT",
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
  THREAD_LOST_CODE,
];

/**
 * True when `error` says the database is down or overloaded, so the write
 * should wait and be retried as is; false when the write itself failed.
 */
export function isTransientDbError(error: unknown): boolean {
  if (error instanceof Deno.errors.ConnectionRefused || error instanceof Deno.errors.ConnectionReset) return true;
  if (error instanceof Deno.errors.BrokenPipe || error instanceof Deno.errors.TimedOut) return true;
  if (typeof error !== "object" || error === null) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code !== "string") return false;
  if (code === "ERR_SQLITE_ERROR") {
    const { errcode, message } = error as { errcode?: unknown; message?: unknown };
    if (typeof errcode === "number") return TRANSIENT_SQLITE_CODES.includes(errcode & 0xff);
    return typeof message === "string" && TRANSIENT_SQLITE_TEXT.test(message);
  }
  if (CONNECTION_CODES.includes(code) || TRANSIENT_SQLSTATES.includes(code)) return true;
  return /^[0-9A-Z]{5}$/.test(code) && TRANSIENT_SQLSTATE_CLASSES.includes(code.slice(0, 2));
}

/** Numbers from int8 columns: postgres.js gives strings unless configured; tolerate both. */
export function num(value: unknown): number {
  return typeof value === "number" ? value : Number(value);
}

/** Like {@link num} but keeps null. */
export function numOrNull(value: unknown): number | null {
  return value === null || value === undefined ? null : num(value);
}
