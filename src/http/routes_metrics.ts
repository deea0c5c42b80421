/**
 * `GET /metrics`: the Prometheus text exposition of the process's metrics
 * (built by the metrics module and handed in by the app). Like the rest of
 * this port it is meant for trusted networks; the reverse-proxy samples in
 * `deploy/` keep it off the public side.
 *
 * @module
 */

import type { Hono } from "hono";
import type { HttpEnv } from "./context.ts";
import { jsonError } from "./errors.ts";

/** What serves the metrics text. */
export interface MetricsSource {
  /** `Content-Type` of the text (Prometheus text format 0.0.4). */
  readonly contentType: string;
  render(): Promise<string>;
}

/** Adds `GET /metrics`. */
export function metricsRoutes(app: Hono<HttpEnv>, metrics: MetricsSource, onError: (error: unknown) => void): void {
  app.get("/metrics", async () => {
    try {
      const body = await metrics.render();
      return new Response(body, { headers: { "content-type": metrics.contentType, "cache-control": "no-store" } });
    } catch (error) {
      onError(error);
      return jsonError(500, "cannot collect metrics");
    }
  });
}
