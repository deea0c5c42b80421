/**
 * The statements that apply a batch of journal records, for each dialect.
 * Each takes one parameter: a JSON array of rows, unpacked into a row
 * source `x` (PostgreSQL `jsonb_to_recordset`, SQLite `json_each`), so a
 * batch of any size costs a fixed number of statements on both backends
 * (the parameter is declared `text` so both drivers pass it through as is).
 * Upserts are written so that applying rows already merged per key in
 * JavaScript gives the same result as applying the records one by one.
 *
 * Most texts are the common subset of both dialects; what differs is
 * `rows` (the row source), `list` (a JSON array's elements), `least` and
 * `greatest` (SQLite's multi-argument `min`/`max`; every argument here is
 * NOT NULL, where the two agree), `staleResults` and `telemetryBundle`.
 * `INSERT ... SELECT ... WHERE true ON CONFLICT` keeps SQLite's parser from
 * reading `ON` as a join condition.
 *
 * @module
 */

import type { Dialect } from "../../db/types.ts";

/** What differs between the dialects' statement texts. */
interface Parts {
  /** The row source `x` over `$1` with `cols` ("name type, ..."). */
  rows(cols: string): string;
  /** A subquery of the elements of the JSON array `$1`, as text column `value`. */
  readonly list: string;
  readonly least: string;
  readonly greatest: string;
}

/** The row source of SQLite: `->>` gives SQL values (JSON true -> 1), `->` the JSON text of json columns. */
function sqliteRows(cols: string): string {
  const fields = cols.split(",").map((c) => {
    const [name, type] = c.trim().split(/\s+/, 2) as [string, string];
    return `x.value${type === "jsonb" ? "->" : "->>"}'${name}' AS ${name}`;
  });
  return `(SELECT ${fields.join(", ")} FROM json_each($1) AS x) AS x`;
}

const PARTS: Readonly<Record<Dialect, Parts>> = {
  postgres: {
    rows: (cols) => `jsonb_to_recordset($1::text::jsonb) AS x(${cols})`,
    list: "SELECT value FROM jsonb_array_elements_text($1::text::jsonb)",
    least: "LEAST",
    greatest: "GREATEST",
  },
  sqlite: { rows: sqliteRows, list: "SELECT value FROM json_each($1)", least: "min", greatest: "max" },
};

