/**
 * Retry with exponential backoff and jitter inside a caller-given time budget
 * (spec 3 §5 rule 1: authentication retries upstream within a 5000 ms budget).
 * Every wait goes through the injected {@link Clock}.
 *
 * @module
 */

import type { Clock } from "../util/clock.ts";
import type { Random } from "../util/random.ts";
import { UpstreamError } from "./errors.ts";
import type { StatsRecorder } from "./stats.ts";

/** Tunables of {@link withRetry}; see {@link DEFAULT_RETRY_POLICY}. */
export interface RetryPolicy {
  /** Upper bound of one attempt; the real timeout is also capped by the remaining budget. */
  attemptTimeoutMs: number;
  /** Most attempts per call. */
  maxAttempts: number;
  /** Backoff before the first retry; doubles each time. */
  backoffBaseMs: number;
  /** Backoff ceiling (before jitter). */
  backoffMaxMs: number;
  /** No attempt is started with less budget left than this. */
  minAttemptMs: number;
  /** Budget of a call when the caller gives none. */
  defaultBudgetMs: number;
}

/** Defaults: 5 s attempts, 4 attempts, 100 ms -> 2 s backoff, 10 s budget. */
export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = {
  attemptTimeoutMs: 5000,
  maxAttempts: 4,
  backoffBaseMs: 100,
  backoffMaxMs: 2000,
  minAttemptMs: 50,
  defaultBudgetMs: 10000,
};

/** Everything a retried call needs. */
export interface RetryContext {
  clock: Clock;
  random: Random;
  stats: StatsRecorder;
  policy: RetryPolicy;
  endpoint: UpstreamError["endpoint"];
  /** Total time for all attempts and waits, milliseconds. */
  budgetMs: number;
  signal: AbortSignal | undefined;
  /** Builds the error reported when the caller aborts during a backoff wait. */
  aborted: () => UpstreamError;
}

/** Backoff before retry number `retry` (1-based): equal jitter over an exponential step. */
export function backoffMs(policy: RetryPolicy, retry: number, random: Random): number {
  const step = Math.min(policy.backoffMaxMs, policy.backoffBaseMs * 2 ** (retry - 1));
  return Math.round(step / 2 + random.next() * (step / 2));
}

/**
 * Runs `attempt(timeoutMs)` until it succeeds, fails with a non-retryable
 * error, runs out of attempts, or the budget cannot fit another attempt.
 * The last error is rethrown.
 */
export async function withRetry<T>(ctx: RetryContext, attempt: (timeoutMs: number) => Promise<T>): Promise<T> {
  const { clock, policy, stats, endpoint } = ctx;
  const started = clock.monotonic();
  const deadline = started + ctx.budgetMs;
  stats.call(endpoint);
  let ok = false;
  try {
    for (let n = 1;; n++) {
      const remaining = deadline - clock.monotonic();
      const timeoutMs = Math.max(1, Math.min(policy.attemptTimeoutMs, remaining));
      try {
        const value = await attempt(timeoutMs);
        ok = true;
        return value;
      } catch (e) {
        if (!(e instanceof UpstreamError)) throw e;
        stats.attemptFailed(endpoint, e.message, clock.now());
        if (!e.retryable || n >= policy.maxAttempts) throw e;
        const wait = Math.max(backoffMs(policy, n, ctx.random), e.retryAfterMs ?? 0);
        if (clock.monotonic() + wait + policy.minAttemptMs > deadline) throw e;
        await sleep(clock, wait, ctx.signal, ctx.aborted);
        stats.retry(endpoint);
      }
    }
  } finally {
    stats.finished(endpoint, ok, clock.monotonic() - started);
  }
}

function sleep(clock: Clock, ms: number, signal: AbortSignal | undefined, aborted: () => Error): Promise<void> {
  if (signal?.aborted) return Promise.reject(aborted());
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clock.clearTimeout(timer);
      reject(aborted());
    };
    const timer = clock.setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** `Retry-After` as milliseconds from `now` (seconds or an HTTP date); `undefined` when absent or invalid. */
export function parseRetryAfter(value: string | null, now: number): number | undefined {
  if (value === null) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
