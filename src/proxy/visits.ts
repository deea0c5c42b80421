/**
 * Users who visited the game server (`UserVisit`, extended.md §5.2) for
 * `/visited` (spec 1 §2.2): ids arrive one by one from the room monitor,
 * wait in a bounded set and are written in batches every second (and before
 * every `/visited` answer) with `ON CONFLICT DO NOTHING`. A failed write
 * keeps the ids for the next attempt; nothing is lost while the database
 * is briefly away, and memory stays bounded when it is away for long.
 *
 * Game-monitor logins are reported with the negated id (protocol.md §3.5):
 * spectators are not visitors of the rooms, so only positive ids count.
 *
 * @module
 */

import { type Db, dbNum, type Migration } from "../db/mod.ts";
import type { Clock, TimerHandle } from "../util/clock.ts";
import type { Logger } from "../util/log.ts";

/** Schema of the proxy's store (component `proxy` in `chorus_schema`). */
export const PROXY_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    up: "CREATE TABLE proxy_visited_users (game_id INTEGER PRIMARY KEY, first_seen BIGINT NOT NULL)",
  },
];

/** Ids per INSERT statement. */
const BATCH = 500;

/** Options of {@link VisitStore}. */
export interface VisitStoreOptions {
  readonly db: Db;
  readonly clock: Clock;
  readonly log: Logger;
  /** Write interval, ms (default 1000). */
  readonly flushIntervalMs?: number;
  /** Ids kept in memory while the database cannot take them (default 100,000; the oldest go first). */
  readonly maxPending?: number;
}

/** The visited-user store. */
export class VisitStore {
  readonly #o: VisitStoreOptions;
  readonly #max: number;
  #pending = new Set<number>();
  #timer: TimerHandle | undefined;
  #flushing: Promise<void> | null = null;
  #dropped = 0;
  #failing = false;
  #stopped = false;

  constructor(options: VisitStoreOptions) {
    this.#o = options;
    this.#max = options.maxPending ?? 100_000;
  }

  /** Ids waiting to be written. */
  get pending(): number {
    return this.#pending.size;
  }

  /** Ids given up because the pending set was full. */
  get dropped(): number {
    return this.#dropped;
  }

  /** Records a visit (O(1)); negative and zero ids are ignored. */
  add(id: number): void {
    if (!(id > 0) || this.#stopped) return;
    this.#pending.add(id);
    if (this.#pending.size > this.#max) {
      const oldest = this.#pending.values().next().value!;
      this.#pending.delete(oldest);
      this.#dropped++;
    }
    this.#timer ??= this.#o.clock.setTimeout(() => {
      this.#timer = undefined;
      this.flush().catch(() => {});
    }, this.#o.flushIntervalMs ?? 1000);
  }

  /** Writes what is pending; rejects (keeping the ids) when the database fails. */
  flush(): Promise<void> {
    // One write at a time; a caller arriving during a write waits for it, then writes what came since.
    const run = async () => {
      while (this.#flushing) await this.#flushing.catch(() => {});
      if (this.#pending.size === 0) return;
      this.#flushing = this.#write();
      try {
        await this.#flushing;
      } finally {
        this.#flushing = null;
      }
    };
    return run();
  }

  /** Number of visitors (after writing what is pending). */
  async count(): Promise<number> {
    await this.flush();
    const rows = await this.#o.db.query("SELECT COUNT(*) AS n FROM proxy_visited_users");
    return dbNum(rows[0]?.n ?? 0);
  }

  /** All visitor ids, ascending (after writing what is pending). */
  async list(): Promise<number[]> {
    await this.flush();
    const rows = await this.#o.db.query("SELECT game_id FROM proxy_visited_users ORDER BY game_id");
    return rows.map((r) => dbNum(r.game_id));
  }

  /** Stops the timer and writes what is pending (best effort). */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#o.clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.flush().catch((error) => {
      this.#o.log.error("visited users not written at shutdown", { ids: this.#pending.size, error: String(error) });
    });
  }

  async #write(): Promise<void> {
    const ids = [...this.#pending];
    this.#pending.clear();
    const now = this.#o.clock.now();
    try {
      await this.#o.db.transaction(async (tx) => {
        for (let at = 0; at < ids.length; at += BATCH) {
          const part = ids.slice(at, at + BATCH);
          const values = part.map((_, i) => `($${2 * i + 1}, $${2 * i + 2})`).join(", ");
          await tx.query(
            `INSERT INTO proxy_visited_users (game_id, first_seen) VALUES ${values} ON CONFLICT (game_id) DO NOTHING`,
            part.flatMap((id) => [id, now]),
          );
        }
      });
      if (this.#failing) this.#o.log.info("visited users written again", { ids: ids.length });
      this.#failing = false;
    } catch (error) {
      for (const id of ids) this.add(id);
      if (!this.#failing) this.#o.log.warn("cannot write visited users; keeping them", { error: String(error) });
      this.#failing = true;
      throw error;
    }
  }
}
