/**
 * The PostgreSQL backend through npm `postgres` (issue 5: used when
 * `database_url`, `PM_DATABASE_URL` or `PM_DATABASE_URL_FILE` is set; the
 * database is created when it is missing, as PMP does -- extended.md §6).
 * The URL holds a password: it is never logged; messages name only the host
 * and the database.
 *
 * @module
 */

import postgres from "postgres";
import type { Logger } from "../../util/log.ts";
import { PostgresOwnerLock } from "./postgres_owner_lock.ts";
import { describeUrl } from "./postgres_url.ts";
import type { Queryable, Row, SqlDb } from "./sql_db.ts";
import { errorText, PersistenceError } from "../types.ts";

type Sql = postgres.Sql<Record<string, never>>;
type Tx = postgres.TransactionSql<Record<string, never>>;

export { describeUrl };

function connect(url: string, max: number): Sql {
  return postgres(url, {
    max,
    onnotice: () => {},
    connect_timeout: 10,
    idle_timeout: 60,
    connection: { application_name: "chorus" },
    // platform.md §4: int8 arrives as a string unless parsed; numbers here fit in 2^53.
    types: { int8: { to: 20, from: [20], serialize: (x: number) => String(x), parse: (x: string) => Number(x) } },
  }) as unknown as Sql;
}

function wrap(q: Sql | Tx): Queryable {
  return {
    async query<T extends Row = Row>(sql: string, params: readonly unknown[] = []): Promise<T[]> {
      return [...await q.unsafe(sql, params as postgres.ParameterOrJSON<never>[])] as unknown as T[];
    },
    async exec(script: string): Promise<void> {
      await q.unsafe(script).simple();
    },
  };
}

/** A PostgreSQL pool behind the {@link SqlDb} seam. */
export class PostgresDb implements SqlDb {
  readonly backend = "postgres" as const;
  readonly #sql: Sql;
  readonly #q: Queryable;
  readonly #url: string;
  #owner: PostgresOwnerLock | null = null;

  private constructor(sql: Sql, url: string) {
    this.#sql = sql;
    this.#q = wrap(sql);
    this.#url = url;
  }

  /**
   * Makes this process the database's one owner (`postgres_owner_lock.ts`)
   * until {@link close}; throws a `locked` error naming the database when
   * another server is.
   */
  async lockOwner(log: Logger): Promise<void> {
    if (this.#owner) return;
    const { host, database } = describeUrl(this.#url);
    this.#owner = await PostgresOwnerLock.acquire(this.#url, log, `the PostgreSQL database "${database}" on ${host}`);
  }

  /** Takes the owner lock again if its connection was lost (called by the heartbeat). */
  async keepOwnerLock(): Promise<void> {
    await this.#owner?.keep();
  }

  /** Connects, creating the database first when it does not exist. */
  static async open(url: string, log: Logger, poolSize = 4): Promise<PostgresDb> {
    const { host, database } = describeUrl(url);
    let sql = connect(url, poolSize);
    try {
      await sql.unsafe("SELECT 1");
    } catch (error) {
      await sql.end({ timeout: 1 }).catch(() => {});
      if ((error as { code?: string }).code !== "3D000") throw cannotConnect(host, database, error);
      await createDatabase(url, database, log);
      sql = connect(url, poolSize);
      try {
        await sql.unsafe("SELECT 1");
      } catch (again) {
        await sql.end({ timeout: 1 }).catch(() => {});
        throw cannotConnect(host, database, again);
      }
    }
    return new PostgresDb(sql, url);
  }

  query<T extends Row = Row>(sql: string, params?: readonly unknown[]): Promise<T[]> {
    return this.#q.query<T>(sql, params);
  }

  exec(script: string): Promise<void> {
    return this.#q.exec(script);
  }

  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.#sql.begin((tx) => fn(wrap(tx as unknown as Tx))) as Promise<T>;
  }

  /** A PostgreSQL server makes commits durable itself. */
  checkpoint(): Promise<void> {
    return Promise.resolve();
  }

  async close(): Promise<void> {
    try {
      await this.#sql.end({ timeout: 5 });
    } finally {
      await this.#owner?.release();
    }
  }
}

/** `CREATE DATABASE` through the `postgres` maintenance database of the same server. */
async function createDatabase(url: string, database: string, log: Logger): Promise<void> {
  const admin = new URL(url);
  admin.pathname = "/postgres";
  const sql = connect(admin.href, 1);
  try {
    await sql.unsafe(`CREATE DATABASE "${database.replaceAll('"', '""')}"`);
    log.info("created the database", { database, host: admin.host });
  } catch (error) {
    // 42P04: someone else created it meanwhile.
    if ((error as { code?: string }).code !== "42P04") {
      throw new PersistenceError(
        "database",
        `Cannot create the database "${database}" on ${admin.host}: ${errorText(error)}`,
        { cause: error },
      );
    }
  } finally {
    await sql.end({ timeout: 1 }).catch(() => {});
  }
}

function cannotConnect(host: string, database: string, error: unknown): PersistenceError {
  return new PersistenceError(
    "database",
    `Cannot connect to the PostgreSQL database "${database}" on ${host}: ${errorText(error)}`,
    { cause: error },
  );
}
