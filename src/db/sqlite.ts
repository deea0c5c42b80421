/**
 * SQLite backend of the {@link Db} seam through Deno's built-in `node:sqlite`
 * (platform.md §4: no flags needed beyond file permissions). Statements use
 * PostgreSQL-style `$n` parameters, rewritten to SQLite's numbered `?n` so a
 * parameter may appear twice or out of order. `DatabaseSync` is synchronous,
 * so an async transaction holds a lock: other callers wait until it ends
 * instead of running their statements inside it.
 *
 * @module
 */

import { DatabaseSync, type SQLInputValue } from "node:sqlite";
import { type Db, DbError, type DbParam, type DbQueryable, type DbRow } from "./types.ts";

/** Rewrites `$n` placeholders outside quoted text and comments to `?n`. */
export function toSqliteParams(sql: string): string {
  let out = "";
  let i = 0;
  while (i < sql.length) {
    const c = sql[i]!;
    if (c === "'" || c === '"') {
      const end = closingQuote(sql, i, c);
      out += sql.slice(i, end);
      i = end;
    } else if (c === "-" && sql[i + 1] === "-") {
      const end = sql.indexOf("\n", i);
      const stop = end === -1 ? sql.length : end;
      out += sql.slice(i, stop);
      i = stop;
    } else if (c === "$" && /[0-9]/.test(sql[i + 1] ?? "")) {
      let j = i + 1;
      while (j < sql.length && /[0-9]/.test(sql[j]!)) j++;
      out += "?" + sql.slice(i + 1, j);
      i = j;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

function closingQuote(sql: string, start: number, quote: string): number {
  let i = start + 1;
  while (i < sql.length) {
    if (sql[i] === quote) {
      if (sql[i + 1] === quote) i += 2; // doubled quote inside the literal
      else return i + 1;
    } else i++;
  }
  return sql.length;
}

function bind(params: readonly DbParam[]): SQLInputValue[] {
  return params.map((p) => typeof p === "boolean" ? (p ? 1 : 0) : p);
}

/** A SQLite database file (or `:memory:`). */
export class SqliteDb implements Db {
  readonly dialect = "sqlite" as const;
  readonly #db: DatabaseSync;
  /** Resolves when the last queued transaction ends. */
  #held: Promise<void> = Promise.resolve();
  /** True while a transaction holds the connection. */
  #inTx = false;
  #closed = false;

  private constructor(db: DatabaseSync) {
    this.#db = db;
  }

  /**
   * Opens (creating when missing) the database at `path`. WAL with full sync:
   * a committed write survives a crash of the process or the machine; a busy
   * file (another process writing) is waited on for up to 5 s.
   */
  static open(path: string): SqliteDb {
    let db: DatabaseSync;
    try {
      db = new DatabaseSync(path);
      db.exec("PRAGMA busy_timeout = 5000");
      if (path !== ":memory:") db.exec("PRAGMA journal_mode = WAL");
      db.exec("PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON");
    } catch (error) {
      throw new DbError(`Cannot open the database file "${path}": ${error instanceof Error ? error.message : error}`, {
        cause: error,
      });
    }
    return new SqliteDb(db);
  }

  #run<T extends DbRow>(sql: string, params: readonly DbParam[]): T[] {
    if (this.#closed) throw new DbError("Cannot run a statement: the database is closed");
    const stmt = this.#db.prepare(toSqliteParams(sql));
    // Statements that return no rows (INSERT without RETURNING, DDL) still go through all().
    return stmt.all(...bind(params)) as T[];
  }

  #direct: DbQueryable = {
    query: <T extends DbRow = DbRow>(sql: string, params: readonly DbParam[] = []) =>
      Promise.resolve(this.#run<T>(sql, params)),
    exec: (script: string) => {
      if (this.#closed) return Promise.reject(new DbError("Cannot run a script: the database is closed"));
      this.#db.exec(script);
      return Promise.resolve();
    },
  };

  /** Waits until no transaction holds the connection (a later one may have started meanwhile). */
  async #idle(): Promise<void> {
    while (this.#inTx) await this.#held;
  }

  async query<T extends DbRow = DbRow>(sql: string, params: readonly DbParam[] = []): Promise<T[]> {
    await this.#idle();
    return this.#run<T>(sql, params);
  }

  async exec(script: string): Promise<void> {
    await this.#idle();
    await this.#direct.exec(script);
  }

  async transaction<T>(fn: (tx: DbQueryable) => Promise<T>): Promise<T> {
    // Queue behind the transactions before this one, then hold the connection until this one ends.
    const { promise: done, resolve: release } = Promise.withResolvers<void>();
    const previous = this.#held;
    this.#held = previous.then(() => done);
    await previous;
    await this.#idle();
    this.#inTx = true;
    try {
      this.#db.exec("BEGIN IMMEDIATE");
      try {
        const result = await fn(this.#direct);
        this.#db.exec("COMMIT");
        return result;
      } catch (error) {
        if (this.#db.isTransaction) this.#db.exec("ROLLBACK");
        throw error;
      }
    } finally {
      this.#inTx = false;
      release();
    }
  }

  async close(): Promise<void> {
    await this.#held;
    await this.#idle();
    if (this.#closed) return;
    this.#closed = true;
    this.#db.close();
  }
}
