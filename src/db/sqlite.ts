/**
 * SQLite backend of the {@link Db} seam through Deno's built-in `node:sqlite`
 * (platform.md §4: no flags needed beyond file permissions). Statements use
 * PostgreSQL-style `$n` parameters, rewritten to SQLite's numbered `?n` so a
 * parameter may appear twice or out of order. `DatabaseSync` is synchronous,
 * so an async transaction holds a lock: other callers wait until it ends
 * instead of running their statements inside it. Prepared statements are
 * cached per text (callers use a fixed set of texts). Rows come back as
 * plain objects; a column declared `BOOLEAN` reads as a boolean and one
 * declared `JSONTEXT` (the `{{json}}` macro of `migrate.ts`) as its parsed
 * JSON, as PostgreSQL's `boolean` and `jsonb` do.
 *
 * @module
 */

import { DatabaseSync, type SQLInputValue, type StatementSync } from "node:sqlite";
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

/** How a column's value is read back: as is, as a boolean, or as parsed JSON. */
type Decode = "raw" | "bool" | "json";

/** A prepared statement and how to read each of its result columns. */
interface Prepared {
  readonly stmt: StatementSync;
  /** Column names and decoders; null when every column is read as is. */
  readonly decode: readonly (readonly [string, Decode])[] | null;
}

/** Most distinct statement texts kept prepared; beyond it the cache starts over. */
const STATEMENT_CACHE = 256;

function prepare(db: DatabaseSync, sql: string): Prepared {
  const stmt = db.prepare(toSqliteParams(sql));
  const cols = stmt.columns().map((c) => {
    const type = c.type?.toUpperCase();
    return [c.name, type === "BOOLEAN" ? "bool" : type === "JSONTEXT" ? "json" : "raw"] as const;
  });
  return { stmt, decode: cols.some(([, d]) => d !== "raw") ? cols : null };
}

function decodeRow(row: Record<string, unknown>, decode: Prepared["decode"]): DbRow {
  if (decode === null) return { ...row };
  const out: DbRow = {};
  for (const [name, how] of decode) {
    const v = row[name];
    out[name] = v === null || how === "raw" ? v : how === "bool" ? Boolean(v) : JSON.parse(String(v));
  }
  return out;
}

/** The counts `PRAGMA wal_checkpoint` returns: busy (0 or 1), frames in the log, frames written into the file. */
export interface CheckpointCounts {
  readonly busy: number;
  readonly log: number;
  readonly checkpointed: number;
}

/** Throws unless a FULL checkpoint with these counts wrote the whole log into the file. */
export function assertCheckpointed(row: CheckpointCounts): void {
  // busy = 1: a reader or writer kept it from finishing; log > checkpointed: frames left behind.
  if (row.busy !== 0 || row.checkpointed < row.log) {
    throw new DbError(`Cannot checkpoint the database: ${row.checkpointed} of ${row.log} log frames written`);
  }
}

/** Durability of a commit: `full` syncs the log at every commit; `normal` only at checkpoints (see {@link SqliteDb.open}). */
export type SqliteSync = "full" | "normal";

/** A SQLite database file (or `:memory:`). */
export class SqliteDb implements Db {
  readonly dialect = "sqlite" as const;
  readonly #db: DatabaseSync;
  readonly #prepared = new Map<string, Prepared>();
  /** Resolves when the last queued transaction ends. */
  #held: Promise<void> = Promise.resolve();
  /** True while a transaction holds the connection. */
  #inTx = false;
  #closed = false;

  /** Milliseconds spent inside SQLite (see {@link busyMs}). */
  #busy = 0;
  readonly #now: () => number;

  private constructor(db: DatabaseSync, now: () => number) {
    this.#db = db;
    this.#now = now;
  }

  /**
   * Milliseconds this connection has spent running statements so far: the
   * calling thread is blocked meanwhile (`node:sqlite` is synchronous). The
   * embedded store moves its writes to a thread of their own by this figure.
   */
  get busyMs(): number {
    return this.#busy;
  }

  /** Runs a script, timed. */
  #script(sql: string): void {
    const start = this.#now();
    try {
      this.#db.exec(sql);
    } finally {
      this.#busy += this.#now() - start;
    }
  }

  /**
   * Opens (creating when missing) the database at `path`, in WAL mode; a busy
   * file (another process writing) is waited on for up to 5 s. With `full`
   * sync (the default) a committed write survives a crash of the process or
   * the machine. With `normal` it survives a crash of the process, and a
   * power loss once {@link checkpoint} has run: commits then write the log
   * without an fsync, which the game server's store uses because its journal
   * holds every record until a checkpoint (`src/persistence`).
   */
  static open(path: string, sync: SqliteSync = "full", now: () => number = () => performance.now()): SqliteDb {
    let db: DatabaseSync;
    try {
      db = new DatabaseSync(path);
      db.exec("PRAGMA busy_timeout = 5000");
      if (path !== ":memory:") db.exec("PRAGMA journal_mode = WAL");
      db.exec(`PRAGMA synchronous = ${sync === "full" ? "FULL" : "NORMAL"}; PRAGMA foreign_keys = ON`);
    } catch (error) {
      throw new DbError(`Cannot open the database file "${path}": ${error instanceof Error ? error.message : error}`, {
        cause: error,
      });
    }
    return new SqliteDb(db, now);
  }

  #run<T extends DbRow>(sql: string, params: readonly DbParam[]): T[] {
    if (this.#closed) throw new DbError("Cannot run a statement: the database is closed");
    let p = this.#prepared.get(sql);
    if (!p) {
      p = prepare(this.#db, sql);
      // DDL in a migration changes what later statements see: keep only statements of the steady state.
      if (this.#prepared.size >= STATEMENT_CACHE) this.#prepared.clear();
      if (!/^\s*(CREATE|DROP|ALTER)\b/i.test(sql)) this.#prepared.set(sql, p);
    }
    const start = this.#now();
    try {
      // Statements that return no rows (INSERT without RETURNING, DDL) still go through all().
      const rows = p.stmt.all(...bind(params)) as Record<string, unknown>[];
      return rows.map((r) => decodeRow(r, p.decode)) as T[];
    } finally {
      this.#busy += this.#now() - start;
    }
  }

  /**
   * Writes the log into the database file and syncs both (`wal_checkpoint(FULL)`):
   * afterwards everything committed survives a power loss, also with `normal` sync.
   */
  async checkpoint(): Promise<void> {
    await this.#idle();
    if (this.#closed) throw new DbError("Cannot checkpoint: the database is closed");
    const row = this.#db.prepare("PRAGMA wal_checkpoint(FULL)").get() as Partial<CheckpointCounts> | undefined;
    if (row) assertCheckpointed({ busy: row.busy ?? 0, log: row.log ?? 0, checkpointed: row.checkpointed ?? 0 });
  }

  #direct: DbQueryable = {
    query: <T extends DbRow = DbRow>(sql: string, params: readonly DbParam[] = []) =>
      Promise.resolve(this.#run<T>(sql, params)),
    exec: (script: string) => {
      if (this.#closed) return Promise.reject(new DbError("Cannot run a script: the database is closed"));
      this.#script(script);
      // A script may change the schema: statements prepared before it may no longer apply.
      this.#prepared.clear();
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
      this.#script("BEGIN IMMEDIATE");
      try {
        const result = await fn(this.#direct);
        this.#script("COMMIT");
        return result;
      } catch (error) {
        if (this.#db.isTransaction) this.#script("ROLLBACK");
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
    this.#prepared.clear();
    this.#db.close();
  }
}
