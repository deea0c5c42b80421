/**
 * The chart service behind an HTTP route, opened on the first chart request
 * (its cache directory is created then, and a caller that imports the service
 * lazily loads its parsers and decoders only then). Shared by the monitor
 * proxy and the game server's HTTP port (issue 19). A service that cannot be
 * opened (say, an unwritable cache directory) answers 503 and is tried again
 * on the next request.
 *
 * @module
 */

import type { Logger } from "../../util/log.ts";
import { errorResponse } from "./http_errors.ts";

/** What {@link lazyChartHandler} needs of the service. */
export interface ChartRequestHandler {
  /** Answers `.../chart/{id}[.json]`; null for other paths. */
  handle(req: Request): Promise<Response | null>;
}

/** Answers a `/chart/*` request. */
export type ChartRouteHandler = (req: Request) => Promise<Response>;

/** Options of {@link lazyChartHandler}. */
export interface LazyChartOptions {
  /** Opens the service (called on the first request, and again after a failure). */
  open(): Promise<ChartRequestHandler>;
  /** The cache directory, for the log line of a failure. */
  cacheDir: string;
  log: Logger;
}

/** A handler that opens the service on first use. */
export function lazyChartHandler(o: LazyChartOptions): ChartRouteHandler {
  let service: Promise<ChartRequestHandler> | null = null;
  return async (req) => {
    service ??= o.open();
    let opened: ChartRequestHandler;
    try {
      opened = await service;
    } catch (error) {
      service = null;
      const reason = error instanceof Error ? error.message : String(error);
      o.log.error("cannot open the chart cache", { dir: o.cacheDir, error: reason });
      return errorResponse(503, `the chart service is unavailable: ${reason}`, { "retry-after": "30" });
    }
    return await opened.handle(req) ?? errorResponse(404, "not a chart path");
  };
}
