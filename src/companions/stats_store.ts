/**
 * The `api` service's records (spec 2 §2.3): rooms (one row per room's
 * life), user room activity (entry and exit), user room duration (stay
 * length and visits per user and room), game rounds (start and end),
 * per-user play time per round, and online counts sampled over time. Times
 * are epoch milliseconds, durations milliseconds (the original used float
 * seconds).
 *
 * @module
 */

import { type Db, dbNum, type DbQueryable, migrate, type Migration } from "../db/mod.ts";

const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    up: `
      CREATE TABLE companion_stat_rooms (
        room_id {{id}},
        room_name TEXT NOT NULL,
        host_id BIGINT,
        created_at BIGINT NOT NULL,
        dissolved_at BIGINT
      );
      CREATE TABLE companion_stat_activity (
        activity_id {{id}},
        user_id BIGINT NOT NULL,
        room_id BIGINT NOT NULL,
        enter_time BIGINT NOT NULL,
        leave_time BIGINT
      );
      CREATE INDEX companion_stat_activity_open ON companion_stat_activity (leave_time);
      CREATE INDEX companion_stat_activity_user ON companion_stat_activity (user_id);
      CREATE TABLE companion_stat_duration (
        user_id BIGINT NOT NULL,
        room_id BIGINT NOT NULL,
        total_duration BIGINT NOT NULL,
        visit_count INTEGER NOT NULL DEFAULT 1,
        last_enter_time BIGINT NOT NULL,
        last_leave_time BIGINT NOT NULL,
        PRIMARY KEY (user_id, room_id)
      );
      CREATE TABLE companion_stat_rounds (
        round_id {{id}},
        room_id BIGINT NOT NULL,
        chart_id BIGINT,
        start_time BIGINT NOT NULL,
        end_time BIGINT
      );
      CREATE TABLE companion_stat_playtime (
        user_id BIGINT NOT NULL,
        round_id BIGINT NOT NULL,
        play_duration BIGINT NOT NULL,
        PRIMARY KEY (user_id, round_id)
      );
      CREATE TABLE companion_stat_online (
        at BIGINT PRIMARY KEY,
        users INTEGER NOT NULL,
        rooms INTEGER NOT NULL
      );
    `,
  },
];

/** Migrates the statistics tables. */
export async function migrateStats(db: Db): Promise<void> {
  await migrate(db, "companions_stats", MIGRATIONS);
}

async function insertId(q: DbQueryable, sql: string, params: (number | string | null)[], column: string) {
  const [row] = await q.query(`${sql} RETURNING ${column}`, params);
  return dbNum(row![column]);
}

/** Writes and reads the statistics. */
export class StatsStore {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  /** A room appeared; returns its row id. */
  openRoom(name: string, host: number | null, at: number): Promise<number> {
    return insertId(
      this.#db,
      "INSERT INTO companion_stat_rooms (room_name, host_id, created_at) VALUES ($1, $2, $3)",
      [name, host, at],
      "room_id",
    );
  }

  /** A room went away. */
  async closeRoom(roomId: number, at: number): Promise<void> {
    await this.#db.query("UPDATE companion_stat_rooms SET dissolved_at = $1 WHERE room_id = $2", [at, roomId]);
  }

  /** A user entered a room; returns the activity id. */
  enter(userId: number, roomId: number, at: number): Promise<number> {
    return insertId(
      this.#db,
      "INSERT INTO companion_stat_activity (user_id, room_id, enter_time) VALUES ($1, $2, $3)",
      [userId, roomId, at],
      "activity_id",
    );
  }

  /** A user left: closes the activity and adds the stay to the user's duration in that room. */
  async leave(activityId: number, userId: number, roomId: number, enteredAt: number, at: number): Promise<void> {
    const stay = Math.max(0, at - enteredAt);
    await this.#db.transaction(async (tx) => {
      await tx.query("UPDATE companion_stat_activity SET leave_time = $1 WHERE activity_id = $2", [at, activityId]);
      await tx.query(
        `INSERT INTO companion_stat_duration (user_id, room_id, total_duration, visit_count, last_enter_time, last_leave_time)
         VALUES ($1, $2, $3, 1, $4, $5)
         ON CONFLICT (user_id, room_id) DO UPDATE SET total_duration = companion_stat_duration.total_duration + $3,
           visit_count = companion_stat_duration.visit_count + 1, last_enter_time = $4, last_leave_time = $5`,
        [userId, roomId, stay, enteredAt, at],
      );
    });
  }

  /** A round started; returns its id. */
  startRound(roomId: number, chart: number | null, at: number): Promise<number> {
    return insertId(
      this.#db,
      "INSERT INTO companion_stat_rounds (room_id, chart_id, start_time) VALUES ($1, $2, $3)",
      [roomId, chart, at],
      "round_id",
    );
  }

  /** A round ended: its end time and each player's play time. */
  async endRound(roundId: number, at: number, play: ReadonlyMap<number, number>): Promise<void> {
    await this.#db.transaction(async (tx) => {
      await tx.query("UPDATE companion_stat_rounds SET end_time = $1 WHERE round_id = $2", [at, roundId]);
      for (const [user, ms] of play) {
        await tx.query(
          `INSERT INTO companion_stat_playtime (user_id, round_id, play_duration) VALUES ($1, $2, $3)
           ON CONFLICT (user_id, round_id) DO UPDATE SET play_duration = $3`,
          [user, roundId, Math.round(ms)],
        );
      }
    });
  }

  /** Records an online count sample. */
  async sample(at: number, users: number, rooms: number): Promise<void> {
    await this.#db.query(
      "INSERT INTO companion_stat_online (at, users, rooms) VALUES ($1, $2, $3) ON CONFLICT (at) DO NOTHING",
      [at, users, rooms],
    );
  }

  /** Drops samples older than `before`. */
  async prune(before: number): Promise<void> {
    await this.#db.query("DELETE FROM companion_stat_online WHERE at < $1", [before]);
  }

  /**
   * Closes what a crash left open (the poller's in-memory state is gone): at
   * the last sample, or at the entry time when that is later.
   */
  async closeDangling(fallback: number): Promise<number> {
    const [last] = await this.#db.query("SELECT max(at) AS at FROM companion_stat_online");
    const at = last?.at === null || last?.at === undefined ? fallback : dbNum(last.at);
    const open = await this.#db.query(
      "SELECT activity_id, user_id, room_id, enter_time FROM companion_stat_activity WHERE leave_time IS NULL",
    );
    for (const r of open) {
      const enter = dbNum(r.enter_time);
      await this.leave(dbNum(r.activity_id), dbNum(r.user_id), dbNum(r.room_id), enter, Math.max(enter, at));
    }
    await this.#db.query(
      "UPDATE companion_stat_rounds SET end_time = CASE WHEN start_time > $1 THEN start_time ELSE $1 END WHERE end_time IS NULL",
      [at],
    );
    await this.#db.query(
      "UPDATE companion_stat_rooms SET dissolved_at = CASE WHEN created_at > $1 THEN created_at ELSE $1 END WHERE dissolved_at IS NULL",
      [at],
    );
    return open.length;
  }

  /** Play time of `userId` over every round, milliseconds. */
  async playtime(userId: number): Promise<number> {
    const [row] = await this.#db.query(
      "SELECT coalesce(sum(play_duration), 0) AS ms FROM companion_stat_playtime WHERE user_id = $1",
      [userId],
    );
    return dbNum(row?.ms ?? 0);
  }
}
