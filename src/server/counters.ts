/**
 * Production counters and latency histograms (spec 3 §7 rule 4, §8;
 * extended.md §6). The "must stay 0" counters are invariants of official
 * client compatibility: tests assert they are 0 after every scenario.
 *
 * @module
 */

/** Counters that must stay 0 in production. */
export const INVARIANT_COUNTERS = [
  "silent_response_paths",
  "late_commit",
  "commit_without_response",
  "compat_queue_drop",
  "stale_commit_prevented",
  "gate_control_overflow",
  "critical_compat_drop",
] as const;

/**
 * Absolute deadline of a command, from its arrival (extended.md §6
 * `session_command_deadline_ms`): the official client gives up after about
 * 7 s, so a command reaching its handler later is refused, not committed
 * (`late_commit`).
 */
export const COMMAND_DEADLINE_MS = 4500;

/** Informational counters. */
export const INFO_COUNTERS = [
  "request_received",
  "response_queued",
  "response_flushed",
  "unsolicited_reply_blocked",
  "malformed_frames",
  "frame_budget_exceeded",
  "slow_client_disconnects",
  "sessions_rejected_full",
  "connections_rate_limited",
  "commands_rate_limited",
  "telemetry_dropped",
  "telemetry_items_dropped",
  "commands_vetoed",
  "command_hook_failures",
  "auth_rejected_busy",
  "auth_rejected_address_busy",
  "auth_rejected_remembered",
  "auth_cache_hits",
  "auth_cache_misses",
  "auth_failures",
] as const;

/** Name of a counter. */
export type CounterName = (typeof INVARIANT_COUNTERS)[number] | (typeof INFO_COUNTERS)[number];

/** Upper bounds (ms) of the 9 latency buckets; the last bucket is "5000 ms and over". */
export const LATENCY_BOUNDS_MS = [1, 5, 10, 50, 100, 500, 1000, 5000] as const;

/** A fixed-bucket latency histogram. */
export class LatencyHistogram {
  readonly buckets: number[] = new Array(LATENCY_BOUNDS_MS.length + 1).fill(0);
  count = 0;
  sumMs = 0;
  maxMs = 0;

  /** Records one duration in milliseconds. */
  record(ms: number): void {
    let i = 0;
    while (i < LATENCY_BOUNDS_MS.length && ms >= LATENCY_BOUNDS_MS[i]!) i++;
    this.buckets[i]!++;
    this.count++;
    this.sumMs += ms;
    if (ms > this.maxMs) this.maxMs = ms;
  }

  /** Bucket labels: `<1ms`, `<5ms`, ..., `>=5000ms`. */
  static labels(): string[] {
    return [...LATENCY_BOUNDS_MS.map((b) => `<${b}ms`), `>=${LATENCY_BOUNDS_MS.at(-1)}ms`];
  }

  /** Plain JSON view. */
  toJSON(): { count: number; avg_ms: number; max_ms: number; buckets: Record<string, number> } {
    const labels = LatencyHistogram.labels();
    return {
      count: this.count,
      avg_ms: this.count ? this.sumMs / this.count : 0,
      max_ms: this.maxMs,
      buckets: Object.fromEntries(labels.map((l, i) => [l, this.buckets[i]!])),
    };
  }
}

/** All counters and histograms of one server. */
export class Counters {
  readonly values: Record<CounterName, number> = Object.fromEntries(
    [...INVARIANT_COUNTERS, ...INFO_COUNTERS].map((n) => [n, 0]),
  ) as Record<CounterName, number>;
  /** Command received -> its reply queued. */
  readonly response = new LatencyHistogram();
  /** Authenticate received -> `Authenticate(Ok)` flushed. */
  readonly handshake = new LatencyHistogram();

  /** Adds `n` (default 1) to a counter. */
  inc(name: CounterName, n = 1): void {
    this.values[name] += n;
  }

  /** Invariant counters that are not 0. */
  violations(): Partial<Record<CounterName, number>> {
    return Object.fromEntries(INVARIANT_COUNTERS.filter((n) => this.values[n] !== 0).map((n) => [n, this.values[n]]));
  }
}
