/**
 * The refresh schedule of users' game data in the store (`next_sync_at`,
 * `sync_failures`, `last_sync_time`), for `game_sync.ts`.
 *
 * @module
 */

import type { Db } from "../db/mod.ts";
import type { GameProfile } from "./store.ts";
import { toUser, USER_COLUMNS, USER_FROM, type UserRecord } from "./store_rows.ts";

/** Reads due users and records refresh results. */
export class SyncSchedule {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  /** Users whose game data is due for a refresh at `now`, soonest first. */
  async dueForSync(now: number, limit: number): Promise<UserRecord[]> {
    const rows = await this.#db.query(
      `SELECT ${USER_COLUMNS} FROM ${USER_FROM}
       WHERE u.game_id IS NOT NULL AND u.next_sync_at IS NOT NULL AND u.next_sync_at <= $1
       ORDER BY u.next_sync_at LIMIT $2`,
      [now, limit],
    );
    return rows.map(toUser);
  }

  /** Stores refreshed game data (only if the user is still linked to the same account). */
  async recordSync(id: number, game: GameProfile, now: number, nextAt: number): Promise<void> {
    await this.#db.query(
      `UPDATE accounts_users SET game_username = $1, game_rks = $2, game_avatar = $3, last_sync_time = $4,
         sync_failures = 0, next_sync_at = $5 WHERE id = $6 AND game_id = $7`,
      [game.name, game.rks, game.avatar, now, nextAt, id, game.gameId],
    );
  }

  /** Records a failed refresh and when to try again. */
  async recordSyncFailure(id: number, failures: number, nextAt: number): Promise<void> {
    await this.#db.query("UPDATE accounts_users SET sync_failures = $1, next_sync_at = $2 WHERE id = $3", [
      failures,
      nextAt,
      id,
    ]);
  }
}
