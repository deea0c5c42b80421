/**
 * The admin part of the legacy HTTP API (spec 3 §4.7 "Admin endpoints"; the
 * bodies and codes are tphira's, peers note §2.6). Every route checks the
 * admin token first (`admin_auth.ts`) and acts through the operations layer
 * as the `http-admin` actor of the client's address, so each change is in
 * the audit log. Room and user ids are accepted the two ways the two
 * ancestors wrote them: in the path (tphira: `/admin/rooms/:roomId/disband`)
 * or in the body or query (lua-cpp and the spec: `/admin/rooms/disband` with
 * `roomId`).
 *
 * One table of every admin route, kept together so the API can be read in
 * one place (docs/legacy-migration.md); reading a request is
 * `admin_fields.ts`, the room view `admin_room.ts`.
 *
 * @module
 */

import type { Context, Hono } from "hono";
import { Fields, message } from "./admin_fields.ts";
import { adminRoom } from "./admin_room.ts";
import { WindowCounter } from "../../src/net/mod.ts";
import { OpsError } from "../../src/ops/mod.ts";
import type { LegacyContext } from "../context.ts";
import type { AdminAuth } from "./admin_auth.ts";
import type { OtpService } from "./otp.ts";
import { fail, ok, opFailure } from "./respond.ts";
import type { LegacyEnv } from "./types.ts";

type C = Context<LegacyEnv>;
type Handler = (c: C, f: Fields) => Promise<Response> | Response;

