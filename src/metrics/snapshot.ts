/**
 * Metrics read at scrape time. The server already counts what `/metrics`
 * shows (production counters, latency histograms, registry sizes, store
 * and bus status); a snapshot metric reads those when Prometheus scrapes,
 * so serving metrics adds no work per message. prom-client formats them:
 * a registered metric is any object with a name, help, type and a `get()`
 * returning its current values.
 *
 * @module
 */

import type { Registry } from "prom-client";

/** One sample: labels and a value. `suffix` names a histogram's `_bucket`, `_sum`, `_count` lines. */
export interface Sample {
  readonly labels?: Readonly<Record<string, string | number>>;
  readonly value: number;
  readonly suffix?: "_bucket" | "_sum" | "_count";
}

/** The Prometheus types used here. */
export type MetricType = "counter" | "gauge" | "histogram";

/** What prom-client's registry reads of a metric. */
interface PromMetric {
  readonly name: string;
  readonly help: string;
  readonly type: MetricType;
  readonly aggregator: "sum";
  get(): Promise<{ name: string; help: string; type: MetricType; aggregator: "sum"; values: unknown[] }>;
  reset(): void;
}

/** Registers a metric whose samples `read` returns at every scrape. */
export function registerSnapshot(
  registry: Registry,
  name: string,
  help: string,
  type: MetricType,
  read: () => readonly Sample[],
): void {
  const metric: PromMetric = {
    name,
    help,
    type,
    aggregator: "sum",
    get: () =>
      Promise.resolve({
        name,
        help,
        type,
        aggregator: "sum",
        values: read().map((s) => ({
          value: s.value,
          labels: s.labels ?? {},
          ...(s.suffix ? { metricName: name + s.suffix } : {}),
        })),
      }),
    reset: () => {},
  };
  registry.registerMetric(metric as unknown as Parameters<Registry["registerMetric"]>[0]);
}

/**
 * Cumulative Prometheus buckets from a fixed-bucket histogram counted in
 * milliseconds (`counts[i]` = values under `boundsMs[i]`, the last one the
 * rest), in seconds. The server's buckets are "under b ms"; Prometheus's
 * are "at most b s": they differ only for a value exactly on a bound, which
 * the monotonic clock's fractional milliseconds make vanishingly rare.
 */
export function histogramSamples(
  boundsMs: readonly number[],
  counts: readonly number[],
  sumMs: number,
  count: number,
  labels: Readonly<Record<string, string>> = {},
): Sample[] {
  const samples: Sample[] = [];
  let cumulative = 0;
  boundsMs.forEach((bound, i) => {
    cumulative += counts[i] ?? 0;
    samples.push({ suffix: "_bucket", labels: { ...labels, le: bound / 1000 }, value: cumulative });
  });
  samples.push({ suffix: "_bucket", labels: { ...labels, le: "+Inf" }, value: count });
  samples.push({ suffix: "_sum", labels, value: sumMs / 1000 });
  samples.push({ suffix: "_count", labels, value: count });
  return samples;
}