/** Statement texts of `dialect`, by table. */
function statements(dialect: Dialect) {
  const { rows, list, least: LEAST, greatest: GREATEST } = PARTS[dialect];
  const revoked = `SELECT instance_id, session_id FROM ${rows("instance_id text, session_id bigint")}`;
  return {
    users: `INSERT INTO users AS u (user_id, name, language, player, login_count, first_seen_at, last_seen_at, last_ip)
      SELECT user_id, name, language, player, login_count, first_seen_at, last_seen_at, last_ip
      FROM ${
      rows(
        "user_id bigint, name text, language text, player boolean, login_count bigint, first_seen_at bigint, " +
          "last_seen_at bigint, last_ip text",
      )
    } WHERE true
      ON CONFLICT (user_id) DO UPDATE SET name = EXCLUDED.name, language = EXCLUDED.language,
        player = u.player OR EXCLUDED.player, login_count = u.login_count + EXCLUDED.login_count,
        first_seen_at = ${LEAST}(u.first_seen_at, EXCLUDED.first_seen_at),
        last_seen_at = ${GREATEST}(u.last_seen_at, EXCLUDED.last_seen_at), last_ip = EXCLUDED.last_ip`,
    /**
     * Takes back revoked logins (types.ts `LoginRevokedEntry`): only a visit
     * still present is taken back (counted, then deleted, in the batch's
     * transaction), so a revocation never subtracts twice.
     */
    revokeLogins: [
      `UPDATE users SET login_count = users.login_count - c.n
        FROM (SELECT user_id, COUNT(*) AS n FROM visits WHERE (instance_id, session_id) IN (${revoked})
          GROUP BY user_id) AS c
        WHERE users.user_id = c.user_id`,
      `UPDATE ip_history SET use_count = ip_history.use_count - c.n
        FROM (SELECT user_id, ip, COUNT(*) AS n FROM visits WHERE (instance_id, session_id) IN (${revoked})
          GROUP BY user_id, ip) AS c
        WHERE ip_history.user_id = c.user_id AND ip_history.ip = c.ip`,
      `DELETE FROM visits WHERE (instance_id, session_id) IN (${revoked})`,
    ],
    /** Users and addresses left without any login after revocations. */
    revokedUsers: `DELETE FROM users WHERE login_count <= 0 AND user_id IN (SELECT user_id FROM ${
      rows("user_id bigint")
    })`,
    revokedIps: `DELETE FROM ip_history WHERE use_count <= 0
      AND (user_id, ip) IN (SELECT user_id, ip FROM ${rows("user_id bigint, ip text")})`,
    lastSeen: `UPDATE users SET last_seen_at = ${GREATEST}(users.last_seen_at, x.at)
      FROM ${rows("user_id bigint, at bigint")} WHERE users.user_id = x.user_id`,
    visits: `INSERT INTO visits (seq, instance_id, session_id, user_id, category, ip, connected_at)
      SELECT seq, instance_id, session_id, user_id, category, ip, connected_at
      FROM ${
      rows(
        "seq bigint, instance_id text, session_id bigint, user_id bigint, category text, ip text, " +
          "connected_at bigint",
      )
    } WHERE true ON CONFLICT DO NOTHING`,
    ipHistory: `INSERT INTO ip_history AS h (user_id, ip, first_seen_at, last_seen_at, use_count)
      SELECT user_id, ip, first_seen_at, last_seen_at, use_count
      FROM ${rows("user_id bigint, ip text, first_seen_at bigint, last_seen_at bigint, use_count bigint")} WHERE true
      ON CONFLICT (user_id, ip) DO UPDATE SET first_seen_at = ${LEAST}(h.first_seen_at, EXCLUDED.first_seen_at),
        last_seen_at = ${GREATEST}(h.last_seen_at, EXCLUDED.last_seen_at), use_count = h.use_count + EXCLUDED.use_count`,
    playtime: `INSERT INTO playtime AS p (user_id, total_ms, updated_at)
      SELECT user_id, ms, at FROM ${rows("user_id bigint, ms bigint, at bigint")} WHERE true
      ON CONFLICT (user_id) DO UPDATE SET total_ms = p.total_ms + EXCLUDED.total_ms,
        updated_at = ${GREATEST}(p.updated_at, EXCLUDED.updated_at)`,
    events: `INSERT INTO events (seq, kind, room_id, user_id, hidden, payload, created_at)
      SELECT seq, kind, room_id, user_id, hidden, payload, created_at
      FROM ${
      rows("seq bigint, kind text, room_id text, user_id bigint, hidden boolean, payload jsonb, created_at bigint")
    } WHERE true
      ON CONFLICT DO NOTHING`,
    roomJoins:
      `INSERT INTO user_room_history (seq, user_id, room_id, room_uuid, monitor, joined_at, left_at, leave_reason)
      SELECT seq, user_id, room_id, room_uuid, monitor, joined_at, left_at, leave_reason
      FROM ${
        rows(
          "seq bigint, user_id bigint, room_id text, room_uuid text, monitor boolean, joined_at bigint, " +
            "left_at bigint, leave_reason text",
        )
      } WHERE true ON CONFLICT DO NOTHING`,
    /**
     * On SQLite, `+` keeps the planner off the `left_at` index: through it, it scanned every open visit for
     * each batch (the batch's rows, through the user index, are what is looked up).
     */
    roomLeaves: `UPDATE user_room_history AS h SET left_at = x.at, leave_reason = x.reason
      FROM ${rows("user_id bigint, room_uuid text, at bigint, reason text")}
      WHERE h.user_id = x.user_id AND h.room_uuid = x.room_uuid AND ${
      dialect === "sqlite" ? "+" : ""
    }h.left_at IS NULL`,
    rounds:
      `INSERT INTO rounds AS r (round_uuid, room_id, room_uuid, chart_id, chart_name, players, aborted, started_at,
        finished_at, seq)
      SELECT round_uuid, room_id, room_uuid, chart_id, chart_name, players, aborted, started_at, finished_at, seq
      FROM ${
        rows(
          "round_uuid text, room_id text, room_uuid text, chart_id bigint, chart_name text, players jsonb, " +
            "aborted jsonb, started_at bigint, finished_at bigint, seq bigint",
        )
      } WHERE true
      ON CONFLICT (round_uuid) DO UPDATE SET finished_at = COALESCE(EXCLUDED.finished_at, r.finished_at),
        aborted = CASE WHEN EXCLUDED.finished_at IS NULL THEN r.aborted ELSE EXCLUDED.aborted END,
        interrupted = r.interrupted AND EXCLUDED.finished_at IS NULL`,
    interrupted: `UPDATE rounds SET finished_at = $2, interrupted = true WHERE finished_at IS NULL AND started_at < $1`,
    results: (final: boolean) =>
      `INSERT INTO round_results AS r (round_uuid, user_id, room_id, record_id, score, accuracy, perfect, good, bad, miss,
        max_combo, full_combo, std, std_score, created_at, seq)
      SELECT round_uuid, user_id, room_id, record_id, score, accuracy, perfect, good, bad, miss, max_combo, full_combo,
        std, std_score, created_at, seq
      FROM ${
        rows(
          "round_uuid text, user_id bigint, room_id text, record_id bigint, score bigint, " +
            "accuracy double precision, perfect int, good int, bad int, miss int, max_combo int, full_combo boolean, " +
            "std double precision, std_score double precision, created_at bigint, seq bigint",
        )
      } WHERE true
      ON CONFLICT (round_uuid, user_id) DO ${
        final
          ? `UPDATE SET record_id = EXCLUDED.record_id, score = EXCLUDED.score, accuracy = EXCLUDED.accuracy,
        perfect = EXCLUDED.perfect, good = EXCLUDED.good, bad = EXCLUDED.bad, miss = EXCLUDED.miss,
        max_combo = EXCLUDED.max_combo, full_combo = EXCLUDED.full_combo, std = EXCLUDED.std,
        std_score = EXCLUDED.std_score`
          : "NOTHING"
      }`,
    staleResults: dialect === "postgres"
      ? `DELETE FROM round_results r USING ${rows("round_uuid text, users jsonb")}
      WHERE r.round_uuid = x.round_uuid AND NOT (x.users @> to_jsonb(r.user_id))`
      // Driven by the rounds named (the primary key's prefix), not by a scan of every result.
      : `DELETE FROM round_results AS r WHERE r.round_uuid IN (SELECT x.value->>'round_uuid' FROM json_each($1) AS x)
      AND NOT EXISTS (SELECT 1 FROM json_each($1) AS x, json_each(x.value->'users') AS u
        WHERE x.value->>'round_uuid' = r.round_uuid AND u.value = r.user_id)`,
    telemetry: `INSERT INTO telemetry_batches (seq, kind, room_id, round_uuid, player_id, item_count, items, first_at,
        created_at)
      SELECT seq, kind, room_id, round_uuid, player_id, item_count, items, first_at, created_at
      FROM ${
      rows(
        "seq bigint, kind text, room_id text, round_uuid text, player_id bigint, item_count int, " +
          "items jsonb, first_at bigint, created_at bigint",
      )
    } WHERE true ON CONFLICT DO NOTHING`,
    /** $1: a `telemetry.bundle` record's JSON; $2: the sequence of its first batch (types.ts). */
    telemetryBundle: dialect === "postgres"
      ? `INSERT INTO telemetry_batches (seq, kind, room_id, round_uuid, player_id, item_count, items,
        first_at, created_at)
      SELECT $2::bigint + x.i - 1, x.b->>'kind', x.b->>'room', x.b->>'round', (x.b->>'user')::bigint,
        jsonb_array_length(x.b->'items'), x.b->'items', (x.b->>'first_at')::bigint, (x.b->>'last_at')::bigint
      FROM jsonb_array_elements($1::text::jsonb->'batches') WITH ORDINALITY AS x(b, i) ON CONFLICT DO NOTHING`
      // json_each numbers array elements from 0 (`key`).
      : `INSERT INTO telemetry_batches (seq, kind, room_id, round_uuid, player_id, item_count, items,
        first_at, created_at)
      SELECT $2 + x.key, x.value->>'kind', x.value->>'room', x.value->>'round', x.value->>'user',
        json_array_length(x.value->'items'), x.value->'items', x.value->>'first_at', x.value->>'last_at'
      FROM json_each($1, '$.batches') AS x WHERE true ON CONFLICT DO NOTHING`,
    segments: `INSERT INTO telemetry_segments (seq, file_path, file_offset, byte_count, room_id, round_uuid,
        player_id, touch_count, judge_count, touch_items, judge_items, first_at, created_at)
      SELECT seq, file_path, file_offset, byte_count, room_id, round_uuid, player_id, touch_count, judge_count,
        touch_items, judge_items, first_at, created_at
      FROM ${
      rows(
        "seq bigint, file_path text, file_offset bigint, byte_count bigint, room_id text, round_uuid text, " +
          "player_id bigint, touch_count int, judge_count int, touch_items int, judge_items int, first_at bigint, " +
          "created_at bigint",
      )
    } WHERE true ON CONFLICT DO NOTHING`,
    playerData: `INSERT INTO round_player_data AS d (round_uuid, player_id, room_id, touch_items, judge_items,
        touch_batches, judge_batches, first_at, last_at)
      SELECT round_uuid, player_id, room_id, touch_items, judge_items, touch_batches, judge_batches, first_at, last_at
      FROM ${
      rows(
        "round_uuid text, player_id bigint, room_id text, touch_items bigint, judge_items bigint, " +
          "touch_batches bigint, judge_batches bigint, first_at bigint, last_at bigint",
      )
    } WHERE true
      ON CONFLICT (round_uuid, player_id) DO UPDATE SET touch_items = d.touch_items + EXCLUDED.touch_items,
        judge_items = d.judge_items + EXCLUDED.judge_items, touch_batches = d.touch_batches + EXCLUDED.touch_batches,
        judge_batches = d.judge_batches + EXCLUDED.judge_batches, first_at = ${LEAST}(d.first_at, EXCLUDED.first_at),
        last_at = ${GREATEST}(d.last_at, EXCLUDED.last_at)`,
    snapshots: `INSERT INTO room_snapshots (room_id, payload, updated_at, seq)
      SELECT room_id, payload, updated_at, seq FROM ${
      rows("room_id text, payload jsonb, updated_at bigint, seq bigint")
    } WHERE true
      ON CONFLICT (room_id) DO UPDATE SET payload = EXCLUDED.payload, updated_at = EXCLUDED.updated_at,
        seq = EXCLUDED.seq`,
    deleteSnapshots: `DELETE FROM room_snapshots WHERE room_id IN (${list})`,
    userBans: `INSERT INTO user_bans (user_id, reason, banned_at)
      SELECT user_id, reason, banned_at FROM ${rows("user_id bigint, reason text, banned_at bigint")} WHERE true
      ON CONFLICT (user_id) DO UPDATE SET reason = EXCLUDED.reason, banned_at = EXCLUDED.banned_at`,
    userUnbans: `DELETE FROM user_bans WHERE user_id IN (SELECT CAST(value AS BIGINT) FROM (${list}) AS l)`,
    ipBans: `INSERT INTO ip_bans (ip, reason, banned_at)
      SELECT ip, reason, banned_at FROM ${rows("ip text, reason text, banned_at bigint")} WHERE true
      ON CONFLICT (ip) DO UPDATE SET reason = EXCLUDED.reason, banned_at = EXCLUDED.banned_at`,
    ipUnbans: `DELETE FROM ip_bans WHERE ip IN (${list})`,
    settings: `INSERT INTO settings (key, value, updated_at)
      SELECT key, value, updated_at FROM ${rows("key text, value jsonb, updated_at bigint")} WHERE true
      ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = EXCLUDED.updated_at`,
    deleteSettings: `DELETE FROM settings WHERE key IN (${list})`,
    benchmarks: `INSERT INTO benchmark_reports (seq, report_id, title, report, created_at)
      SELECT seq, report_id, title, report, created_at FROM ${
      rows(
        "seq bigint, report_id text, title text, " +
          "report jsonb, created_at bigint",
      )
    } WHERE true ON CONFLICT DO NOTHING`,
    instances: `INSERT INTO server_instances AS i (instance_id, pid, host, started_at, last_alive_at, stopped_at)
      SELECT instance_id, pid, host, started_at, last_alive_at, stopped_at
      FROM ${
      rows("instance_id text, pid bigint, host text, started_at bigint, last_alive_at bigint, stopped_at bigint")
    } WHERE true
      ON CONFLICT (instance_id) DO UPDATE SET last_alive_at = ${GREATEST}(i.last_alive_at, EXCLUDED.last_alive_at),
        stopped_at = COALESCE(EXCLUDED.stopped_at, i.stopped_at)`,
    authSet: `INSERT INTO auth_cache (token_hash, user_id, name, language, cached_at)
      SELECT token_hash, user_id, name, language, cached_at
      FROM ${rows("token_hash text, user_id bigint, name text, language text, cached_at bigint")} WHERE true
      ON CONFLICT (token_hash) DO UPDATE SET user_id = EXCLUDED.user_id, name = EXCLUDED.name,
        language = EXCLUDED.language, cached_at = EXCLUDED.cached_at`,
    authDelete: `DELETE FROM auth_cache WHERE token_hash IN (${list})`,
    retentionClear: `DELETE FROM retention_policies`,
    retention: `INSERT INTO retention_policies (scope, time_col, days, max_rows, updated_at)
      SELECT scope, time_col, days, max_rows, updated_at
      FROM ${rows("scope text, time_col text, days int, max_rows bigint, updated_at bigint")}`,
    watermark: `UPDATE journal_state SET applied_seq = ${GREATEST}(applied_seq, $1), updated_at = $2 WHERE id = 1`,
  } as const;
}

/** Statement texts by dialect, then by table. */
export const SQL = { postgres: statements("postgres"), sqlite: statements("sqlite") } as const;
