/**
 * One server per PostgreSQL database (issue 5; extended.md §6): a
 * session-level advisory lock held on a connection of its own for as long
 * as the store is open. Journal sequences are numbered per data directory
 * while the database keeps one applied watermark, so a second server on the
 * same database would have its records skipped as already applied
 * (`journal/identity.ts` fences that too). The connection has no idle
 * timeout and no maximum lifetime, so the pool's recycling never drops the
 * lock; if the connection is lost anyway (the server restarted), the lock
 * is taken again by {@link PostgresOwnerLock.keep} (the 30 s heartbeat).
 *
 * @module
 */

import postgres from "postgres";
import type { Logger } from "../../util/log.ts";
import { errorText, PersistenceError } from "../types.ts";

/** The advisory-lock key of the database owner (the migrations use 4_711_2026 as a transaction lock). */
export const OWNER_LOCK_KEY = 4_711_2027;

type Sql = postgres.Sql<Record<string, never>>;

/** The held owner lock of one database. */
export class PostgresOwnerLock {
  readonly #sql: Sql;
  readonly #log: Logger;
  readonly #label: string;
  #held = true;
  #closed = false;

  private constructor(sql: Sql, log: Logger, label: string) {
    this.#sql = sql;
    this.#log = log;
    this.#label = label;
  }

  /** Takes the lock or throws a `locked` {@link PersistenceError} naming the database (`label`) and the holder. */
  static async acquire(url: string, log: Logger, label: string): Promise<PostgresOwnerLock> {
    let lock: PostgresOwnerLock | null = null;
    const sql = postgres(url, {
      max: 1,
      idle_timeout: 0,
      max_lifetime: 0,
      connect_timeout: 10,
      onnotice: () => {},
      connection: { application_name: "chorus owner lock" },
      onclose: () => {
        if (lock) lock.#lost();
      },
    }) as unknown as Sql;
    try {
      if (!await tryLock(sql)) throw new PersistenceError("locked", await lockedMessage(sql, label));
    } catch (error) {
      await sql.end({ timeout: 1 }).catch(() => {});
      if (error instanceof PersistenceError) throw error;
      throw new PersistenceError("database", `Cannot lock ${label}: ${errorText(error)}`, { cause: error });
    }
    lock = new PostgresOwnerLock(sql, log, label);
    return lock;
  }

  /** False once the lock's connection was lost and until {@link keep} takes it again. */
  get held(): boolean {
    return this.#held;
  }

  /** Takes the lock again if its connection was lost; logs when another server has it now. */
  async keep(): Promise<void> {
    if (this.#held || this.#closed) return;
    try {
      if (await tryLock(this.#sql)) {
        this.#held = true;
        this.#log.info("owner lock of the database taken again", { database: this.#label });
      } else {
        this.#log.error("another server took the database over while its owner lock was lost", {
          database: this.#label,
          detail: await lockedMessage(this.#sql, this.#label),
        });
      }
    } catch (error) {
      this.#log.warn("cannot take the owner lock of the database again yet", { error: errorText(error) });
    }
  }

  /** Releases the lock (closing its connection does). */
  async release(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#sql.end({ timeout: 5 }).catch(() => {});
  }

  #lost(): void {
    if (this.#closed || !this.#held) return;
    this.#held = false;
    this.#log.error(
      "lost the owner lock of the database (its connection closed); taking it again at the next heartbeat",
      {
        database: this.#label,
      },
    );
  }
}

async function tryLock(sql: Sql): Promise<boolean> {
  const [row] = await sql.unsafe(`SELECT pg_try_advisory_lock(${OWNER_LOCK_KEY}) AS ok`);
  return row?.ok === true;
}

/** The refusal, naming who holds the lock when the server lets us see it. */
async function lockedMessage(sql: Sql, label: string): Promise<string> {
  let holder = "another Chorus server";
  try {
    const [row] = await sql.unsafe(
      `SELECT a.pid, host(a.client_addr) AS addr, a.application_name AS app, a.backend_start AS since
       FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
       WHERE l.locktype = 'advisory' AND l.classid = 0 AND l.objid = ${OWNER_LOCK_KEY} AND l.objsubid = 1 AND l.granted
         AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
    );
    if (row) {
      const from = row.addr ? ` from ${row.addr}` : " over a local socket";
      const since = row.since instanceof Date ? `, connected since ${row.since.toISOString()}` : "";
      holder = `another Chorus server (database backend ${row.pid}${from}${since})`;
    }
  } catch {
    // Not allowed to read pg_locks: name nobody.
  }
  return `Cannot use ${label}: ${holder} holds it. Servers sharing one database lose each other's records ` +
    `(each data_dir numbers its journal itself); stop that server, or give this one its own database_url.`;
}
