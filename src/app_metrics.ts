/**
 * `GET /metrics` of the wired process, built on the first scrape: the
 * Prometheus registry (prom-client and its process collectors) is loaded
 * then, not at start-up (issue 15 "Load on demand"), so a server nobody
 * scrapes never loads it. The figures are the server's own counters, read at
 * scrape time either way. prom-client counts CPU time from when its collector
 * is made: the CPU counters are seeded with what the process used before, so
 * they still count from the process's start.
 *
 * @module
 */

import process from "node:process";
import type { Counter } from "prom-client";
import type { MetricsSource } from "./http/routes_metrics.ts";
import type { MetricsSources, ServerMetrics } from "./metrics/server_metrics.ts";

/** Prometheus text format 0.0.4 (prom-client's `contentType`), the answer's type until the registry is built. */
const PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";

/** Builds the metrics of `sources`, their CPU counters carrying the time used before they were made. */
async function build(sources: MetricsSources): Promise<ServerMetrics> {
  const { ServerMetrics } = await import("./metrics/server_metrics.ts");
  const before = process.cpuUsage();
  const metrics = new ServerMetrics(sources);
  const seconds: Record<string, number> = {
    process_cpu_user_seconds_total: before.user / 1e6,
    process_cpu_system_seconds_total: before.system / 1e6,
    process_cpu_seconds_total: (before.user + before.system) / 1e6,
  };
  for (const [name, value] of Object.entries(seconds)) {
    (metrics.registry.getSingleMetric(name) as Counter | undefined)?.inc(value);
  }
  return metrics;
}

/** A metrics source that builds the registry of `sources` on the first `render()`. */
export function lazyMetrics(sources: MetricsSources): MetricsSource {
  let metrics: Promise<ServerMetrics> | null = null;
  let built: ServerMetrics | null = null;
  return {
    get contentType() {
      return built?.contentType ?? PROMETHEUS_TEXT;
    },
    async render() {
      metrics ??= build(sources);
      try {
        built = await metrics;
      } catch (error) {
        metrics = null; // tried again on the next scrape
        throw error;
      }
      return await built.render();
    },
  };
}
