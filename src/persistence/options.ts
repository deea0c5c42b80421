/**
 * What persistence is opened with: the configuration keys it reads (spec 3
 * §2.3) and the seams tests use.
 *
 * @module
 */

import type { EventBus } from "../events/mod.ts";
import type { Clock } from "../util/clock.ts";
import type { Logger } from "../util/log.ts";
import type { Migration, SqlDb } from "./backends/mod.ts";
import type { DamagedRecordsPolicy, OpenJournalFile } from "./journal/mod.ts";
import type { RetentionConfig } from "./retention/mod.ts";
import type { TelemetrySegmentsOptions } from "./telemetry/segment_store.ts";

/** The configuration keys persistence reads (spec 3 §2.3). */
export interface PersistenceConfig extends RetentionConfig {
  readonly data_dir: string;
  readonly database_url: string | null;
  readonly persistence_queue_capacity: number;
  readonly startup_recovery_timeout: number;
  /** Damaged journal records the store does not hold: refuse to start, or start without them. */
  readonly journal_damaged_records: DamagedRecordsPolicy;
  /** Touches and judges stored per player and round, in MB of wire bytes (`recording/telemetry_cap.ts`). */
  readonly round_telemetry_max_mb: number;
}

/** Names of the periodic jobs (`persistence_jobs.ts`). */
export type JobName = "playtime" | "auth" | "heartbeat" | "retention" | "compact";

/** Options of `openPersistence`. */
export interface PersistenceOptions {
  readonly config: PersistenceConfig;
  readonly clock: Clock;
  readonly log: Logger;
  /** Events to record; without it only direct writes (logins, bans, ...) are durable. */
  readonly bus?: EventBus;
  /** Test seams: a database to use, journal file faults, other migrations, job periods. */
  readonly db?: SqlDb;
  readonly openJournalFile?: OpenJournalFile;
  readonly migrations?: readonly Migration[];
  readonly periods?: Partial<Record<JobName, number>>;
  /** Telemetry store seams (`telemetry/segment_store.ts`): flush period, segment size, memory bound. */
  readonly telemetry?: Partial<Pick<TelemetrySegmentsOptions, "flushMs" | "segmentBytes" | "maxPendingBytes">>;
  /** Journal fsync coalescing delay (default 2 ms). */
  readonly syncDelayMs?: number;
}
