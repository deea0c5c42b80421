/**
 * Chart selection's duration step (spec 3 §3.1 rule 5): chart metadata from
 * `/chart/{id}` (unless the caller already has it), then the probe of its
 * `file`, optionally through a {@link ChartDurationCache}. One budget covers
 * both.
 *
 * @module
 */

import { SystemClock } from "../util/clock.ts";
import type { Upstream, UpstreamChart } from "../upstream/mod.ts";
import type { ChartDurationCache } from "./cache.ts";
import { ChartProbeError, fromUpstreamError } from "./errors.ts";
import { type ChartAudio, DEFAULT_PROBE_BUDGET_MS, probeChartDuration, type ProbeOptions } from "./probe.ts";

/** Options of {@link resolveChartDuration}. */
export interface ResolveOptions extends ProbeOptions {
  /** Reuse durations of unchanged chart files (keyed by id and `chartUpdated`); charts without it are not cached. */
  cache?: ChartDurationCache;
}

/** A chart and the duration of its music. */
export interface ResolvedChartDuration {
  chart: UpstreamChart;
  audio: ChartAudio;
  /** True when the duration came from the cache (or a probe another caller started). */
  cached: boolean;
}

/** Fetches chart `chart` (an id, or metadata already fetched) and probes the duration of its music. */
export async function resolveChartDuration(
  upstream: Upstream,
  chart: number | UpstreamChart,
  options: ResolveOptions = {},
): Promise<ResolvedChartDuration> {
  const clock = options.clock ?? new SystemClock();
  const budgetMs = options.budgetMs ?? DEFAULT_PROBE_BUDGET_MS;
  const started = clock.monotonic();
  let meta: UpstreamChart;
  if (typeof chart === "number") {
    const call = options.signal ? { budgetMs, signal: options.signal } : { budgetMs };
    try {
      meta = await upstream.chart(chart, call);
    } catch (e) {
      throw fromUpstreamError(e);
    }
  } else {
    meta = chart;
  }
  const file = meta.file;
  if (file === null) throw new ChartProbeError("no_file", `Cannot probe chart ${meta.id}: it has no file`);
  const { cache: _, ...rest } = options;
  const probe = () =>
    probeChartDuration(upstream, file, { ...rest, clock, budgetMs: budgetMs - (clock.monotonic() - started) });
  if (!options.cache || meta.chartUpdated === undefined) return { chart: meta, audio: await probe(), cached: false };
  const r = await options.cache.getOrProbe(meta.id, meta.chartUpdated, probe);
  return { chart: meta, ...r };
}
