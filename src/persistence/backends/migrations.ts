/**
 * The one SQL schema of both backends, as versioned migrations with a
 * schema-version record (spec 3 §9: "startup fails closed when the schema
 * check fails"). All pending migrations run in one transaction under an
 * advisory lock, so two servers starting on one database cannot interleave
 * and a failed migration leaves the schema as it was.
 *
 * Time columns are BIGINT milliseconds since the epoch; `seq` columns are
 * journal sequences (one global sequence, issue 5).
 *
 * Written once for both dialects (SQLite and PostgreSQL): the common subset
 * of SQL plus the macros of `src/db/migrate.ts` -- `{{json}}` for a JSON
 * column, `{{nulls_first}}` after an index column. Append-only: a released
 * step's text never changes what it does on a database that ran it.
 *
 * @module
 */

import type { Logger } from "../../util/log.ts";
import { expandMacros } from "../../db/migrate.ts";
import type { SqlDb } from "./sql_db.ts";
import { num } from "./sql_db.ts";
import { isDiskFull } from "../error_text.ts";
import { errorText, PersistenceError } from "../types.ts";

/** One schema change. */
export interface Migration {
  readonly version: number;
  readonly description: string;
  readonly sql: string;
}

const V1 = `
CREATE TABLE journal_state (id INT PRIMARY KEY CHECK (id = 1), applied_seq BIGINT NOT NULL, updated_at BIGINT NOT NULL);
INSERT INTO journal_state (id, applied_seq, updated_at) VALUES (1, 0, 0);
CREATE TABLE users (
  user_id BIGINT PRIMARY KEY, name TEXT NOT NULL, language TEXT NOT NULL, player BOOLEAN NOT NULL DEFAULT false,
  login_count BIGINT NOT NULL DEFAULT 0, first_seen_at BIGINT NOT NULL, last_seen_at BIGINT NOT NULL, last_ip TEXT);
CREATE TABLE playtime (user_id BIGINT PRIMARY KEY, total_ms BIGINT NOT NULL, updated_at BIGINT NOT NULL);
CREATE INDEX playtime_total ON playtime (total_ms DESC);
CREATE TABLE visits (
  seq BIGINT PRIMARY KEY, instance_id TEXT NOT NULL, session_id BIGINT NOT NULL, user_id BIGINT NOT NULL,
  category TEXT NOT NULL, ip TEXT NOT NULL, connected_at BIGINT NOT NULL);
CREATE INDEX visits_user ON visits (user_id, connected_at);
CREATE TABLE ip_history (
  user_id BIGINT NOT NULL, ip TEXT NOT NULL, first_seen_at BIGINT NOT NULL, last_seen_at BIGINT NOT NULL,
  use_count BIGINT NOT NULL, PRIMARY KEY (user_id, ip));
CREATE INDEX ip_history_ip ON ip_history (ip);
CREATE TABLE user_room_history (
  seq BIGINT PRIMARY KEY, user_id BIGINT NOT NULL, room_id TEXT NOT NULL, room_uuid TEXT NOT NULL,
  monitor BOOLEAN NOT NULL, joined_at BIGINT NOT NULL, left_at BIGINT, leave_reason TEXT);
CREATE INDEX user_room_history_user ON user_room_history (user_id, joined_at);
CREATE TABLE user_bans (user_id BIGINT PRIMARY KEY, reason TEXT NOT NULL, banned_at BIGINT NOT NULL);
CREATE TABLE ip_bans (ip TEXT PRIMARY KEY, reason TEXT NOT NULL, banned_at BIGINT NOT NULL);
CREATE TABLE rounds (
  round_uuid TEXT PRIMARY KEY, room_id TEXT NOT NULL, room_uuid TEXT NOT NULL, chart_id BIGINT NOT NULL,
  chart_name TEXT NOT NULL, players {{json}} NOT NULL, aborted {{json}} NOT NULL DEFAULT '[]', started_at BIGINT NOT NULL,
  finished_at BIGINT, interrupted BOOLEAN NOT NULL DEFAULT false, seq BIGINT NOT NULL);
CREATE INDEX rounds_room ON rounds (room_id, started_at);
CREATE TABLE round_results (
  round_uuid TEXT NOT NULL, user_id BIGINT NOT NULL, room_id TEXT NOT NULL, record_id BIGINT NOT NULL,
  score BIGINT NOT NULL, accuracy DOUBLE PRECISION NOT NULL, perfect INT NOT NULL, good INT NOT NULL, bad INT NOT NULL,
  miss INT NOT NULL, max_combo INT NOT NULL, full_combo BOOLEAN NOT NULL, std DOUBLE PRECISION,
  std_score DOUBLE PRECISION, created_at BIGINT NOT NULL, seq BIGINT NOT NULL, PRIMARY KEY (round_uuid, user_id));
CREATE INDEX round_results_user ON round_results (user_id, created_at);
CREATE TABLE round_player_data (
  round_uuid TEXT NOT NULL, player_id BIGINT NOT NULL, room_id TEXT NOT NULL, touch_items BIGINT NOT NULL,
  judge_items BIGINT NOT NULL, touch_batches BIGINT NOT NULL, judge_batches BIGINT NOT NULL, first_at BIGINT NOT NULL,
  last_at BIGINT NOT NULL, PRIMARY KEY (round_uuid, player_id));
CREATE TABLE telemetry_batches (
  seq BIGINT PRIMARY KEY, kind TEXT NOT NULL, room_id TEXT NOT NULL, round_uuid TEXT, player_id BIGINT NOT NULL,
  item_count INT NOT NULL, items {{json}} NOT NULL, first_at BIGINT NOT NULL, created_at BIGINT NOT NULL);
CREATE INDEX telemetry_batches_kind ON telemetry_batches (kind, seq);
CREATE TABLE room_snapshots (room_id TEXT PRIMARY KEY, payload {{json}} NOT NULL, updated_at BIGINT NOT NULL, seq BIGINT NOT NULL);
CREATE TABLE events (
  seq BIGINT PRIMARY KEY, kind TEXT NOT NULL, room_id TEXT, user_id BIGINT, hidden BOOLEAN NOT NULL,
  payload {{json}} NOT NULL, created_at BIGINT NOT NULL);
CREATE INDEX events_created ON events (created_at);
CREATE TABLE server_instances (
  instance_id TEXT PRIMARY KEY, pid BIGINT NOT NULL, host TEXT NOT NULL, started_at BIGINT NOT NULL,
  last_alive_at BIGINT NOT NULL, stopped_at BIGINT);
CREATE TABLE settings (key TEXT PRIMARY KEY, value {{json}} NOT NULL, updated_at BIGINT NOT NULL);
CREATE TABLE benchmark_reports (
  seq BIGINT PRIMARY KEY, report_id TEXT NOT NULL UNIQUE, title TEXT NOT NULL, report {{json}} NOT NULL,
  created_at BIGINT NOT NULL);
CREATE TABLE retention_policies (
  scope TEXT PRIMARY KEY, time_col TEXT NOT NULL, days INT, max_rows BIGINT, updated_at BIGINT NOT NULL);
CREATE TABLE auth_cache (
  token_hash TEXT PRIMARY KEY, user_id BIGINT NOT NULL, name TEXT NOT NULL, language TEXT NOT NULL,
  cached_at BIGINT NOT NULL);
CREATE TABLE dead_letters (
  seq BIGINT PRIMARY KEY, body TEXT NOT NULL, error TEXT NOT NULL, attempts INT NOT NULL, failed_at BIGINT NOT NULL);
`;

