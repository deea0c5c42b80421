/**
 * Profile R room routes of the account backend (spec 1 §4.2, §6; spec 2
 * §4.1 last paragraph): `/api/rooms/info`, `/api/rooms/info/<name>`,
 * `/api/rooms/user/<id>` and the `/api/rooms/listen` stream with
 * `create_room`, `update_room`, `join_room`, `leave_room`, `player_score`,
 * `start_round` and a `keepalive` event every 15 s. Public, like every
 * profile R read (spec 1 §5 item 3). Also `/health/live` and
 * `/health/ready` (ready when the game server link is up).
 *
 * Decisions on the originals' inconsistencies (reference: the Flask and C++
 * variants): `/api/rooms/info/<name>` and `/api/rooms/user/<id>` answer the
 * `{name, data}` element (never bare data), an unknown room or a user in no
 * room is 404 (never `null`), and the stream starts with live events (no
 * `init` frame).
 *
 * @module
 */

import type { Hono } from "hono";
import type { AccountsContext, AccountsEnv } from "./context.ts";
import { ApiError } from "./errors.ts";
import { SSE_HEADERS, SseChannel, sseJson } from "./sse.ts";

/** Events queued per `/api/rooms/listen` client before the oldest are dropped. */
export const LISTEN_QUEUE = 256;

const ROOM_NAME = /^[A-Za-z0-9_-]{1,20}$/;

/** Registers the profile R routes and the health probes. */
export function roomRoutes(app: Hono<AccountsEnv>, ctx: AccountsContext): void {
  app.get(
    "/api/rooms/info",
    () => new Response(ctx.rooms.listJson(), { headers: { "content-type": "application/json" } }),
  );

  app.get("/api/rooms/info/:name", (c) => {
    const name = c.req.param("name");
    if (!ROOM_NAME.test(name)) throw new ApiError("invalid_request", `invalid room name ${JSON.stringify(name)}`);
    const room = ctx.rooms.get(name);
    if (!room) throw new ApiError("room_not_found", `room not found: ${name}`);
    return c.json(room);
  });

  app.get("/api/rooms/user/:id", (c) => {
    const text = c.req.param("id");
    if (!/^-?[0-9]{1,10}$/.test(text) || Math.abs(Number(text)) > 2147483648) {
      throw new ApiError("invalid_id", `invalid user id ${JSON.stringify(text)}`);
    }
    const room = ctx.rooms.roomOf(Number(text));
    if (!room) throw new ApiError("user_not_in_room", `user ${text} is not in a room`);
    return c.json(room);
  });

  app.get("/api/rooms/listen", (c) => {
    if (c.req.method === "HEAD") return new Response(null, { headers: SSE_HEADERS });
    const channel: SseChannel = new SseChannel({
      clock: ctx.clock,
      capacity: LISTEN_QUEUE,
      keepAlive: sseJson("keepalive", {}),
      keepAliveMs: ctx.keepAliveMs,
      onClose: () => ctx.listeners.delete(channel),
    });
    if (!ctx.listeners.tryAdd(channel, c.env.ip)) {
      channel.close();
      if (ctx.listeners.refusal(c.env.ip) === "client-full") {
        throw new ApiError("rate_limited", "too many open streams from this address");
      }
      throw new ApiError("busy", "too many open streams");
    }
    return new Response(channel.body, { headers: SSE_HEADERS });
  });

  app.get("/health/live", (c) => c.text("live"));
  app.get(
    "/health/ready",
    (c) =>
      ctx.source.connected
        ? c.json({ status: "ready", source: ctx.source.description })
        : c.json({ status: "not ready", issues: [`game server link down (${ctx.source.description})`] }, 503),
  );
}
