/**
 * Durable persistence (issue 5; spec 3 §2.2, §2.3, §3.2, §7, §8): one store
 * interface and schema over SQLite (embedded, `data_dir/chorus.sqlite`) or
 * PostgreSQL, fed through a local write-ahead journal.
 *
 * Inside: `journal/` (the write-ahead journal and its recovery), `apply/`
 * (applying records to the store exactly once), `backends/` (the
 * databases), `queries/` (reading the store), `retention/`, `recording/`
 * (events into records), composed by `persistence.ts`.
 *
 * @module
 */

export * from "./persistence.ts";
export * from "./types.ts";
export * from "./status.ts";
export * from "./queries/mod.ts";
export type { DeadLetter, ReplayOutcome } from "./apply/mod.ts";
export type { SegmentView, WalInspection } from "./inspect.ts";
export type { RetentionResult } from "./retention/mod.ts";
export { RETENTION_TABLES } from "./retention/mod.ts";
export {
  convertCommand,
  convertPgliteStore,
  describeDatabase,
  hasPgliteStore,
  SCHEMA_VERSION,
  storePaths,
} from "./backends/mod.ts";
export { DataDirLock, LOCK_FILE } from "./lock.ts";
