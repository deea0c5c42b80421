/**
 * PostgreSQL backend of the {@link Db} seam through npm `postgres`. The URL
 * holds a password: messages name only the host and the database. The
 * database is created when it does not exist yet, so a role pointed at a
 * fresh server needs no set-up.
 *
 * @module
 */

import postgres from "postgres";
import { type Db, DbError, type DbParam, type DbQueryable, type DbRow } from "./types.ts";

type Sql = postgres.Sql<Record<string, never>>;
type Tx = postgres.TransactionSql<Record<string, never>>;

/** Where a URL points, without credentials (for messages). */
export function describeDbUrl(url: string): string {
  try {
    const u = new URL(url);
    const database = decodeURIComponent(u.pathname.replace(/^\//, "")) || "postgres";
    return `the PostgreSQL database "${database}" on ${u.host || "localhost"}`;
  } catch {
    return "the PostgreSQL database (URL not shown)";
  }
}

function connect(url: string, max: number): Sql {
  return postgres(url, {
    max,
    onnotice: () => {},
    connect_timeout: 10,
    idle_timeout: 60,
    connection: { application_name: "chorus" },
    // int8 arrives as a string unless parsed; ids and epoch milliseconds fit in 2^53.
    types: { int8: { to: 20, from: [20], serialize: (x: number) => String(x), parse: (x: string) => Number(x) } },
  }) as unknown as Sql;
}

function wrap(q: Sql | Tx): DbQueryable {
  return {
    async query<T extends DbRow = DbRow>(sql: string, params: readonly DbParam[] = []): Promise<T[]> {
      return [...await q.unsafe(sql, params as postgres.ParameterOrJSON<never>[])] as unknown as T[];
    },
    async exec(script: string): Promise<void> {
      await q.unsafe(script).simple();
    },
  };
}

function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A PostgreSQL pool. */
export class PostgresRoleDb implements Db {
  readonly dialect = "postgres" as const;
  readonly #sql: Sql;
  readonly #q: DbQueryable;

  private constructor(sql: Sql) {
    this.#sql = sql;
    this.#q = wrap(sql);
  }

  /** Connects, creating the database first when it does not exist. */
  static async open(url: string, poolSize = 4): Promise<PostgresRoleDb> {
    const where = describeDbUrl(url);
    let sql = connect(url, poolSize);
    try {
      await sql.unsafe("SELECT 1");
    } catch (error) {
      await sql.end({ timeout: 1 }).catch(() => {});
      // 3D000: the database does not exist.
      if ((error as { code?: string }).code !== "3D000") {
        throw new DbError(`Cannot connect to ${where}: ${reason(error)}`, { cause: error });
      }
      await createDatabase(url, where);
      sql = connect(url, poolSize);
      try {
        await sql.unsafe("SELECT 1");
      } catch (again) {
        await sql.end({ timeout: 1 }).catch(() => {});
        throw new DbError(`Cannot connect to ${where}: ${reason(again)}`, { cause: again });
      }
    }
    return new PostgresRoleDb(sql);
  }

  query<T extends DbRow = DbRow>(sql: string, params?: readonly DbParam[]): Promise<T[]> {
    return this.#q.query<T>(sql, params);
  }

  exec(script: string): Promise<void> {
    return this.#q.exec(script);
  }

  transaction<T>(fn: (tx: DbQueryable) => Promise<T>): Promise<T> {
    return this.#sql.begin((tx) => fn(wrap(tx as unknown as Tx))) as Promise<T>;
  }

  async close(): Promise<void> {
    await this.#sql.end({ timeout: 5 });
  }
}

async function createDatabase(url: string, where: string): Promise<void> {
  const admin = new URL(url);
  const database = decodeURIComponent(admin.pathname.replace(/^\//, ""));
  admin.pathname = "/postgres";
  const sql = connect(admin.href, 1);
  try {
    await sql.unsafe(`CREATE DATABASE "${database.replaceAll('"', '""')}"`);
  } catch (error) {
    // 42P04: someone else created it meanwhile.
    if ((error as { code?: string }).code !== "42P04") {
      throw new DbError(`Cannot create ${where}: ${reason(error)}`, { cause: error });
    }
  } finally {
    await sql.end({ timeout: 1 }).catch(() => {});
  }
}
