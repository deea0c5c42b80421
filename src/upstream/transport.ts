/**
 * One HTTP attempt against upstream: a per-attempt deadline enforced through
 * the injected {@link Clock} and an `AbortController`, and bounded incremental
 * body reading. The injected `fetch` may ignore the abort signal (an in-process
 * Hono app does), so every await is raced against the signal.
 *
 * @module
 */

import type { Clock } from "../util/clock.ts";

/** The subset of `fetch` the client uses; the global `fetch` and a dev API's `fetch` both fit. */
export type FetchLike = (input: Request | URL | string, init?: RequestInit) => Promise<Response>;

/** Why an attempt stopped early. */
export class AttemptAborted extends Error {
  override readonly name = "AttemptAborted";
  /** `timeout`: the attempt deadline passed; `caller`: the caller's signal fired. */
  readonly why: "timeout" | "caller";
  constructor(why: "timeout" | "caller") {
    super(why === "timeout" ? "attempt timed out" : "aborted by caller");
    this.why = why;
  }
}

/** A running attempt: its signal and a way to race promises against it. */
export interface Attempt {
  readonly signal: AbortSignal;
  /** Resolves like `p`, or rejects with {@link AttemptAborted} once the attempt is aborted. */
  race<T>(p: Promise<T>): Promise<T>;
}

/**
 * Runs `body` with a signal that aborts after `timeoutMs` (clock time) or when
 * `outer` aborts. Rejections caused by the abort are {@link AttemptAborted}.
 */
export async function withAttempt<T>(
  clock: Clock,
  timeoutMs: number,
  outer: AbortSignal | undefined,
  body: (attempt: Attempt) => Promise<T>,
): Promise<T> {
  const ctrl = new AbortController();
  const timer = clock.setTimeout(() => ctrl.abort(new AttemptAborted("timeout")), timeoutMs);
  const onOuter = () => ctrl.abort(new AttemptAborted("caller"));
  if (outer?.aborted) onOuter();
  else outer?.addEventListener("abort", onOuter, { once: true });
  const race = <R>(p: Promise<R>): Promise<R> => {
    if (ctrl.signal.aborted) {
      p.catch(() => {});
      return Promise.reject(ctrl.signal.reason);
    }
    return new Promise<R>((resolve, reject) => {
      const onAbort = () => reject(ctrl.signal.reason);
      ctrl.signal.addEventListener("abort", onAbort, { once: true });
      p.then(
        (v) => {
          ctrl.signal.removeEventListener("abort", onAbort);
          resolve(v);
        },
        (e) => {
          ctrl.signal.removeEventListener("abort", onAbort);
          reject(ctrl.signal.aborted ? ctrl.signal.reason : e);
        },
      );
    });
  };
  try {
    return await body({ signal: ctrl.signal, race });
  } finally {
    clock.clearTimeout(timer);
    outer?.removeEventListener("abort", onOuter);
  }
}

/** Fetches within an attempt; if the response arrives after the abort, its body is cancelled. */
export function attemptFetch(attempt: Attempt, fetchFn: FetchLike, url: string, init: RequestInit): Promise<Response> {
  const p = fetchFn(url, { ...init, signal: attempt.signal });
  p.then((res) => {
    if (attempt.signal.aborted) res.body?.cancel().catch(() => {});
  }, () => {});
  return attempt.race(p);
}

/** Result of {@link readBody}. */
export interface ReadResult {
  /** At most `limit` bytes from the start of the body. */
  bytes: Uint8Array;
  /** True when the end of the body was reached within the limit. */
  complete: boolean;
}

/**
 * Reads at most `limit` bytes of a response body incrementally, then cancels
 * the rest of the stream. The stream is always released.
 */
export async function readBody(attempt: Attempt, res: Response, limit: number): Promise<ReadResult> {
  const body = res.body;
  if (!body) return { bytes: new Uint8Array(0), complete: true };
  // A body of known length within the limit is read whole, into a buffer of its size: the stream's reader hands out
  // 64 KiB chunk buffers, which outlive the call until a GC (issue 15: 64 KiB of native memory per login).
  const length = Number(res.headers.get("content-length") ?? NaN);
  if (Number.isSafeInteger(length) && length >= 0 && length < limit) {
    return { bytes: await attempt.race(res.bytes()), complete: true };
  }
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  let complete = false;
  try {
    while (total < limit) {
      const r = await attempt.race(reader.read());
      if (r.done) {
        complete = true;
        break;
      }
      chunks.push(r.value);
      total += r.value.byteLength;
    }
  } finally {
    // Not awaited: a source that never settles its cancel must not hang the caller.
    if (!complete) reader.cancel().catch(() => {});
  }
  const out = new Uint8Array(Math.min(total, limit));
  let at = 0;
  for (const c of chunks) {
    const n = Math.min(c.byteLength, out.byteLength - at);
    out.set(c.subarray(0, n), at);
    at += n;
    if (at >= out.byteLength) break;
  }
  return { bytes: out, complete };
}

/** Cancels a body we will not read (frees the connection). */
export function discardBody(res: Response): void {
  if (res.body && !res.bodyUsed) res.body.cancel().catch(() => {});
}
