/**
 * `GET /chart/{id}` and `GET /chart/{id}.json` on the game server's HTTP port
 * (issue 19; the monitor proxy serves them too, spec 1 §4.1), for the
 * spectator page's chart layer: the chart service of `src/chart/`, opened on
 * the first request with its cache in `data_dir/chart-cache`. Switched by
 * `chart_service`.
 *
 * Only charts that a room on this server has selected are built (and `test`):
 * the route needs no login, and a build downloads and decodes a whole archive
 * on this process, so arbitrary ids from anyone would be free work for this
 * server. Builds run one at a time here (the proxy allows two).
 *
 * @module
 */

import { join } from "node:path";
import { errorResponse } from "./chart/build/http_errors.ts";
import { lazyChartHandler } from "./chart/build/lazy.ts";
import type { Config } from "./config/mod.ts";
import type { GameServer } from "./server/mod.ts";
import type { Upstream } from "./upstream/mod.ts";
import type { Clock } from "./util/clock.ts";
import type { Logger } from "./util/log.ts";

/** What the game server's chart route is built from. */
export interface GameChartOptions {
  readonly config: Pick<Config, "chart_service" | "chart_cache_max_mb" | "data_dir">;
  readonly upstream: Upstream;
  readonly clock: Clock;
  readonly log: Logger;
  /** Whose rooms' selected charts may be served. */
  readonly server: GameServer;
}

/** Whether some room of `server` has chart `id` selected now (one look at each room, per chart request). */
function selected(server: GameServer, id: number): boolean {
  for (const room of server.core.rooms.values()) if (room.chart?.id === id) return true;
  return false;
}

/** The handler of `/chart/*`, or null when `chart_service` is off. */
export function gameChartHandler(o: GameChartOptions): ((req: Request) => Promise<Response>) | null {
  if (!o.config.chart_service) return null;
  const cacheDir = join(o.config.data_dir, "chart-cache");
  const serve = lazyChartHandler({
    cacheDir,
    log: o.log,
    // The service, its parsers and its audio and image decoders are loaded with the first chart request (issue 15).
    open: async () =>
      (await import("./chart/build/service.ts")).ChartService.open({
        upstream: o.upstream,
        cacheDir,
        clock: o.clock,
        logger: o.log,
        maxCacheBytes: o.config.chart_cache_max_mb * 1024 * 1024,
        maxConcurrentBuilds: 1,
      }),
  });
  return (req) => {
    const id = /\/chart\/([0-9]{1,10})(?:\.json)?$/.exec(new URL(req.url).pathname)?.[1];
    // Other ids (`test`, malformed ones) are the service's to answer: the test chart, or 400.
    if (id !== undefined && !selected(o.server, Number(id))) {
      return Promise.resolve(errorResponse(404, `chart ${id} is not selected in any room on this server`));
    }
    return serve(req);
  };
}
