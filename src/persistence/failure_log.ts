/**
 * Logging of a failure that repeats (issue 14 "Diagnostics": a full disk
 * logged one ERROR per failed journal record, 1,947 lines in 30 s). The
 * first failure of a run is logged at once with its details; while the
 * failures go on, one line per interval says how many there were since the
 * last line; the first success after them says how many failed in all and
 * for how long. Time comes from the injected clock.
 *
 * @module
 */

import type { Clock } from "../util/clock.ts";
import type { LogFields, Logger } from "../util/log.ts";

/** Default interval between the lines of a run of failures. */
export const FAILURE_LOG_INTERVAL_MS = 10_000;

/** Options of {@link FailureLog}. */
export interface FailureLogOptions {
  readonly log: Logger;
  readonly clock: Pick<Clock, "now">;
  /** The ERROR line of a failure (the count lines repeat it). */
  readonly message: string;
  /** The line once it works again. */
  readonly recovered: string;
  readonly intervalMs?: number;
}

/** One kind of repeating failure; see the module doc. */
export class FailureLog {
  readonly #o: FailureLogOptions;
  /** When the current run of failures began; null while things work. */
  #since: number | null = null;
  #reportedAt = 0;
  #unreported = 0;
  #total = 0;

  constructor(o: FailureLogOptions) {
    this.#o = o;
  }

  /** Failures in the current run (0 while things work). */
  get failing(): number {
    return this.#total;
  }

  /** Counts a failure; logs it if it is the first of a run or an interval has passed. */
  failed(fields: LogFields): void {
    const now = this.#o.clock.now();
    this.#total++;
    if (this.#since === null) {
      this.#since = this.#reportedAt = now;
      this.#o.log.error(this.#o.message, fields);
      return;
    }
    this.#unreported++;
    const interval = this.#o.intervalMs ?? FAILURE_LOG_INTERVAL_MS;
    if (now - this.#reportedAt < interval) return;
    this.#o.log.error(`${this.#o.message} (still failing)`, {
      ...fields,
      failures: this.#unreported,
      in_ms: now - this.#reportedAt,
      failures_total: this.#total,
    });
    this.#reportedAt = now;
    this.#unreported = 0;
  }

  /** Ends a run of failures, if any, with one line. O(1) when nothing failed. */
  succeeded(): void {
    if (this.#since === null) return;
    const now = this.#o.clock.now();
    this.#o.log.warn(this.#o.recovered, {
      failures_total: this.#total,
      failures_not_logged: this.#unreported,
      for_ms: now - this.#since,
    });
    this.#since = null;
    this.#unreported = 0;
    this.#total = 0;
  }
}
