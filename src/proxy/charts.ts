/**
 * The proxy's `/chart/{id}` handler (spec 1 §4.1): the chart service of
 * `src/chart/`, opened on the first chart request (its parsers and audio
 * decoders are loaded only then) with its cache in `--cache-dir`.
 *
 * @module
 */

import { lazyChartHandler } from "../chart/build/lazy.ts";
import type { ChartHandler } from "./app.ts";
import type { ChartContext } from "./service.ts";

/** Builds the handler; a cache directory that cannot be opened answers 503 and is tried again on the next request. */
export function chartServiceHandler(ctx: ChartContext): ChartHandler {
  return lazyChartHandler({
    cacheDir: ctx.cacheDir,
    log: ctx.log,
    open: () =>
      import("../chart/mod.ts").then(({ ChartService }) =>
        ChartService.open({ upstream: ctx.upstream, cacheDir: ctx.cacheDir, clock: ctx.clock, logger: ctx.log })
      ),
  });
}
