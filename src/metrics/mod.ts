/**
 * Prometheus metrics of the game server (`GET /metrics` on the HTTP port),
 * read at scrape time from what the server already counts.
 *
 * @module
 */

export { type MetricsSources, PLUGIN_STATES, registerServerMetrics, ServerMetrics } from "./server_metrics.ts";
export { CommandCounter } from "./command_counter.ts";
export { histogramSamples, registerSnapshot, type Sample } from "./snapshot.ts";
