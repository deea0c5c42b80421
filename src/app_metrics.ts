/**
 * `GET /metrics` of the wired process, built on the first scrape: the
 * Prometheus registry (prom-client and its process collectors) is loaded
 * then, not at start-up (issue 15 "Load on demand"), so a server nobody
 * scrapes never loads it. The figures are the server's own counters, read at
 * scrape time either way.
 *
 * @module
 */

import type { MetricsSource } from "./http/routes_metrics.ts";
import type { MetricsSources, ServerMetrics } from "./metrics/server_metrics.ts";

/** Prometheus text format 0.0.4 (prom-client's `contentType`), the answer's type until the registry is built. */
const PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";

/** A metrics source that builds the registry of `sources` on the first `render()`. */
export function lazyMetrics(sources: MetricsSources): MetricsSource {
  let metrics: Promise<ServerMetrics> | null = null;
  let built: ServerMetrics | null = null;
  return {
    get contentType() {
      return built?.contentType ?? PROMETHEUS_TEXT;
    },
    async render() {
      metrics ??= import("./metrics/server_metrics.ts").then((m) => new m.ServerMetrics(sources));
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
