/**
 * Durable persistence (issue 5; spec 3 §2.2, §2.3, §3.2, §7, §8): one store
 * interface and schema over PGlite (embedded, under `data_dir`) or
 * PostgreSQL, fed through a local write-ahead journal.
 *
 * @module
 */

export * from "./persistence.ts";
export * from "./startup.ts";
export * from "./types.ts";
export * from "./status.ts";
export * from "./queries/queries.ts";
export * from "./queries/rows.ts";
export type { DeadLetter, ReplayOutcome } from "./apply/store.ts";
export type { SegmentView, WalInspection } from "./inspect.ts";
export type { RetentionResult } from "./retention/retention.ts";
export { RETENTION_TABLES } from "./retention/retention.ts";
export { SCHEMA_VERSION } from "./backends/migrations.ts";
export { LOCK_FILE } from "./lock.ts";
export { PGLITE_INITIAL_MEMORY, PGLITE_SETTINGS } from "./backends/pglite_config.ts";