/** Adds the admin routes. */
export function adminRoutes(
  app: Hono<LegacyEnv>,
  ctx: LegacyContext,
  auth: AdminAuth,
  otp: OtpService,
): void {
  const actor = (c: C) => ({ kind: "http-admin", ip: c.get("ip") }) as const;
  const guard = (handler: Handler) => async (c: C) => {
    const check = auth.check(c.get("ip"), {
      header: (n) => c.req.header(n),
      query: (n) => c.req.query(n),
      body: c.get("body"),
    });
    if (!check.ok) return fail(check.status, check.error);
    try {
      return await handler(c, new Fields(c));
    } catch (error) {
      if (error instanceof OpsError) return opFailure(error);
      ctx.log.error("admin request failed", { path: c.req.path, error: String(error) });
      return fail(500, "internal-error");
    }
  };
  const call = (c: C, name: string, args: unknown) => ctx.ops.call(name, args, actor(c));
  const both = (method: "get" | "post", paths: string[], handler: Handler) => {
    for (const path of paths) app[method](path, guard(handler));
  };

  // --- one-time codes (no token needed; only while no permanent token is configured) ---------------------------
  // Each request prints a line on the operator's console: 5 per address in 10 minutes at most.
  const otpRequests = new WindowCounter(5, 10 * 60_000);
  app.post("/admin/otp/request", (c) => {
    const refused = auth.addressRefusal(c.get("ip"));
    if (refused && !refused.ok) return fail(refused.status, refused.error);
    if (auth.configuredToken !== null) return fail(403, "otp-disabled-when-token-configured");
    if (!otpRequests.hit(c.get("ip"), ctx.clock.now())) return fail(429, "too-many-requests");
    const { ssid, expiresIn } = otp.request(c.get("ip"));
    ctx.log.info("admin one-time code requested; it is shown on the server console", { ip: c.get("ip"), ssid });
    return ok({ ssid, expiresIn });
  });
  app.post("/admin/otp/verify", (c) => {
    const refused = auth.addressRefusal(c.get("ip"));
    if (refused && !refused.ok) return fail(refused.status, refused.error);
    if (auth.configuredToken !== null) return fail(403, "otp-disabled-when-token-configured");
    const body = c.get("body") as Record<string, unknown>;
    const ssid = body.ssid ?? body.sessionId;
    const code = body.otp;
    if (typeof ssid !== "string" || typeof code !== "string" || !ssid || !code) return fail(400, "bad-request");
    const result = otp.verify(ssid, code, c.get("ip"));
    if (!result.ok) {
      const status = result.error === "invalid-or-expired-otp" || result.error === "token-expired" ? 401 : 403;
      ctx.log.warn("admin one-time code refused", { ip: c.get("ip"), error: result.error });
      return fail(status, result.error);
    }
    ctx.log.info("admin temporary token issued", { ip: c.get("ip") });
    return ok({ token: result.token, expiresAt: result.expiresAt, expiresIn: result.expiresIn });
  });

  // --- configuration switches ------------------------------------------------------------------------------------
  const switches: [string, string][] = [
    ["/admin/replay/config", "legacy.replay"],
    ["/admin/room-creation/config", "legacy.room_creation"],
  ];
  for (const [path, op] of switches) {
    both("get", [path], async (c) => ok({ enabled: ((await call(c, op, {})) as { enabled: boolean }).enabled }));
    both("post", [path], async (c, f) => {
      const enabled = f.bool("enabled");
      if (enabled === null) return fail(400, "bad-enabled");
      return ok({ enabled: ((await call(c, op, { enabled })) as { enabled: boolean }).enabled });
    });
  }

  // --- rooms -----------------------------------------------------------------------------------------------------
  both("get", ["/admin/rooms"], () => {
    const rooms = [...ctx.core.rooms.values()].sort((a, b) => (a.id < b.id ? -1 : 1)).map((r) => adminRoom(ctx, r));
    return ok({ rooms });
  });
  both("post", ["/admin/rooms/max_users", "/admin/rooms/:roomId/max_users"], async (c, f) => {
    const room = f.roomId();
    if (!room) return fail(400, "bad-room-id");
    const n = f.int("maxUsers", "max_users", "count");
    if (n === null || n < 1 || n > 64) return fail(400, "bad-max-users");
    await call(c, "room.set_max_users", { room_id: room, max_users: n });
    return ok({ roomid: room, max_users: n });
  });
  both("post", ["/admin/rooms/disband", "/admin/rooms/:roomId/disband"], async (c, f) => {
    const room = f.roomId();
    if (!room) return fail(400, "bad-room-id");
    await call(c, "room.close", { room_id: room });
    return ok({ roomid: room });
  });
  both("post", ["/admin/rooms/chat", "/admin/rooms/:roomId/chat"], async (c, f) => {
    const room = f.roomId();
    if (!room) return fail(400, "bad-room-id");
    const m = message(f);
    if (m instanceof Response) return m;
    const r = await call(c, "legacy.say", { room_id: room, message: m }) as { users: number };
    return ok({ roomid: room, users: r.users });
  });
  both("post", ["/admin/ban/room"], async (c, f) => {
    const user = f.int("userId", "user_id");
    const room = f.roomId();
    if (user === null) return fail(400, "bad-user-id");
    if (!room) return fail(400, "bad-room-id");
    const banned = f.bool("banned") ?? true;
    const r = await call(c, "legacy.room_ban", { user_id: user, room_id: room, banned }) as { changed: boolean };
    return ok({ userId: user, roomId: room, banned, changed: r.changed });
  });

  // --- users -----------------------------------------------------------------------------------------------------
  both("get", ["/admin/users/info", "/admin/users/:id"], (_c, f) => {
    const id = f.int("id", "userId", "user_id");
    if (id === null) return fail(400, "bad-user-id");
    const u = ctx.core.users.get(id);
    const banned = ctx.core.bans.userBan(id) !== undefined;
    if (!u && !banned) return fail(404, "user-not-found");
    return ok({
      user: {
        id,
        name: u?.name ?? null,
        monitor: u?.monitor ?? false,
        connected: (u?.session ?? null) !== null,
        room: u?.roomId ?? null,
        banned,
        language: u?.language ?? null,
        ip: u?.session?.ip ?? null,
      },
    });
  });
  both("post", ["/admin/ban/user"], async (c, f) => {
    const id = f.int("userId", "user_id");
    if (id === null) return fail(400, "bad-user-id");
    const reason = f.get("reason");
    if (f.bool("banned") ?? true) {
      await call(c, "legacy.ban", {
        user_id: id,
        disconnect: f.bool("disconnect") ?? true,
        ...(typeof reason === "string" ? { reason: reason.slice(0, 200) } : {}),
      });
      return ok({ userId: id, banned: true });
    }
    const unbanned = await ctx.ops.tryCall("player.unban", { user_id: id }, actor(c));
    return ok({ userId: id, banned: false, changed: unbanned.ok });
  });
  both("post", ["/admin/users/disconnect", "/admin/users/:id/disconnect"], async (c, f) => {
    const id = f.int("id", "userId", "user_id");
    if (id === null) return fail(400, "bad-user-id");
    try {
      await call(c, "legacy.disconnect", { user_id: id, preserve_room: f.bool("preserveRoom") ?? false });
    } catch (error) {
      return opFailure(error, { user: "user-not-connected" });
    }
    return ok({ userId: id });
  });
  both("post", ["/admin/users/move", "/admin/users/:id/move"], async (c, f) => {
    const id = f.int("id", "userId", "user_id");
    const room = f.roomId();
    if (id === null) return fail(400, "bad-user-id");
    if (!room) return fail(400, "bad-room-id");
    await call(c, "room.force_move", { room_id: room, user_id: id, monitor: f.bool("monitor") ?? false });
    return ok({ userId: id, roomId: room });
  });

  // --- server ----------------------------------------------------------------------------------------------------
  both("post", ["/admin/broadcast"], async (c, f) => {
    const m = message(f);
    if (m instanceof Response) return m;
    const r = await call(c, "legacy.say", { message: m }) as { users: number; rooms: number };
    return ok({ rooms: r.rooms, users: r.users });
  });
  both("get", ["/admin/ip-blacklist"], async (c) => {
    const r = await call(c, "legacy.ip_blacklist", {}) as {
      game: string[];
      admin_api: { ip: string; expires_in: number }[];
    };
    return ok({
      blacklist: [
        ...r.game.map((ip) => ({ ip, list: "game", expiresIn: null })),
        ...r.admin_api.map((l) => ({ ip: l.ip, list: "admin_api", expiresIn: l.expires_in })),
      ],
      ips: r.game,
    });
  });
  both("post", ["/admin/ip-blacklist/remove"], async (c, f) => {
    const ip = f.get("ip");
    if (typeof ip !== "string") return fail(400, "bad-ip");
    const r = await call(c, "legacy.ip_blacklist_remove", { ip }) as { removed: boolean };
    return ok({ ip, removed: r.removed });
  });
  both("post", ["/admin/ip-blacklist/clear"], async (c, f) => {
    const list = f.get("list") ?? "admin_api";
    const r = await call(c, "legacy.ip_blacklist_clear", { list }) as { game: number; admin_api: number };
    return ok({ cleared: r });
  });
  let sample = { at: ctx.clock.monotonic(), commands: ctx.core.counters.values.request_received };
  both("get", ["/admin/log-rate"], () => {
    const now = ctx.clock.now();
    const logs = ctx.ops.context.deps.logs?.history().filter((r) => r.time > now - 10_000).length ?? 0;
    const at = ctx.clock.monotonic();
    const commands = ctx.core.counters.values.request_received;
    const seconds = Math.max(0.001, (at - sample.at) / 1000);
    const rate = {
      logsPerSecond: Math.round((logs / 10) * 100) / 100,
      commandsPerSecond: Math.round(((commands - sample.commands) / seconds) * 100) / 100,
      sessions: ctx.core.sessions.size,
    };
    sample = { at, commands };
    return ok({ rate, threshold: null });
  });

  // --- contests --------------------------------------------------------------------------------------------------
  both("post", ["/admin/contest/rooms/config", "/admin/contest/rooms/:roomId/config"], async (c, f) => {
    const room = f.roomId();
    if (!room) return fail(400, "bad-room-id");
    const enabled = f.bool("enabled");
    if (enabled === null) return fail(400, "bad-enabled");
    const whitelist = f.get("whitelist");
    const args: Record<string, unknown> = { room_id: room, enabled };
    if (Array.isArray(whitelist)) args.whitelist = whitelist;
    for (const [key, field] of [["manual_start", "manualStart"], ["auto_disband", "autoDisband"]] as const) {
      const v = f.bool(field);
      if (v !== null) args[key] = v;
    }
    return ok({ contest: await call(c, "legacy.contest_config", args) });
  });
  both("post", ["/admin/contest/rooms/whitelist", "/admin/contest/rooms/:roomId/whitelist"], async (c, f) => {
    const room = f.roomId();
    if (!room) return fail(400, "bad-room-id");
    const ids = f.get("userIds", "user_ids");
    if (!Array.isArray(ids)) return fail(400, "bad-request");
    return ok({ contest: await call(c, "legacy.contest_whitelist", { room_id: room, user_ids: ids }) });
  });
  both("post", ["/admin/contest/rooms/start", "/admin/contest/rooms/:roomId/start"], async (c, f) => {
    const room = f.roomId();
    if (!room) return fail(400, "bad-room-id");
    return ok(
      await call(c, "legacy.contest_start", { room_id: room, force: f.bool("force") ?? false }) as Record<
        string,
        unknown
      >,
    );
  });

  // --- plugins (enable, disable, reload at run time) -------------------------------------------------------------
  both("get", ["/admin/plugins"], async (c) => ok(await call(c, "plugin.list", {}) as Record<string, unknown>));
  both(
    "post",
    ["/admin/plugins/reload"],
    async (c) => ok(await call(c, "plugin.reload", {}) as Record<string, unknown>),
  );
  for (const action of ["enable", "disable"] as const) {
    both("post", [`/admin/plugins/${action}`, `/admin/plugins/:id/${action}`], async (c, f) => {
      const id = f.get("id", "name", "pluginId");
      if (typeof id !== "string") return fail(400, "bad-plugin-id");
      return ok(await call(c, `plugin.${action}`, { name: id }) as Record<string, unknown>);
    });
  }
}
