/**
 * `chorus proxy`: the monitor proxy (profile P) -- one room-monitor session
 * to a game server, served to browsers as REST, SSE and `/ws/live`, with the
 * spectator page and the chart service. Own options; loaded on demand so
 * other roles never load it.
 *
 * @module
 */

import type { Role } from "./role.ts";

/** The `proxy` role. */
export const proxyRole: Role = {
  name: "proxy",
  summary: "monitor proxy for browsers: room list and events, live spectating, charts (docs/proxy.md)",
  usage: "Usage: chorus proxy --mp-server host:port --allowed-origin <origin> [options]   (chorus proxy --help)",
  run: async (args) => (await import("../proxy/mod.ts")).runProxy(args),
};
