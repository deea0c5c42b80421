/**
 * Read queries for the console, HTTP, OpenUDS and plugins (spec 3 §4.2,
 * §4.5 `persist.touches|judges`, §4.6 `game-persistence`). Results are plain
 * objects with numbers for int8 columns on both backends.
 *
 * @module
 */

import type {
  BenchmarkRow,
  EventRow,
  IpHistoryRow,
  PlaytimeRow,
  RoomHistoryRow,
  RoundResultRow,
  RoundRow,
  SnapshotRow,
  TelemetryRow,
  UserRow,
} from "./rows.ts";
import { num, numOrNull, type Queryable, type Row } from "../backends/mod.ts";
import { queryTelemetry } from "./telemetry_query.ts";

/** Largest page of `persist.touches` / `persist.judges` (spec 3 §8). */
export const TELEMETRY_PAGE_LIMIT = 500;
/** Largest page of the other list queries. */
export const PAGE_LIMIT = 1000;

const clamp = (n: number, max: number) => Math.max(1, Math.min(max, Math.floor(n)));

/** Filters of {@link queryEvents}. */
export interface EventFilter {
  since?: number;
  limit?: number;
  kind?: string;
  room?: string;
  user?: number;
}

/** Filters of {@link queryTelemetry}. */
export interface TelemetryFilter {
  since?: number;
  limit?: number;
  round?: string;
  player?: number;
}

function where(conds: [string, unknown][], first: unknown[]): { sql: string; params: unknown[] } {
  const params = [...first];
  const parts: string[] = [];
  for (const [cond, value] of conds) {
    if (value === undefined) continue;
    params.push(value);
    parts.push(cond.replace("?", `$${params.length}`));
  }
  return { sql: parts.map((p) => ` AND ${p}`).join(""), params };
}

const userRow = (r: Row): UserRow => ({
  user_id: num(r.user_id),
  name: String(r.name),
  language: String(r.language),
  player: Boolean(r.player),
  login_count: num(r.login_count),
  first_seen_at: num(r.first_seen_at),
  last_seen_at: num(r.last_seen_at),
  last_ip: (r.last_ip as string | null) ?? null,
});

const roundRow = (r: Row): RoundRow => ({
  round_uuid: String(r.round_uuid),
  room_id: String(r.room_id),
  room_uuid: String(r.room_uuid),
  chart_id: num(r.chart_id),
  chart_name: String(r.chart_name),
  players: (r.players as number[]).map(num),
  aborted: (r.aborted as number[]).map(num),
  started_at: num(r.started_at),
  finished_at: numOrNull(r.finished_at),
  interrupted: Boolean(r.interrupted),
});

/** Read queries over one database. */
export class Queries {
  readonly #db: Queryable;

  readonly #telemetryDir: string | null;

  /** `telemetryDir`: the folder of stored telemetry files (`<data_dir>/record`); null reads JSON rows only. */
  constructor(db: Queryable, telemetryDir: string | null = null) {
    this.#db = db;
    this.#telemetryDir = telemetryDir;
  }

  /** A user, or null. */
  async user(id: number): Promise<UserRow | null> {
    const [r] = await this.#db.query("SELECT * FROM users WHERE user_id = $1", [id]);
    return r ? userRow(r) : null;
  }

  /** Number of players who ever logged in (spec 1 `total_players`). */
  async totalPlayers(): Promise<number> {
    const [r] = await this.#db.query("SELECT COUNT(*) AS n FROM users WHERE player");
    return num(r?.n ?? 0);
  }

  /** Ids of every player who ever logged in, ascending (spec 1 `/api/players/all`). */
  async allPlayerIds(): Promise<number[]> {
    return (await this.#db.query("SELECT user_id FROM users WHERE player ORDER BY user_id")).map((r) => num(r.user_id));
  }

  /** Stored playtime of a user in milliseconds (0 when none). */
  async playtime(user: number): Promise<number> {
    const [r] = await this.#db.query("SELECT total_ms FROM playtime WHERE user_id = $1", [user]);
    return r ? num(r.total_ms) : 0;
  }

  /** The users with the most playtime. */
  async topPlaytime(n: number): Promise<PlaytimeRow[]> {
    const rows = await this.#db.query(
      `SELECT p.user_id, u.name, p.total_ms FROM playtime p LEFT JOIN users u ON u.user_id = p.user_id
       ORDER BY p.total_ms DESC, p.user_id LIMIT $1`,
      [clamp(n, PAGE_LIMIT)],
    );
    return rows.map((r) => ({
      user_id: num(r.user_id),
      name: (r.name as string | null) ?? null,
      total_ms: num(r.total_ms),
    }));
  }

