/**
 * PGlite (PostgreSQL compiled to WebAssembly), only to read the data
 * directories of servers from before issue 15, which kept their store
 * there: `pglite_convert.ts` imports this module on demand, so PGlite (and
 * its 128 MiB of WebAssembly memory) is loaded only while a directory is
 * converted. It speaks the PostgreSQL dialect.
 *
 * @module
 */

import { PGlite, type Transaction } from "@electric-sql/pglite";
import type { Queryable, Row, SqlDb } from "./sql_db.ts";

/** Type OID of int8 (bigint). */
const INT8 = 20;

function wrap(q: PGlite | Transaction): Queryable {
  return {
    async query<T extends Row = Row>(sql: string, params: readonly unknown[] = []): Promise<T[]> {
      return (await q.query<T>(sql, params as unknown[])).rows;
    },
    async exec(script: string): Promise<void> {
      await q.exec(script);
    },
  };
}

/** PGlite behind the {@link SqlDb} seam. */
export class PgliteDb implements SqlDb {
  readonly backend = "postgres" as const;
  readonly #db: PGlite;
  readonly #q: Queryable;

  private constructor(db: PGlite) {
    this.#db = db;
    this.#q = wrap(db);
  }

  /** Opens (creating when missing) the database in `dir` (in memory when omitted). The caller holds the owner lock. */
  static async open(dir?: string): Promise<PgliteDb> {
    // int8 -> number, as `sql_db.ts` promises; small buffers, as the old embedded store ran.
    const db = await PGlite.create(dir ?? "memory://", {
      parsers: { [INT8]: (value: string) => Number(value) },
      postgresqlconf: ["shared_buffers=16MB", "work_mem=2MB"],
    });
    return new PgliteDb(db);
  }

  query<T extends Row = Row>(sql: string, params?: readonly unknown[]): Promise<T[]> {
    return this.#q.query<T>(sql, params);
  }

  exec(script: string): Promise<void> {
    return this.#q.exec(script);
  }

  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.#db.transaction((tx) => fn(wrap(tx)));
  }

  /** Writes dirty pages out (the old directory is only read; a test writes it). */
  async checkpoint(): Promise<void> {
    await this.#db.exec("CHECKPOINT");
  }

  async close(): Promise<void> {
    if (!this.#db.closed) await this.#db.close();
  }
}
