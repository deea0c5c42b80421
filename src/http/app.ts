/**
 * The one Hono application of the HTTP port (issue 6): health, profile R
 * and S rooms, event streams, the spectator WebSocket, the admin panel, the
 * spectator page and the plugin catch-all, in that matching order. Pure: no
 * sockets; tests call it in process and {@link startHttp} serves it.
 *
 * @module
 */

import { Hono } from "hono";
import { cors } from "hono/cors";
import { WEAK_PASSWORDS } from "../config/mod.ts";
import { createOps } from "../ops/mod.ts";
import { AdminAuth } from "./admin_auth.ts";
import { limitBody } from "./body_limit.ts";
import { adminPageRoutes } from "./admin_page.ts";
import { BASIC_STREAM_RESERVED, builtinRoutesOf } from "./builtin_routes.ts";
import { clientIp, type HttpContext, type HttpDeps, type HttpEnv, resolveOptions } from "./context.ts";
import { jsonError } from "./errors.ts";
import { HubRenderer } from "./hub.ts";
import { dispatchPlugins } from "./plugin_routes.ts";
import { RouteRegistry } from "./route_registry.ts";
import { adminApiRoutes } from "./routes_admin.ts";
import { adminPanelRoutes } from "./routes_admin_panel.ts";
import { metricsRoutes } from "./routes_metrics.ts";
import { defaultHealth, healthRoutes, profileRRoutes, profileSRoutes } from "./routes_rooms.ts";
import { registerBasicStream, streamRoutes } from "./routes_streams.ts";
import { StreamTracker } from "./sse.ts";
import { spectatorFiles, spectatorRoutes } from "./spectator_page.ts";
import { SseRegistry } from "./sse_registry.ts";
import { openLive } from "./ws_live.ts";
import { WsUpgrades } from "./ws_upgrade.ts";

/** A built HTTP application and its registries. */
export interface HttpApp {
  readonly app: Hono<HttpEnv>;
  /** Plugin route registry (spec 1 §4.3 rule 1). */
  readonly routes: RouteRegistry;
  /** SSE stream registry (spec 1 §4.3 rules 2-3). */
  readonly streams: SseRegistry;
  readonly context: HttpContext;
  /** Calls the app in process as client `ip` (default 127.0.0.1). */
  request(path: string, init?: RequestInit, env?: HttpEnv["Bindings"]): Promise<Response>;
  /** Ends every open SSE stream, `/api/ws` socket and spectator session (spectators leave their rooms). */
  closeStreams(): Promise<void>;
}

/** Why `password` may not protect the panel in Production, or null (spec 2 §4.2). */
export function adminPasswordProblem(password: string | null): string | null {
  if (password === null || password === "") return "admin_password is not set";
  if (WEAK_PASSWORDS.includes(password.toLowerCase())) return "admin_password is a well-known password";
  return null;
}

/**
 * Builds the application. Throws when the profile is Production and the
 * admin password is missing or well known; warns loudly otherwise.
 */
export function createHttpApp(deps: HttpDeps): HttpApp {
  const { server, config } = deps;
  const core = server.core;
  const log = deps.log ?? server.ctx.log;
  const problem = adminPasswordProblem(config.admin_password);
  if (problem && config.profile === "Production") {
    throw new Error(
      `Cannot start the admin panel: ${problem} (set admin_password, PM_ADMIN_PASSWORD or --admin-password)`,
    );
  }
  // Unset: the panel is off, which the start-up summary says with the line that turns it on (app_summary.ts).
  if (problem && config.admin_password) {
    log.warn(`ADMIN PANEL PASSWORD IS WEAK: ${problem}; anyone can log in at /admin. Change it now.`);
  }
  const options = resolveOptions(deps.options);
  const streams = deps.streams ?? new SseRegistry();
  if (!streams.get("/api/rooms/listen")) registerBasicStream(streams);
  const ctx: HttpContext = {
    server,
    core,
    ops: deps.ops ?? createOps({ server }),
    bus: server.ctx.bus,
    clock: server.ctx.clock,
    log,
    config,
    options,
    routes: deps.routes ?? new RouteRegistry(),
    streams,
    tracker: new StreamTracker(options.maxStreams),
    live: new StreamTracker(options.maxLiveViewers),
    upgrades: new WsUpgrades(server.ctx.clock),
    hub: new HubRenderer(),
    adminAuth: new AdminAuth({ password: config.admin_password, clock: server.ctx.clock }),
    health: deps.health ?? defaultHealth(core),
  };

  const app = new Hono<HttpEnv>();
  app.onError((error, c) => {
    log.error("HTTP handler failed", { path: c.req.path, error: String(error) });
    return jsonError(500, "internal error");
  });
  app.use("*", limitBody(options.maxBodyBytes, () => jsonError(413, "request body too large")));
  if (options.corsOrigins.length) {
    // Cross-origin access only when configured (spec 1 §5.7 style); never for the admin panel.
    const origin = options.corsOrigins.includes("*") ? "*" : [...options.corsOrigins];
    const corsMiddleware = cors({ origin, allowMethods: ["GET", "POST", "OPTIONS"], maxAge: 600 });
    app.use("*", (c, next) => c.req.path.startsWith("/admin") ? next() : corsMiddleware(c, next));
  }
  healthRoutes(app, ctx);
  if (deps.metrics) metricsRoutes(app, deps.metrics, (error) => log.error("metrics failed", { error: String(error) }));
  profileRRoutes(app, ctx);
  streamRoutes(app, ctx);
  profileSRoutes(app, ctx);
  app.get("/ws/live", (c) => openLive(c.req.raw, clientIp(c.env), ctx));
  adminPageRoutes(app, ctx);
  adminApiRoutes(app, ctx);
  adminPanelRoutes(app, ctx);
  if (deps.chart) {
    const chart = deps.chart;
    app.all(
      "/chart/*",
      (c) =>
        c.req.method === "GET" || c.req.method === "HEAD" ? chart(c.req.raw) : jsonError(405, "method not allowed"),
    );
  }
  spectatorRoutes(app, spectatorFiles(log));
  // The admin panel's namespace is the host's: anything else under /admin is not found, never a plugin's.
  app.get("/admin/*", (c) => jsonError(404, `route not found: ${c.req.path}`));
  // Plugins may not shadow what was registered above: the registries read it from the app itself.
  const builtins = builtinRoutesOf(app as unknown as Hono<never>);
  const dropped = [
    ...ctx.routes.setBuiltins(builtins),
    // spec 1 §4.3 rule 3: the profile R stream is itself a registered stream a plugin may replace.
    ...streams.setBuiltins(builtins.without(BASIC_STREAM_RESERVED)),
  ];
  if (dropped.length) log.warn("plugin routes shadowed by built-in routes were removed", { paths: dropped.join(",") });
  app.all("*", (c) => dispatchPlugins(c, ctx));

  return {
    app,
    routes: ctx.routes,
    streams,
    context: ctx,
    request: (path, init, env = { ip: "127.0.0.1" }) => Promise.resolve(app.request(path, init, env)),
    closeStreams: () => Promise.all([ctx.tracker.closeAll(), ctx.live.closeAll()]).then(() => {}),
  };
}
