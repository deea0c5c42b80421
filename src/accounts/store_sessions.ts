/**
 * Server-side sessions (only SHA-256 digests of their tokens are stored, so
 * a copy of the database opens no session) and the visited game accounts.
 *
 * @module
 */

import { type Db, dbBool, dbNum } from "../db/mod.ts";
import { toUser, USER_COLUMNS, type UserRecord } from "./store_rows.ts";

/** A stored session. */
export interface SessionRecord {
  readonly digest: string;
  readonly userId: number;
  readonly createdAt: number;
  readonly expiresAt: number;
  readonly remember: boolean;
}

/** A live session with its user. */
export interface SessionWithUser {
  readonly session: SessionRecord;
  readonly user: UserRecord;
}

/** Sessions of the account backend. */
export class SessionStore {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  /** Stores a new session. */
  async create(s: SessionRecord & { readonly ip: string | null }): Promise<void> {
    await this.#db.query(
      "INSERT INTO accounts_sessions (token_digest, user_id, created_at, expires_at, remember, ip) VALUES ($1, $2, $3, $4, $5, $6)",
      [s.digest, s.userId, s.createdAt, s.expiresAt, s.remember, s.ip],
    );
  }

  /** The live session with `digest` and its user; an expired one is deleted and null returned. */
  async find(digest: string, now: number): Promise<SessionWithUser | null> {
    const [row] = await this.#db.query(
      `SELECT ${USER_COLUMNS}, s.token_digest, s.created_at, s.expires_at, s.remember
       FROM accounts_sessions s JOIN accounts_users u ON u.id = s.user_id JOIN accounts_groups g ON g.id = u.group_id
       WHERE s.token_digest = $1`,
      [digest],
    );
    if (!row) return null;
    const session: SessionRecord = {
      digest,
      userId: dbNum(row.id),
      createdAt: dbNum(row.created_at),
      expiresAt: dbNum(row.expires_at),
      remember: dbBool(row.remember),
    };
    if (session.expiresAt <= now) {
      await this.delete(digest);
      return null;
    }
    return { session, user: toUser(row) };
  }

  /** Ends one session; false when there was none. */
  async delete(digest: string): Promise<boolean> {
    return (await this.#db.query("DELETE FROM accounts_sessions WHERE token_digest = $1 RETURNING user_id", [digest]))
      .length > 0;
  }

  /** Ends every session of `userId` except `keep`; returns how many ended. */
  async deleteForUser(userId: number, keep: string | null = null): Promise<number> {
    const rows = await this.#db.query(
      "DELETE FROM accounts_sessions WHERE user_id = $1 AND token_digest <> $2 RETURNING user_id",
      [userId, keep ?? ""],
    );
    return rows.length;
  }

  /** Live sessions of `userId`. */
  async countFor(userId: number, now: number): Promise<number> {
    const [row] = await this.#db.query(
      "SELECT count(*) AS n FROM accounts_sessions WHERE user_id = $1 AND expires_at > $2",
      [userId, now],
    );
    return dbNum(row?.n);
  }

  /** Deletes expired sessions; returns how many. */
  async purgeExpired(now: number): Promise<number> {
    return (await this.#db.query("DELETE FROM accounts_sessions WHERE expires_at <= $1 RETURNING user_id", [now]))
      .length;
  }
}

/** Game accounts that used the game server (spec 2 §2.1 "visited user"). */
export class VisitedStore {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  /** Records `gameIds` (already known ones are ignored). */
  async add(gameIds: readonly number[], now: number): Promise<void> {
    if (!gameIds.length) return;
    const values = gameIds.map((_, i) => `($${i + 1}, $${gameIds.length + 1})`).join(", ");
    await this.#db.query(
      `INSERT INTO accounts_visited (game_id, first_seen) VALUES ${values} ON CONFLICT (game_id) DO NOTHING`,
      [...gameIds, now],
    );
  }

  /** Every visited game id, ascending. */
  async list(): Promise<number[]> {
    return (await this.#db.query("SELECT game_id FROM accounts_visited ORDER BY game_id")).map((r) => dbNum(r.game_id));
  }

  /** How many game accounts visited. */
  async count(): Promise<number> {
    const [row] = await this.#db.query("SELECT count(*) AS n FROM accounts_visited");
    return dbNum(row?.n);
  }
}
