/**
 * Retention (spec 3 §2.3, §8; issue 5 "Retention"): `persistence_retention_days`
 * for history tables, `touch_judge_retention_days` for touch and judge
 * batches, `round_data_retention_days` for per-player round data, and a
 * `table_retention` rule per table that replaces the default of that table:
 * `days` deletes older rows, `max_rows` cuts the table to 80 % of the cap
 * (oldest first). Runs hourly in chunks of a few thousand rows with a yield
 * between them, so it never holds the store (or, with SQLite, which runs in
 * this thread, the event loop) for long. Every time column a rule may pick
 * has an index `(col NULLS FIRST)` (schema version 2 for the defaults, 4 for
 * the others), which serves both `col < cutoff` and the oldest-first order
 * of `max_rows`. Chunks pick rows by physical id: `ctid` on PostgreSQL,
 * `rowid` on SQLite.
 *
 * @module
 */

import { RETENTION_TIME_COLUMNS, type RetentionTable } from "../../config/retention_tables.ts";
import type { Logger } from "../../util/log.ts";
import type { Backend, Queryable, SqlDb } from "../backends/mod.ts";
import { num } from "../backends/mod.ts";
import type { RetentionPolicy } from "../types.ts";
import { pruneSegments } from "../telemetry/retention.ts";

/** Which default applies to a table. */
type DefaultDays = "persistence" | "touch_judge" | "round_data" | null;

/** The default rule of each table retention manages. */
const DEFAULT_DAYS: Readonly<Record<RetentionTable, DefaultDays>> = {
  events: "persistence",
  visits: "persistence",
  user_room_history: "persistence",
  rounds: "persistence",
  round_results: "persistence",
  server_instances: "persistence",
  telemetry_batches: "touch_judge",
  round_player_data: "round_data",
  ip_history: null,
  benchmark_reports: null,
  dead_letters: null,
};

/** Tables that retention may prune, their time columns (first = default; `src/config/retention_tables.ts`) and default rule. */
export const RETENTION_TABLES: Readonly<Record<string, { cols: readonly string[]; days: DefaultDays }>> = Object
  .fromEntries(
    Object.entries(DEFAULT_DAYS).map(([table, days]) => [table, {
      cols: RETENTION_TIME_COLUMNS[table as RetentionTable],
      days,
    }]),
  );

/** The configuration keys retention reads. */
export interface RetentionConfig {
  readonly persistence_retention_days: number;
  readonly touch_judge_retention_days: number;
  readonly round_data_retention_days: number;
  readonly table_retention: Readonly<
    Record<
      string,
      {
        readonly max_rows?: number | undefined;
        readonly days?: number | undefined;
        readonly time_col?: string | undefined;
      }
    >
  >;
}

/** The policies in force for `config`; unknown tables and columns are reported through `log` and skipped. */
export function retentionPolicies(config: RetentionConfig, log: Logger): RetentionPolicy[] {
  const days = {
    persistence: config.persistence_retention_days,
    touch_judge: config.touch_judge_retention_days,
    round_data: config.round_data_retention_days,
  };
  const out = new Map<string, RetentionPolicy>();
  for (const [table, t] of Object.entries(RETENTION_TABLES)) {
    if (t.days) out.set(table, { table, time_col: t.cols[0]!, days: days[t.days], max_rows: null });
  }
  for (const [table, rule] of Object.entries(config.table_retention)) {
    const t = RETENTION_TABLES[table];
    if (!t) {
      log.warn("table_retention names a table retention does not manage; ignored", {
        table,
        tables: Object.keys(RETENTION_TABLES).join(","),
      });
      continue;
    }
    let col = t.cols[0]!;
    if (rule.time_col !== undefined && t.cols.includes(rule.time_col)) col = rule.time_col;
    else if (rule.time_col !== undefined) {
      log.warn("table_retention time_col is not a time column of the table; using the default", {
        table,
        time_col: rule.time_col,
        default: col,
      });
    }
    out.set(table, { table, time_col: col, days: rule.days ?? null, max_rows: rule.max_rows ?? null });
  }
  return [...out.values()].filter((p) => p.days !== null || p.max_rows !== null);
}

/** Rows deleted from one table by one run. */
export interface RetentionResult {
  readonly table: string;
  readonly by_age: number;
  readonly by_rows: number;
}

const DAY_MS = 86_400_000;

/** The physical row id of each dialect. */
const ROW_ID: Readonly<Record<Backend, string>> = { postgres: "ctid", sqlite: "rowid" };

/** Lets timers and socket I/O run between chunks (SQLite works on the main thread). */
const yieldToEventLoop = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

async function deleteChunked(
  db: Queryable,
  id: string,
  table: string,
  select: string,
  params: unknown[],
  limit: number,
  chunk: number,
) {
  let total = 0;
  while (total < limit) {
    const n = Math.min(chunk, limit - total);
    const deleted = (await db.query(`DELETE FROM ${table} WHERE ${id} IN (${select} LIMIT ${n}) RETURNING 1`, params))
      .length;
    total += deleted;
    if (deleted < n) break;
    await yieldToEventLoop();
  }
  return total;
}

/**
 * Applies `policies` once. Table and column names come from {@link RETENTION_TABLES} only. The age rule of
 * `telemetry_batches` (`touch_judge_retention_days`) also removes stored telemetry files and their
 * `telemetry_segments` rows (`../telemetry/retention.ts`; reported as table `telemetry_segments`, by files)
 * when `telemetryDir` is given.
 */
export async function runRetention(
  db: SqlDb,
  policies: readonly RetentionPolicy[],
  now: number,
  log: Logger,
  chunk = 5000,
  telemetryDir: string | null = null,
): Promise<RetentionResult[]> {
  const results: RetentionResult[] = [];
  const id = ROW_ID[db.backend];
  for (const p of policies) {
    const t = RETENTION_TABLES[p.table];
    if (!t || !t.cols.includes(p.time_col)) continue;
    let byAge = 0;
    let byRows = 0;
    if (p.days !== null) {
      const cutoff = now - p.days * DAY_MS;
      byAge = await deleteChunked(
        db,
        id,
        p.table,
        `SELECT ${id} FROM ${p.table} WHERE ${p.time_col} < $1`,
        [cutoff],
        Infinity,
        chunk,
      );
    }
    if (p.max_rows !== null) {
      const [row] = await db.query(`SELECT COUNT(*) AS n FROM ${p.table}`);
      const count = num(row?.n ?? 0);
      if (count > p.max_rows) {
        const excess = count - Math.floor(p.max_rows * 0.8);
        byRows = await deleteChunked(
          db,
          id,
          p.table,
          `SELECT ${id} FROM ${p.table} ORDER BY ${p.time_col} ASC NULLS FIRST`,
          [],
          excess,
          chunk,
        );
      }
    }
    if (byAge || byRows) log.info("retention pruned a table", { table: p.table, by_age: byAge, by_rows: byRows });
    results.push({ table: p.table, by_age: byAge, by_rows: byRows });
    if (p.table === "telemetry_batches" && p.days !== null && telemetryDir !== null) {
      const pruned = await pruneSegments(db, telemetryDir, now - p.days * DAY_MS);
      if (pruned.rows || pruned.files) {
        log.info("retention removed telemetry files", { files: pruned.files, segments: pruned.rows });
      }
      results.push({ table: "telemetry_segments", by_age: pruned.rows, by_rows: 0 });
    }
    await yieldToEventLoop();
  }
  return results;
}