/**
 * Retention deletes by the default time column of each table it manages
 * (`src/config/retention_tables.ts`): `col < cutoff` for `days`, oldest first
 * (`ORDER BY col ASC NULLS FIRST`) for `max_rows`. Without an index each
 * chunk of its DELETE was a full scan. `NULLS FIRST` lets one index serve
 * both queries; `events_created` is rebuilt so for the same reason.
 */
const V2 = `
DROP INDEX events_created;
CREATE INDEX events_created ON events (created_at{{nulls_first}});
CREATE INDEX visits_connected ON visits (connected_at{{nulls_first}});
CREATE INDEX user_room_history_joined ON user_room_history (joined_at{{nulls_first}});
CREATE INDEX rounds_started ON rounds (started_at{{nulls_first}});
CREATE INDEX round_results_created ON round_results (created_at{{nulls_first}});
CREATE INDEX server_instances_alive ON server_instances (last_alive_at{{nulls_first}});
CREATE INDEX telemetry_batches_created ON telemetry_batches (created_at{{nulls_first}});
CREATE INDEX round_player_data_last ON round_player_data (last_at{{nulls_first}});
CREATE INDEX ip_history_last_seen ON ip_history (last_seen_at{{nulls_first}});
CREATE INDEX benchmark_reports_created ON benchmark_reports (created_at{{nulls_first}});
CREATE INDEX dead_letters_failed ON dead_letters (failed_at{{nulls_first}});
`;

/**
 * The identity of the journal whose sequences `applied_seq` counts
 * (`journal/identity.ts`): sequences are numbered per data directory, so a
 * database fed by another journal must be refused, not silently skipped.
 */
const V3 = `ALTER TABLE journal_state ADD COLUMN journal_id TEXT;`;

/**
 * A `table_retention` rule may pick another time column of its table
 * (`time_col`; the non-default entries of `src/config/retention_tables.ts`).
 * Version 2 indexed only the defaults, so such a rule's DELETE chunks were
 * full scans; same `NULLS FIRST` shape as in version 2 (`left_at` and
 * `finished_at` are NULL while a visit or round is still open).
 */
