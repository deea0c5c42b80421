/**
 * The tables `table_retention` may name and their time columns (spec 3 §2.3;
 * issue 5 "Retention"), first = the default used when a rule has no
 * `time_col`. Kept here so that `check-config` reports unknown tables and
 * columns before startup; `src/persistence/retention.ts` prunes by this list.
 *
 * @module
 */

/** Table -> time columns a retention rule may use; the first is the default. */
export const RETENTION_TIME_COLUMNS = {
  events: ["created_at"],
  visits: ["connected_at"],
  user_room_history: ["joined_at", "left_at"],
  rounds: ["started_at", "finished_at"],
  round_results: ["created_at"],
  server_instances: ["last_alive_at", "started_at"],
  telemetry_batches: ["created_at", "first_at"],
  round_player_data: ["last_at", "first_at"],
  ip_history: ["last_seen_at", "first_seen_at"],
  benchmark_reports: ["created_at"],
  dead_letters: ["failed_at"],
} as const satisfies Readonly<Record<string, readonly [string, ...string[]]>>;

/** A table retention manages. */
export type RetentionTable = keyof typeof RETENTION_TIME_COLUMNS;

/** The time columns of `table`, or undefined when retention does not manage it. */
export function retentionColumns(table: string): readonly string[] | undefined {
  return Object.hasOwn(RETENTION_TIME_COLUMNS, table) ? RETENTION_TIME_COLUMNS[table as RetentionTable] : undefined;
}
