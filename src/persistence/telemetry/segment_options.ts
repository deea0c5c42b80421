/**
 * The limits and options of the telemetry store (`segment_store.ts`) and
 * its counters in `runtime persistence`.
 *
 * @module
 */

import type { ReplayIo } from "../../replay/mod.ts";
import type { Clock } from "../../util/clock.ts";
import type { Logger } from "../../util/log.ts";
import type { RoundTelemetryCap } from "../recording/telemetry_cap.ts";
import type { TelemetrySegmentsEntry } from "./segment_types.ts";

/** Defaults of {@link TelemetrySegmentsOptions}. */
export const SEGMENT_LIMITS = {
  /** spec 3 §8: telemetry is written at least every 500 ms. */
  flushMs: 500,
  /** A file's buffer is written once it holds this much, and indexed once this much is written and not indexed. */
  segmentBytes: 64 * 1024,
  /**
   * What a file wrote is indexed (fsync, then one row) at least this often: a crash loses at most this much of an
   * open file from the index (not from the file).
   */
  indexMs: 5000,
  /** Bytes buffered or being written, all files together. */
  maxPendingBytes: 32 * 1024 * 1024,
  /**
   * Ticks per `flushMs`: each file is flushed by one of them, so a tick's work (8,000 files at 1,000 rooms) is
   * spread over the period instead of stalling the event loop once per period.
   */
  slots: 8,
  /** Names tried after the round's start when a file of that name exists (a clock stepped back). */
  nameAttempts: 16,
} as const;

/** Options of {@link TelemetrySegments}. */
export interface TelemetrySegmentsOptions {
  readonly clock: Clock;
  readonly log: Logger;
  /** The telemetry folder (`<data_dir>/record`). */
  readonly dir: string;
  /** Journals the index rows of segments written (never throws). */
  readonly emit: (entry: TelemetrySegmentsEntry) => void;
  /** What one player may store per round (default: the cap's default budget). */
  readonly cap?: RoundTelemetryCap;
  readonly flushMs?: number;
  readonly segmentBytes?: number;
  readonly indexMs?: number;
  readonly maxPendingBytes?: number;
  /** Where the files' operations run (default: on the event loop's thread). */
  readonly io?: ReplayIo;
}

/** Counters of the store (`runtime persistence`). */
export interface TelemetrySegmentsCounters {
  messages: number;
  bytes: number;
  segments: number;
  records: number;
  /** Messages dropped because too much waited for the disk, or after the file failed. */
  dropped: number;
  /** Files whose writing failed. */
  failed_files: number;
}
