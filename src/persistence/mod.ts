/**
 * Durable persistence (issue 5; spec 3 §2.2, §2.3, §3.2, §7, §8): one store
 * interface and schema over PGlite (embedded, under `data_dir`) or
 * PostgreSQL, fed through a local write-ahead journal.
 *
 * @module
 */

export * from "./persistence.ts";
export * from "./persistence_core.ts";
export * from "./types.ts";
export * from "./status.ts";
export * from "./queries.ts";
export * from "./rows.ts";
export type { DeadLetter, ReplayOutcome } from "./store.ts";
export type { SegmentView, WalInspection } from "./inspect.ts";
export type { RetentionResult } from "./retention.ts";
export { RETENTION_TABLES } from "./retention.ts";
export { SCHEMA_VERSION } from "./migrations.ts";
export { LOCK_FILE } from "./lock.ts";
export { PGLITE_INITIAL_MEMORY, PGLITE_SETTINGS } from "./pglite_config.ts";
