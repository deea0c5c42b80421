/**
 * The proxy's `/chart/{id}` handler (spec 1 §4.1): the chart service of
 * `src/chart/`, opened on the first chart request (its parsers and audio
 * decoders are loaded only then) with its cache in `--cache-dir`.
 *
 * @module
 */

import type { ChartHandler } from "./app.ts";
import type { ChartContext } from "./service.ts";

type Service = { handle(req: Request): Promise<Response | null> };

function unavailable(reason: string): Response {
  return Response.json({ error: `the chart service is unavailable: ${reason}`, code: "unavailable" }, {
    status: 503,
    headers: { "retry-after": "30" },
  });
}

/** Builds the handler; a cache directory that cannot be opened answers 503 and is tried again on the next request. */
export function chartServiceHandler(ctx: ChartContext): ChartHandler {
  let service: Promise<Service> | null = null;
  return async (req) => {
    service ??= import("../chart/mod.ts").then(({ ChartService }) =>
      ChartService.open({ upstream: ctx.upstream, cacheDir: ctx.cacheDir, clock: ctx.clock, logger: ctx.log })
    );
    let opened: Service;
    try {
      opened = await service;
    } catch (error) {
      service = null;
      const reason = error instanceof Error ? error.message : String(error);
      ctx.log.error("cannot open the chart cache", { dir: ctx.cacheDir, error: reason });
      return unavailable(reason);
    }
    return await opened.handle(req) ??
      Response.json({ error: "not a chart path", code: "not_found" }, { status: 404 });
  };
}
