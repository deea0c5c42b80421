/**
 * One logical upstream call: budgeted retries around single attempts, and
 * the mapping of every failure to an {@link UpstreamError} with a readable
 * reason (`HTTP 404 Not Found`, `request timed out after 5000 ms`, ...).
 *
 * @module
 */

import type { Clock } from "../util/clock.ts";
import type { ConcurrencyLimit } from "../util/concurrency_limit.ts";
import type { Random } from "../util/random.ts";
import {
  httpReason,
  type UpstreamEndpoint,
  UpstreamError,
  type UpstreamErrorInit,
  type UpstreamErrorKind,
} from "./errors.ts";
import { parseContentRange } from "./range.ts";
import { parseRetryAfter, type RetryPolicy, withRetry } from "./retry.ts";
import type { StatsRecorder } from "./stats.ts";
import { type Attempt, AttemptAborted, attemptFetch, discardBody, type FetchLike, withAttempt } from "./transport.ts";

/** Per-call options. */
export interface CallOptions {
  /** Time for all attempts and backoff, milliseconds (default: the policy's `defaultBudgetMs`, 10 s). */
  budgetMs?: number;
  /** Cancels the call; it then fails with kind `aborted`. */
  signal?: AbortSignal;
}

/** Dependencies shared by every call of a client. */
export interface CallContext {
  fetch: FetchLike;
  clock: Clock;
  random: Random;
  policy: RetryPolicy;
  userAgent: string;
  stats: StatsRecorder;
  /** Requests in flight at once, shared by every client of the process. */
  slots: ConcurrencyLimit;
}

/** Builds an error of the current call. */
export type Fail = (
  kind: UpstreamErrorKind,
  reason: string,
  extra?: Pick<UpstreamErrorInit, "status" | "cause" | "retryAfterMs">,
) => UpstreamError;

/** What a call sends. */
export interface CallRequest {
  endpoint: UpstreamEndpoint;
  /** Message prefix, for example `Cannot fetch chart 42`. */
  action: string;
  url: string;
  init: RequestInit & { headers: Record<string, string> };
}

/**
 * Sends `req` with retries; `handle` turns a 2xx response into the result
 * (it may throw errors made with `fail`). Non-2xx answers become `http` errors.
 */
export function call<T>(
  ctx: CallContext,
  req: CallRequest,
  o: CallOptions,
  handle: (res: Response, attempt: Attempt, fail: Fail) => Promise<T>,
): Promise<T> {
  const { endpoint, action, url } = req;
  const fail: Fail = (kind, reason, extra = {}) => new UpstreamError({ kind, endpoint, url, action, reason, ...extra });
  const init = { ...req.init, headers: { "user-agent": ctx.userAgent, ...req.init.headers } };
  const retry = {
    clock: ctx.clock,
    random: ctx.random,
    stats: ctx.stats,
    policy: ctx.policy,
    endpoint,
    budgetMs: o.budgetMs ?? ctx.policy.defaultBudgetMs,
    signal: o.signal,
    aborted: () => fail("aborted", "aborted by caller"),
  };
  return withRetry(retry, (timeoutMs) =>
    withAttempt(ctx.clock, timeoutMs, o.signal, async (attempt) => {
      let res: Response | undefined;
      let held = false;
      try {
        // The wait for a slot counts against this attempt's deadline; the slot is held until the body is read.
        await ctx.slots.acquire(attempt.signal);
        held = true;
        res = await attemptFetch(attempt, ctx.fetch, url, init);
        if (!res.ok) throw httpError(res, fail, ctx.clock.now());
        return await handle(res, attempt, fail);
      } catch (e) {
        if (res) discardBody(res);
        if (e instanceof UpstreamError) throw e;
        if (e instanceof AttemptAborted) {
          throw e.why === "timeout"
            ? fail("timeout", `request timed out after ${timeoutMs} ms`)
            : fail("aborted", "aborted by caller");
        }
        const detail = e instanceof Error ? e.message : String(e);
        throw fail("network", `network error: ${detail}`, { cause: e });
      } finally {
        if (held) ctx.slots.release();
      }
    }));
}

function httpError(res: Response, fail: Fail, now: number): UpstreamError {
  let reason = httpReason(res.status, res.statusText);
  if (res.status === 416) {
    const cr = parseContentRange(res.headers.get("content-range"));
    if (cr && "unsatisfied" in cr) reason += ` (resource is ${cr.total} bytes)`;
  }
  const retryAfterMs = parseRetryAfter(res.headers.get("retry-after"), now);
  return fail("http", reason, { status: res.status, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) });
}
