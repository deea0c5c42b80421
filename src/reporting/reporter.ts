/**
 * What an error reporter is (spec 3 §2.3 `sentry_dsn`) and the one that
 * reports nothing, apart from the Sentry client (`sentry.ts`) so that a
 * process without a DSN never loads the SDK (issue 15 "Load on demand").
 *
 * @module
 */

import type { Clock } from "../util/clock.ts";
import type { LogHub, LogRecord } from "../util/log.ts";

/** Events sent per minute at most; the rest are counted and dropped. */
export const MAX_EVENTS_PER_MINUTE = 30;

/** Options of `createErrorReporter` (`sentry.ts`). */
export interface ReporterOptions {
  /** The DSN; null or empty = reporting off. */
  readonly dsn: string | null;
  /** `chorus@<version>`. */
  readonly release: string;
  /** The profile (`production`, `staging`, `development`). */
  readonly environment: string;
  readonly serverName?: string;
  /** Exact secret values to redact (the configuration's). */
  readonly secrets?: readonly string[];
  readonly clock: Clock;
  /** Transport fetch (tests; default the global one). */
  readonly fetch?: typeof fetch;
}

/** Reports errors; a no-op when reporting is off. */
export interface ErrorReporter {
  readonly enabled: boolean;
  /** Events dropped by the per-minute cap. */
  readonly dropped: number;
  /** Reports an error (an uncaught one, a failed operation) with context fields. */
  captureError(error: unknown, fields?: Record<string, unknown>): void;
  /** Reports an error-level log record. */
  captureRecord(record: LogRecord): void;
  /** Reports error-level records of `logs` from now on; returns the function that stops it. */
  follow(logs: LogHub): () => void;
  /** Sends what is queued, waiting at most `ms`. */
  flush(ms?: number): Promise<boolean>;
  close(ms?: number): Promise<void>;
}

/** The reporter that reports nothing (no DSN). */
export const NO_REPORTER: ErrorReporter = {
  enabled: false,
  dropped: 0,
  captureError: () => {},
  captureRecord: () => {},
  follow: () => () => {},
  flush: () => Promise.resolve(true),
  close: () => Promise.resolve(),
};
