/**
 * Per-endpoint statistics of the upstream client, for the runtime report
 * (spec 3 §4.5 `runtime.phira`).
 *
 * @module
 */

import type { UpstreamEndpoint } from "./errors.ts";

/** Counters of one endpoint; plain JSON. */
export interface EndpointStats {
  /** Logical calls started. */
  calls: number;
  /** Calls that ended in an error (after any retries). */
  failures: number;
  /** Extra attempts made after a retryable failure. */
  retries: number;
  /** Message of the most recent failed attempt, or `null`. */
  lastError: string | null;
  /** Epoch milliseconds of {@link EndpointStats.lastError}, or `null`. */
  lastErrorAt: number | null;
  /** Sum of whole-call latencies (including retries and backoff), milliseconds. */
  latencyMsSum: number;
  /** Largest whole-call latency, milliseconds. */
  latencyMsMax: number;
}

/** Statistics of every endpoint, as returned by `Upstream.stats()`. */
export type UpstreamStats = Record<UpstreamEndpoint, EndpointStats>;

const ENDPOINTS: readonly UpstreamEndpoint[] = ["me", "chart", "record", "login", "download", "user", "user_search"];

/** Mutable counters shared by an `Upstream` and the copies made by `withBaseUrl`. */
export class StatsRecorder {
  #stats = new Map<UpstreamEndpoint, EndpointStats>();

  constructor() {
    for (const e of ENDPOINTS) {
      this.#stats.set(e, {
        calls: 0,
        failures: 0,
        retries: 0,
        lastError: null,
        lastErrorAt: null,
        latencyMsSum: 0,
        latencyMsMax: 0,
      });
    }
  }

  #get(e: UpstreamEndpoint): EndpointStats {
    return this.#stats.get(e)!;
  }

  /** A call started. */
  call(e: UpstreamEndpoint): void {
    this.#get(e).calls++;
  }

  /** A retry is about to happen. */
  retry(e: UpstreamEndpoint): void {
    this.#get(e).retries++;
  }

  /** An attempt failed with `message` at epoch `at`. */
  attemptFailed(e: UpstreamEndpoint, message: string, at: number): void {
    const s = this.#get(e);
    s.lastError = message;
    s.lastErrorAt = at;
  }

  /** A call finished after `latencyMs`, successfully or not. */
  finished(e: UpstreamEndpoint, ok: boolean, latencyMs: number): void {
    const s = this.#get(e);
    if (!ok) s.failures++;
    s.latencyMsSum += latencyMs;
    if (latencyMs > s.latencyMsMax) s.latencyMsMax = latencyMs;
  }

  /** A deep copy as plain JSON. */
  snapshot(): UpstreamStats {
    const out = {} as UpstreamStats;
    for (const [e, s] of this.#stats) out[e] = { ...s };
    return out;
  }
}
