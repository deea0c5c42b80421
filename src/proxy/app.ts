/**
 * The monitor proxy's HTTP application (spec 1 profile P, §4.1): rooms from
 * the room-monitor link, the room stream, visited users, login and profile,
 * the spectator WebSocket, charts (an injected handler) and the spectator
 * page, behind the CORS policy of spec 1 §2.4 rule 1 and extended.md §5.7.
 * Pure: no sockets; tests call it in process and `service.ts` serves it.
 * Every status and error body is listed in `docs/proxy.md`.
 *
 * @module
 */

import { Hono } from "hono";
import { cors } from "hono/cors";
import { limitBody } from "../http/body_limit.ts";
import { jsonError, parseUserId } from "../http/errors.ts";
import { type SpectatorFiles, spectatorRoutes } from "../http/spectator_page.ts";
import { roomIdProblem } from "../protocol/mod.ts";
import type { Logger } from "../util/log.ts";
import type { ProxyAuth } from "./auth.ts";
import { type Fanout, SSE_HEADERS } from "./fanout.ts";
import type { LiveViewers } from "./live.ts";
import type { RoomCache } from "./room_cache.ts";
import { type LinkStatus, LinkUnavailable } from "./link_status.ts";
import type { VisitStore } from "./visits.ts";

/** Serves `GET /chart/{id}` and `/chart/{id}.json` (the chart service; injected). */
export type ChartHandler = (req: Request) => Response | Promise<Response>;

/** Where the rooms come from: the room-monitor link (or a stand-in in tests). */
export interface RoomSource {
  readonly status: LinkStatus;
  readonly cache: RoomCache;
  /** Resolves once the picture is at most a second old; rejects with {@link LinkUnavailable}. */
  fresh(): Promise<void>;
}

/** Cross-origin policy (spec 1 §2.4 rule 1, extended.md §5.7). */
export interface CorsPolicy {
  /** Debug: any origin is mirrored back. */
  readonly debug: boolean;
  /** The allowed origins otherwise (`scheme://host[:port]`). */
  readonly origins: readonly string[];
}

/** What the application is built from. */
export interface ProxyAppDeps {
  readonly rooms: RoomSource;
  readonly fanout: Fanout;
  readonly visits: VisitStore;
  readonly auth: ProxyAuth;
  readonly live: LiveViewers;
  readonly cors: CorsPolicy;
  readonly page: SpectatorFiles;
  readonly log: Logger;
  /** The chart service; without one `/chart/*` answers 501. */
  readonly chart?: ChartHandler | undefined;
  /** Largest request body, bytes (default 16 KiB: only logins have bodies). */
  readonly maxBodyBytes?: number;
}

/** 503 saying why the game server cannot answer (spec: never a hang). */
function unavailable(reason: string): Response {
  return jsonError(503, `game server unavailable: ${reason}`, { "retry-after": "2" });
}

/** Builds the application. */
export function createProxyApp(deps: ProxyAppDeps): Hono {
  const { rooms, log } = deps;
  const app = new Hono();
  app.onError((error, c) => {
    if (error instanceof LinkUnavailable) return unavailable(error.message);
    log.error("HTTP handler failed", { path: c.req.path, error: String(error) });
    return jsonError(500, "internal error");
  });
  app.notFound((c) => jsonError(404, `route not found: ${c.req.path}`));
  app.use(
    "*",
    cors({
      // extended.md §5.7: debug mirrors the request's Origin; otherwise exactly the allowed origins.
      origin: (origin) => deps.cors.debug ? origin || null : deps.cors.origins.includes(origin) ? origin : null,
      allowMethods: ["GET", "POST", "OPTIONS"],
      allowHeaders: ["Content-Type", "Authorization"],
      credentials: true,
      maxAge: 600,
    }),
  );
  app.use(
    "*",
    // The game server's body limit (src/http/body_limit.ts): a body of unknown length is read up to the limit only.
    limitBody(deps.maxBodyBytes ?? 16 * 1024, () => jsonError(413, "request body too large")),
  );

  app.get("/rooms/info", async () => {
    await rooms.fresh();
    return Response.json(rooms.cache.list());
  });
  app.get("/rooms/info/:id", async (c) => {
    const id = c.req.param("id");
    if (roomIdProblem(id) !== null) return jsonError(400, `invalid room id: ${JSON.stringify(id.slice(0, 40))}`);
    await rooms.fresh();
    const info = rooms.cache.get(id);
    return info ? Response.json(info) : jsonError(404, `room not found: ${id}`);
  });
  app.get("/rooms/user/:id", async (c) => {
    const id = parseUserId(c.req.param("id"));
    if (id === null) return jsonError(400, "invalid user id: expected a 32-bit integer");
    await rooms.fresh();
    return Response.json(rooms.cache.ofUser(id));
  });
  app.get("/rooms/listen", (c) => {
    if (c.req.method === "HEAD") return new Response(null, { headers: SSE_HEADERS });
    const status = rooms.status;
    if (status.status !== "up") return unavailable(status.reason);
    // The snapshot and the subscription happen in one turn: no event falls between (spec 1 §3).
    const body = deps.fanout.open(rooms.cache.snapshot());
    if (!body) return jsonError(503, "too many open streams", { "retry-after": "5" });
    return new Response(body, { headers: SSE_HEADERS });
  });

  app.get("/visited", async (c) => {
    const raw = c.req.query("count_only");
    const countOnly = raw === undefined || raw === "false" || raw === "0"
      ? false
      : raw === "true" || raw === "1" || raw === ""
      ? true
      : null;
    if (countOnly === null) return jsonError(400, "invalid count_only: expected true or false");
    try {
      if (countOnly) return Response.json({ count: await deps.visits.count() });
      const ids = await deps.visits.list();
      return Response.json({ count: ids.length, users: ids.map((game_id) => ({ game_id })) });
    } catch (error) {
      log.warn("visited users unavailable", { error: String(error) });
      return jsonError(503, "visited-user store unavailable", { "retry-after": "5" });
    }
  });

  app.post("/auth/login", (c) => deps.auth.login(c.req.raw));
  app.get("/auth/me", (c) => deps.auth.me(c.req.raw));
  app.get("/ws/live", (c) => deps.live.open(c.req.raw));

  app.all("/chart/*", (c) => {
    if (c.req.method !== "GET" && c.req.method !== "HEAD") return jsonError(405, "method not allowed");
    return deps.chart ? deps.chart(c.req.raw) : jsonError(501, "the chart service is not available on this proxy");
  });

  app.get("/", () => new Response(null, { status: 308, headers: { location: "spectator/" } }));
  spectatorRoutes(app, deps.page);
  return app;
}
