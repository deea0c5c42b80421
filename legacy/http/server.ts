/**
 * The legacy HTTP API on `http_port` (default 61234 in legacy mode; spec 3
 * §4.7): cross-origin requests allowed (every answer carries the CORS
 * headers, `OPTIONS` preflights are answered 204 -- the lua-cpp server
 * promised CORS and answered 404), bounded bodies, the public, replay and
 * admin routes, and the Lua plugins' routes. A second listener on
 * `trusted_forwarded_http_port` takes the client address from
 * `X-Forwarded-For`, for a reverse proxy (the admin lockouts go by address).
 *
 * @module
 */

import { Hono } from "hono";
import { limitBody } from "../../src/http/body_limit.ts";
import { forwardedFor } from "../../src/http/client_ip.ts";
import { normalizeIp } from "../../src/server/mod.ts";
import type { LegacyContext } from "../context.ts";
import type { LuaPluginHost } from "../lua/host.ts";
import type { AdminAuth } from "./admin_auth.ts";
import { adminRoutes } from "./admin_routes.ts";
import type { OtpService } from "./otp.ts";
import type { PluginRoutes } from "./plugin_routes.ts";
import { publicRoutes } from "./public_routes.ts";
import { replayRoutes } from "./replay_routes.ts";
import { fail } from "./respond.ts";
import type { LegacyEnv } from "./types.ts";

/** Largest body of the server's own routes. */
export const MAX_BODY_BYTES = 64 * 1024;
/** Largest body of a plugin route (it is handed to Lua as one string). */
export const MAX_PLUGIN_BODY_BYTES = 256 * 1024;

/** CORS headers of every answer. */
export const CORS_HEADERS: Readonly<Record<string, string>> = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, POST, PUT, PATCH, DELETE, OPTIONS",
  "access-control-allow-headers": "Content-Type, Authorization, X-Admin-Token",
  "access-control-max-age": "86400",
};

/** What the app is built from. */
export interface LegacyHttpDeps {
  readonly ctx: LegacyContext;
  readonly routes: PluginRoutes;
  readonly host: LuaPluginHost | null;
  readonly auth: AdminAuth;
  readonly otp: OtpService;
}

/** The application (tests call `app.fetch(request, { ip })`). */
export interface LegacyHttpApp {
  readonly app: Hono<LegacyEnv>;
  readonly otp: OtpService;
  readonly auth: AdminAuth;
}

/** Builds the application. */
export function createLegacyHttpApp(deps: LegacyHttpDeps): LegacyHttpApp {
  const { ctx, routes, host, auth, otp } = deps;
  const app = new Hono<LegacyEnv>();
  app.use(async (c, next) => {
    c.set("ip", c.env?.ip ?? "127.0.0.1");
    if (c.req.method === "OPTIONS") return new Response(null, { status: 204, headers: CORS_HEADERS });
    await next();
    for (const [k, v] of Object.entries(CORS_HEADERS)) c.res.headers.set(k, v);
    return undefined;
  });
  const tooLarge = () => fail(413, "body-too-large");
  app.use(async (c, next) => {
    const own = routes.match(c.req.method, c.req.path) === undefined;
    return await limitBody(own ? MAX_BODY_BYTES : MAX_PLUGIN_BODY_BYTES, tooLarge)(c, next);
  });
  app.use(async (c, next) => {
    let body: unknown = {};
    if (c.req.method !== "GET" && c.req.method !== "HEAD" && routes.match(c.req.method, c.req.path) === undefined) {
      const text = await c.req.text();
      if (text.trim()) {
        try {
          body = JSON.parse(text);
        } catch {
          return fail(400, "bad-request", "the body is not JSON");
        }
      }
      if (!body || typeof body !== "object" || Array.isArray(body)) body = {};
    }
    c.set("body", body);
    await next();
    return undefined;
  });
  publicRoutes(app as unknown as Hono, ctx);
  replayRoutes(app, ctx);
  adminRoutes(app, ctx, auth, otp);
  app.all("*", async (c) => {
    const route = routes.match(c.req.method, c.req.path);
    if (!route || !host) {
      return routes.hasPath(c.req.path) ? fail(405, "method-not-allowed") : fail(404, "not-found");
    }
    const url = new URL(c.req.url);
    const outcome = host.route(route.pluginId, route.key, {
      method: route.method,
      path: route.path,
      query: url.search.replace(/^\?/, ""),
      body: c.req.method === "GET" ? "" : await c.req.text(),
      contentType: c.req.header("content-type") ?? "application/json",
      headers: c.req.header(),
      ip: c.get("ip"),
    });
    if (!outcome.ok) {
      return new Response(JSON.stringify({ error: "Lua handler error" }), {
        status: 500,
        headers: { "content-type": "application/json" },
      });
    }
    return new Response(outcome.value.body, {
      status: outcome.value.status,
      headers: { "content-type": outcome.value.contentType },
    });
  });
  app.onError((error) => {
    ctx.log.error("legacy HTTP request failed", { error: String(error) });
    return fail(500, "internal-error");
  });
  return { app, otp, auth };
}

/** A running legacy HTTP service. */
export interface LegacyHttpService {
  readonly port: number;
  readonly trustedPort: number | null;
  close(): Promise<void>;
}

/** Serves the application on `hostname:port` (and the trusted port). */
export function serveLegacyHttp(
  ctx: LegacyContext,
  http: LegacyHttpApp,
  listen: { hostname: string; port: number; trustedPort: number | null },
): LegacyHttpService {
  const onError = (error: unknown) => {
    ctx.log.error("legacy HTTP request failed", { error: String(error) });
    return fail(500, "internal-error");
  };
  const peer = (info: Deno.ServeHandlerInfo<Deno.NetAddr>) => normalizeIp(info.remoteAddr.hostname);
  const main = Deno.serve(
    { hostname: listen.hostname, port: listen.port, onListen: () => {}, onError },
    (req, info) => http.app.fetch(req, { ip: peer(info) }),
  );
  let trusted: Deno.HttpServer<Deno.NetAddr> | null = null;
  if (listen.trustedPort !== null) {
    try {
      trusted = Deno.serve(
        { hostname: listen.hostname, port: listen.trustedPort, onListen: () => {}, onError },
        (req, info) => http.app.fetch(req, { ip: forwardedFor(req.headers.get("x-forwarded-for"), peer(info)) }),
      );
    } catch (error) {
      void main.shutdown();
      throw error;
    }
  }
  ctx.log.info(`[http] HTTP server started on port ${main.addr.port}`, { address: listen.hostname });
  return {
    port: main.addr.port,
    trustedPort: trusted?.addr.port ?? null,
    close: async () => {
      await Promise.all([main.shutdown(), trusted?.shutdown()]);
    },
  };
}