  /** Addresses a user came from, most recent first. */
  async ipHistory(user: number): Promise<IpHistoryRow[]> {
    const rows = await this.#db.query(
      "SELECT ip, first_seen_at, last_seen_at, use_count FROM ip_history WHERE user_id = $1 ORDER BY last_seen_at DESC",
      [user],
    );
    return rows.map((r) => ({
      ip: String(r.ip),
      first_seen_at: num(r.first_seen_at),
      last_seen_at: num(r.last_seen_at),
      use_count: num(r.use_count),
    }));
  }

  /** Rooms a user visited, most recent first. */
  async userRoomHistory(user: number, limit = 50): Promise<RoomHistoryRow[]> {
    const rows = await this.#db.query(
      `SELECT room_id, room_uuid, monitor, joined_at, left_at, leave_reason FROM user_room_history
       WHERE user_id = $1 ORDER BY joined_at DESC, seq DESC LIMIT $2`,
      [user, clamp(limit, PAGE_LIMIT)],
    );
    return rows.map((r) => ({
      room_id: String(r.room_id),
      room_uuid: String(r.room_uuid),
      monitor: Boolean(r.monitor),
      joined_at: num(r.joined_at),
      left_at: numOrNull(r.left_at),
      leave_reason: (r.leave_reason as string | null) ?? null,
    }));
  }

  /** Rounds of a room (by name), most recent first. */
  async roundsByRoom(room: string, limit = 50): Promise<RoundRow[]> {
    const rows = await this.#db.query(
      "SELECT * FROM rounds WHERE room_id = $1 ORDER BY started_at DESC, seq DESC LIMIT $2",
      [room, clamp(limit, PAGE_LIMIT)],
    );
    return rows.map(roundRow);
  }

  /** One round, or null. */
  async round(uuid: string): Promise<RoundRow | null> {
    const [r] = await this.#db.query("SELECT * FROM rounds WHERE round_uuid = $1", [uuid]);
    return r ? roundRow(r) : null;
  }

  /** Results of a round, best score first. */
  async roundResults(uuid: string): Promise<RoundResultRow[]> {
    const rows = await this.#db.query(
      "SELECT * FROM round_results WHERE round_uuid = $1 ORDER BY score DESC, user_id",
      [
        uuid,
      ],
    );
    return rows.map((r) => ({
      round_uuid: String(r.round_uuid),
      room_id: String(r.room_id),
      created_at: num(r.created_at),
      record: {
        id: num(r.record_id),
        player: num(r.user_id),
        score: num(r.score),
        perfect: num(r.perfect),
        good: num(r.good),
        bad: num(r.bad),
        miss: num(r.miss),
        max_combo: num(r.max_combo),
        accuracy: num(r.accuracy),
        full_combo: Boolean(r.full_combo),
        std: num(r.std ?? 0),
        std_score: num(r.std_score ?? 0),
      },
    }));
  }

  /** Domain events after sequence `since`, ascending. */
  async events(f: EventFilter = {}): Promise<EventRow[]> {
    const w = where([["kind = ?", f.kind], ["room_id = ?", f.room], ["user_id = ?", f.user]], [f.since ?? 0]);
    w.params.push(clamp(f.limit ?? 100, PAGE_LIMIT));
    const rows = await this.#db.query(
      `SELECT * FROM events WHERE seq > $1${w.sql} ORDER BY seq LIMIT $${w.params.length}`,
      w.params,
    );
    return rows.map((r) => ({
      seq: num(r.seq),
      kind: String(r.kind),
      room_id: (r.room_id as string | null) ?? null,
      user_id: numOrNull(r.user_id),
      hidden: Boolean(r.hidden),
      payload: r.payload,
      created_at: num(r.created_at),
    }));
  }

  /** Touch or judge batches after sequence `since`, ascending; at most 500 (spec 3 §8; `telemetry_query.ts`). */
  telemetry(kind: "touches" | "judges", f: TelemetryFilter = {}): Promise<TelemetryRow[]> {
    return queryTelemetry(this.#db, this.#telemetryDir, kind, {
      since: f.since ?? 0,
      limit: clamp(f.limit ?? TELEMETRY_PAGE_LIMIT, TELEMETRY_PAGE_LIMIT),
      round: f.round,
      player: f.player,
    });
  }

  /** Room snapshots after sequence `since`, ascending by sequence. */
  async roomSnapshots(since = 0, limit = PAGE_LIMIT): Promise<SnapshotRow[]> {
    const rows = await this.#db.query("SELECT * FROM room_snapshots WHERE seq > $1 ORDER BY seq LIMIT $2", [
      since,
      clamp(limit, PAGE_LIMIT),
    ]);
    return rows.map((r) => ({
      room_id: String(r.room_id),
      payload: r.payload,
      updated_at: num(r.updated_at),
      seq: num(r.seq),
    }));
  }

  /** Stored benchmark reports, most recent first. */
  async benchmarkReports(limit = 20): Promise<BenchmarkRow[]> {
    const rows = await this.#db.query("SELECT * FROM benchmark_reports ORDER BY seq DESC LIMIT $1", [
      clamp(limit, PAGE_LIMIT),
    ]);
    return rows.map((r) => ({
      seq: num(r.seq),
      report_id: String(r.report_id),
      title: String(r.title),
      report: r.report,
      created_at: num(r.created_at),
    }));
  }
}
