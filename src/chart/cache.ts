/**
 * An optional, short-lived, bounded per-process cache of probed durations,
 * keyed by chart id and `chartUpdated` (which changes whenever the chart file
 * does, extended.md §5.5). Spec 3 §3.1 rule 5 re-resolves the chart at each
 * selection: the metadata is still fetched every time, and only an unchanged
 * file within the time-to-live skips the archive download. Concurrent probes
 * of the same key share one download.
 *
 * @module
 */

import type { Clock } from "../util/clock.ts";
import type { ChartAudio } from "./probe.ts";

/** Options of {@link ChartDurationCache}. */
export interface ChartDurationCacheOptions {
  /** Time source for expiry. */
  clock: Clock;
  /** Entries kept; the least recently used goes first (default 256). */
  maxEntries?: number;
  /** Lifetime of an entry in milliseconds (default 10 minutes). */
  ttlMs?: number;
}

interface Entry {
  audio: ChartAudio;
  expiresAt: number;
}

/** LRU cache of chart durations with expiry and single-flight probing. */
export class ChartDurationCache {
  readonly #clock: Clock;
  readonly #max: number;
  readonly #ttl: number;
  readonly #entries = new Map<string, Entry>();
  readonly #inflight = new Map<string, Promise<ChartAudio>>();

  /** An empty cache. */
  constructor(o: ChartDurationCacheOptions) {
    if (o.maxEntries !== undefined && (!Number.isInteger(o.maxEntries) || o.maxEntries < 1)) {
      throw new RangeError(
        `Cannot create a chart duration cache: maxEntries ${o.maxEntries} is not a positive integer`,
      );
    }
    this.#clock = o.clock;
    this.#max = o.maxEntries ?? 256;
    this.#ttl = o.ttlMs ?? 600_000;
  }

  /** Entries held (expired ones included until touched). */
  get size(): number {
    return this.#entries.size;
  }

  /** The cached result for a chart version, or `undefined` (also when expired). */
  get(chartId: number, chartUpdated: string): ChartAudio | undefined {
    const key = cacheKey(chartId, chartUpdated);
    const e = this.#entries.get(key);
    if (!e) return undefined;
    this.#entries.delete(key);
    if (e.expiresAt <= this.#clock.monotonic()) return undefined;
    this.#entries.set(key, e); // most recently used last
    return e.audio;
  }

  /** Stores a result, evicting the least recently used entry when full. */
  set(chartId: number, chartUpdated: string, audio: ChartAudio): void {
    const key = cacheKey(chartId, chartUpdated);
    this.#entries.delete(key);
    this.#entries.set(key, { audio, expiresAt: this.#clock.monotonic() + this.#ttl });
    for (const old of this.#entries.keys()) {
      if (this.#entries.size <= this.#max) break;
      this.#entries.delete(old);
    }
  }

  /** Forgets every entry of a chart (for example after an administrator reports a changed file). */
  delete(chartId: number): void {
    const prefix = `${chartId}\n`;
    for (const key of [...this.#entries.keys()]) if (key.startsWith(prefix)) this.#entries.delete(key);
  }

  /**
   * The cached result, or the result of `probe` (stored on success; failures are not cached).
   * Concurrent calls for the same key share one `probe`. `cached` tells which happened.
   */
  async getOrProbe(
    chartId: number,
    chartUpdated: string,
    probe: () => Promise<ChartAudio>,
  ): Promise<{ audio: ChartAudio; cached: boolean }> {
    const hit = this.get(chartId, chartUpdated);
    if (hit) return { audio: hit, cached: true };
    const key = cacheKey(chartId, chartUpdated);
    const running = this.#inflight.get(key);
    if (running) return { audio: await running, cached: true };
    const p = probe();
    this.#inflight.set(key, p);
    try {
      const audio = await p;
      this.set(chartId, chartUpdated, audio);
      return { audio, cached: false };
    } finally {
      this.#inflight.delete(key);
    }
  }
}

function cacheKey(chartId: number, chartUpdated: string): string {
  return `${chartId}\n${chartUpdated}`;
}