const V4 = `
CREATE INDEX user_room_history_left ON user_room_history (left_at{{nulls_first}});
CREATE INDEX rounds_finished ON rounds (finished_at{{nulls_first}});
CREATE INDEX server_instances_started ON server_instances (started_at{{nulls_first}});
CREATE INDEX telemetry_batches_first ON telemetry_batches (first_at{{nulls_first}});
CREATE INDEX round_player_data_first ON round_player_data (first_at{{nulls_first}});
CREATE INDEX ip_history_first_seen ON ip_history (first_seen_at{{nulls_first}});
`;

/**
 * Touches and judges as wire bytes (issue 15, `src/persistence/telemetry/`):
 * one row per appended segment of a round's `.phirarec` file. Written in the
 * SQL both PostgreSQL and SQLite accept (INTEGER/BIGINT/TEXT, no JSONB, no
 * identity columns): the sequence is the journal's. `telemetry_batches`
 * stays readable (rows written before this version).
 */
const V5 = `
CREATE TABLE telemetry_segments (
  seq BIGINT PRIMARY KEY, file_path TEXT NOT NULL, file_offset BIGINT NOT NULL, byte_count BIGINT NOT NULL,
  room_id TEXT NOT NULL, round_uuid TEXT, player_id BIGINT NOT NULL, touch_count INTEGER NOT NULL,
  judge_count INTEGER NOT NULL, touch_items INTEGER NOT NULL, judge_items INTEGER NOT NULL, first_at BIGINT NOT NULL,
  created_at BIGINT NOT NULL);
CREATE INDEX telemetry_segments_file ON telemetry_segments (file_path);
CREATE INDEX telemetry_segments_created ON telemetry_segments (created_at);
CREATE INDEX telemetry_segments_round ON telemetry_segments (round_uuid, player_id);
`;

/** Every migration, in version order. */
export const MIGRATIONS: readonly Migration[] = [
  { version: 1, description: "initial schema", sql: V1 },
  { version: 2, description: "indexes on retention time columns", sql: V2 },
  { version: 3, description: "journal identity", sql: V3 },
  { version: 4, description: "indexes on the other retention time columns", sql: V4 },
  { version: 5, description: "telemetry segments", sql: V5 },
];

/** Schema version this code writes and understands. */
export const SCHEMA_VERSION: number = MIGRATIONS.at(-1)!.version;

/** Arbitrary advisory-lock key of Chorus migrations. */
const MIGRATION_LOCK = 4_711_2026;

/** Outcome of {@link migrate}. */
export interface MigrateResult {
  readonly from: number;
  readonly to: number;
}

/**
 * Brings the schema up to the last of `migrations`. Fails closed with a
 * `schema_newer` error when the database is ahead of the code and with
 * `migration_failed` when a migration fails (nothing of it is kept).
 */
export async function migrate(
  db: SqlDb,
  log: Logger,
  now: number,
  migrations: readonly Migration[] = MIGRATIONS,
): Promise<MigrateResult> {
  const latest = migrations.at(-1)?.version ?? 0;
  return await db.transaction(async (tx) => {
    // SQLite: the transaction (BEGIN IMMEDIATE) holds the file's write lock already.
    if (db.backend === "postgres") await tx.query(`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`);
    await tx.exec(
      "CREATE TABLE IF NOT EXISTS schema_version (version INT PRIMARY KEY, applied_at BIGINT NOT NULL, description TEXT NOT NULL)",
    );
    const [row] = await tx.query("SELECT COALESCE(MAX(version), 0) AS v FROM schema_version");
    const from = num(row?.v ?? 0);
    if (from > latest) {
      throw new PersistenceError(
        "schema_newer",
        `Cannot open the database: its schema version ${from} is newer than this server supports (${latest}); ` +
          `run a newer Chorus or point database_url at another database`,
      );
    }
    for (const m of migrations) {
      if (m.version <= from) continue;
      try {
        await tx.exec(expandMacros(m.sql, db.backend, `migration ${m.version}`));
        await tx.query("INSERT INTO schema_version (version, applied_at, description) VALUES ($1, $2, $3)", [
          m.version,
          now,
          m.description,
        ]);
      } catch (error) {
        const why = errorText(error);
        const advice = isDiskFull(why) ? "; free space on the disk that holds the database and start again" : "";
        throw new PersistenceError(
          "migration_failed",
          `Cannot migrate the database to schema version ${m.version} (${m.description}): ${why}${advice}`,
          { cause: error },
        );
      }
      log.info("database migrated", { schema_version: m.version, description: m.description });
    }
    return { from, to: Math.max(from, latest) };
  });
}
