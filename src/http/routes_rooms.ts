/**
 * Room and player JSON routes: profile S (spec 1 §4.3) and profile R
 * (spec 1 §4.2). Hidden rooms never appear: lists skip them and lookups
 * answer 404 as for a room that does not exist.
 *
 * Collision rule (`docs/http.md`): under `/api/rooms/` the segments `info`
 * and `listen` always mean the profile R endpoints. A room named `info` or
 * `listen` is listed normally and its data is served by
 * `/api/rooms/info/<name>`; `/api/rooms/info` is never the S detail of a
 * room. These routes are registered before `/api/rooms/:name` for that
 * reason.
 *
 * @module
 */

import type { Hono } from "hono";
import { roomIdProblem } from "../protocol/mod.ts";
import type { Room } from "../room/mod.ts";
import type { ServerCore } from "../server/mod.ts";
import type { HttpContext, HttpEnv } from "./context.ts";
import { jsonError, parseUserId, roomNotFound } from "./errors.ts";
import { roomInfo, roomSummary } from "./json.ts";

/** The room with `name` unless it is hidden or does not exist. */
export function visibleRoom(core: ServerCore, name: string): Room | undefined {
  const room = core.rooms.get(name);
  return room && !room.hidden ? room : undefined;
}

/** Public rooms in creation order. */
export function visibleRooms(core: ServerCore): Room[] {
  const out: Room[] = [];
  for (const room of core.rooms.values()) if (!room.hidden) out.push(room);
  return out;
}

/** Players online now: normal sessions only (no consoles, no game monitors). */
export function onlinePlayerCount(core: ServerCore): number {
  return core.countOnlinePlayers();
}

/**
 * The JSON text of a view of the room list, rebuilt only when a room changed
 * (`core.roomsVersion`): serializing every room per request cut `/api/rooms`
 * throughput fourfold at 100 rooms (BENCHMARKS.md "Load generator").
 */
function roomListCache(core: ServerCore, build: () => unknown): () => string {
  let version = -1;
  let text = "";
  return () => {
    if (version !== core.roomsVersion) {
      text = JSON.stringify(build());
      version = core.roomsVersion;
    }
    return text;
  };
}

function jsonText(text: string): Response {
  return new Response(text, { headers: { "content-type": "application/json" } });
}

function badRoomName(name: string): Response | null {
  return roomIdProblem(name) ? jsonError(400, `invalid room name ${JSON.stringify(name)}`) : null;
}

function badUserId(text: string): Response {
  return jsonError(400, `invalid user id ${JSON.stringify(text)}`);
}

/** Registers the profile R JSON routes. Must come before {@link profileSRoutes}. */
export function profileRRoutes(app: Hono<HttpEnv>, ctx: HttpContext): void {
  const { core } = ctx;
  const infoList = roomListCache(core, () => visibleRooms(core).map(roomInfo));
  app.get("/api/rooms/info", () => jsonText(infoList()));
  app.get("/api/rooms/info/:name", (c) => {
    const name = c.req.param("name");
    const bad = badRoomName(name);
    if (bad) return bad;
    const room = visibleRoom(core, name);
    return room ? c.json(roomInfo(room)) : roomNotFound(name);
  });
  app.get("/api/rooms/user/:id", (c) => {
    const text = c.req.param("id");
    const id = parseUserId(text);
    if (id === null) return badUserId(text);
    const user = core.users.get(id);
    if (!user) return jsonError(404, `user ${id} not found`);
    const room = user.roomId === null ? undefined : visibleRoom(core, user.roomId);
    return room ? c.json(roomInfo(room)) : jsonError(404, `user ${id} is not in a room`);
  });
}

/** Registers the profile S JSON routes. */
export function profileSRoutes(app: Hono<HttpEnv>, ctx: HttpContext): void {
  const { core } = ctx;
  const summaries = roomListCache(core, () => visibleRooms(core).map(roomSummary));
  app.get(
    "/api/rooms",
    () =>
      jsonText(
        `{"rooms":${summaries()},"player_count":${onlinePlayerCount(core)},"total_players":${core.seenPlayers.size}}`,
      ),
  );
  app.get("/api/rooms/:name", (c) => {
    const name = c.req.param("name");
    const bad = badRoomName(name);
    if (bad) return bad;
    const room = visibleRoom(core, name);
    if (!room) return roomNotFound(name);
    const { name: _name, ...detail } = roomSummary(room);
    return c.json(detail);
  });
  app.get("/api/user_name/:id", (c) => {
    const text = c.req.param("id");
    const id = parseUserId(text);
    if (id === null) return badUserId(text);
    const user = core.users.get(id);
    if (!user) return jsonError(404, `user ${id} not found`);
    return c.text(user.name);
  });
  app.get("/api/players/count", (c) => c.json({ count: onlinePlayerCount(core) }));
  app.get("/api/players/all", (c) => {
    const players = [...core.seenPlayers].sort((a, b) => a - b);
    return c.json({ total: players.length, players });
  });
}

/** Registers `/health/live` and `/health/ready` (spec 1 §4.3, §7). */
export function healthRoutes(app: Hono<HttpEnv>, ctx: HttpContext): void {
  app.get("/health/live", (c) => c.text("live"));
  app.get("/health/ready", (c) => {
    const status = ctx.health();
    return status.ready
      ? c.json({ status: "ready", ...status.details })
      : c.json({ status: "not ready", issues: [...status.issues], ...status.details }, 503);
  });
}

/** Default readiness: not ready once the game server began shutting down. */
export function defaultHealth(core: ServerCore): () => { ready: boolean; issues: string[] } {
  return () => core.shuttingDown ? { ready: false, issues: ["server is shutting down"] } : { ready: true, issues: [] };
}
