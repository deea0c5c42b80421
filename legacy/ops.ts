/**
 * Legacy mode's operations (owner `legacy`), registered beside the built-in
 * ones so that the Lua host table, the legacy admin API and the legacy
 * console act through one path each:
 *
 * - switches a plugin may flip (`legacy.replay`, `legacy.room_creation`,
 *   `legacy.shutdown` -- the built-in `server.*` ones are operator-only, but
 *   the original host table lets plugins do these);
 * - `legacy.disconnect` (kick, optionally keeping the room seat for the
 *   reconnect grace), room bans by id (`legacy.room_ban`), address bans by
 *   address only (`legacy.ban_ip`, synchronous), the admin-API lockouts
 *   (`legacy.ip_blacklist*`);
 * - and wrappers of `player.kick`, `player.ban`, `player.unban` that announce
 *   each success to the Lua hooks.
 *
 * @module
 */

import * as z from "../src/util/zod.ts";
import { canonicalIp } from "../src/net/mod.ts";
import { type Operation, OpsError, type OpsServices, p, type ServerOp, serverOp } from "../src/ops/mod.ts";
import type { LegacyContext } from "./context.ts";
import { callNow } from "./ops_call.ts";
import { contestOps } from "./ops_contest.ts";
import { luaRoom, luaUser, luaUserById } from "./views.ts";

/** The reason hooks get when none was given (the original's texts). */
export const DEFAULT_KICK_REASON = "Kicked by administrator";
/** The ban reason hooks get when none was given. */
export const DEFAULT_BAN_REASON = "Administrator ban";

const OWNER = "legacy";

/** Registers legacy mode's operations and wraps the moderation ones; returns the undo. */
export function registerLegacyOps(ctx: LegacyContext): () => void {
  const ops = ctx.ops;
  const removers = [...legacyOps(ctx), ...contestOps(ctx)].map((op) => ops.register(op, OWNER));
  const originals = ["player.kick", "player.ban", "player.unban"].map((name) => ops.get(name)!);
  for (const op of originals) ops.replace(announcing(ctx, op), OWNER);
  return () => {
    for (const remove of removers) remove();
    for (const op of originals) ops.replace(op, "builtin");
  };
}

/** `op` that, after succeeding, tells the moderation listeners (the Lua hooks). */
function announcing(ctx: LegacyContext, op: Operation<OpsServices>): Operation<OpsServices> {
  const core = ctx.core;
  return {
    ...op,
    run: (args: never, call) => {
      const a = args as { user_id: number; reason?: string };
      const user = core.users.get(a.user_id);
      const before = user ? luaUser(core, user) : luaUserById(core, a.user_id);
      const room = user?.roomId ? core.rooms.get(user.roomId) : undefined;
      const roomBefore = room ? luaRoom(core, room) : null;
      const result = op.run(args, call);
      if (op.name === "player.kick") {
        ctx.moderation.emit({ kind: "kick", user: before, room: roomBefore, reason: a.reason || DEFAULT_KICK_REASON });
      } else if (op.name === "player.ban") {
        ctx.moderation.emit({ kind: "ban", user: before, reason: a.reason || DEFAULT_BAN_REASON, duration: 0 });
      } else ctx.moderation.emit({ kind: "unban", userId: a.user_id });
      return result;
    },
  };
}

function switchOp(name: string, summary: string, get: () => boolean, set: (on: boolean) => void) {
  return serverOp({
    name,
    summary,
    permission: "admin",
    mutates: true,
    params: { enabled: z.optional(z.boolean({ error: "expected true or false" })) },
    run: (a) => {
      if (a.enabled !== undefined) set(a.enabled);
      return { enabled: get() };
    },
  });
}

function legacyOps(ctx: LegacyContext): ServerOp[] {
  const core = ctx.core;
  const ip = () =>
    z.pipe(
      p.text(64),
      z.transform((v, c) => {
        const canonical = canonicalIp(v);
        if (canonical === null) {
          c.issues.push({ code: "custom", message: "expected an IP address", input: v });
          return z.NEVER;
        }
        return canonical;
      }),
    );
  const lockMs = ctx.config.legacy.admin_lockout_minutes * 60_000;
  return [
    switchOp(
      "legacy.replay",
      "record replays of rooms created from now on (run-time switch; without enabled: the state)",
      () => ctx.switches.replay,
      (on) => (ctx.switches.replay = on),
    ),
    switchOp(
      "legacy.room_creation",
      "let players create rooms (run-time switch; without enabled: the state)",
      () => core.switches.roomCreation,
      (on) => (core.switches.roomCreation = on),
    ),
    serverOp({
      name: "legacy.shutdown",
      summary: "stop the server gracefully (the legacy host's shutdown_server)",
      permission: "admin",
      mutates: true,
      params: { reason: z.optional(z.string().check(z.maxLength(200))) },
      run: (a, call) => {
        const shutdown = call.context.deps.shutdown;
        if (!shutdown) throw new OpsError("UNAVAILABLE", "no shutdown handler in this process");
        call.defer(() => shutdown(a.reason ?? "legacy shutdown"));
        return { ok: true };
      },
    }),
    serverOp({
      name: "legacy.say",
      summary: "a system chat line (user 0, no prefix) to every online user, to a room's members, or to one user",
      permission: "send",
      mutates: true,
      params: { message: p.message(), room_id: z.optional(p.roomId()), user_id: z.optional(p.userId()) },
      run: (a, { context: s }) => {
        let ids: number[];
        if (a.room_id !== undefined) {
          ids = [...s.room(a.room_id).players, ...s.room(a.room_id).monitors].map((m) => m.id);
        } else if (a.user_id !== undefined) {
          if (!core.users.get(a.user_id)?.session) {
            throw new OpsError("USER_NOT_FOUND", `user ${a.user_id} is not online`);
          }
          ids = [a.user_id];
        } else ids = core.onlineUsers().map((u) => u.id);
        const reached = ids.filter((id) => core.users.get(id)?.session);
        core.sendTo(reached, { type: "Message", message: { type: "Chat", user: 0, content: a.message } });
        const rooms = new Set(reached.map((id) => core.users.get(id)?.roomId).filter((r) => r));
        return { users: reached.length, rooms: rooms.size };
      },
    }),
    serverOp({
      name: "legacy.disconnect",
      summary: "disconnect a user; preserve_room keeps their room seat for the reconnect grace",
      permission: "admin",
      mutates: true,
      params: { user_id: p.userId(), preserve_room: z.optional(z.boolean()), reason: p.reason() },
      run: (a, call) => {
        const user = core.users.get(a.user_id);
        if (!user?.session) throw new OpsError("USER_NOT_FOUND", `user ${a.user_id} is not connected`);
        if (!a.preserve_room) return callNow(ctx.ops, call, "player.kick", { user_id: a.user_id, reason: a.reason });
        const before = luaUser(core, user);
        const room = user.roomId ? core.rooms.get(user.roomId) : undefined;
        core.sendText([a.user_id], { key: "kicked-by-admin", args: { reason: a.reason ? `: ${a.reason}` : "" } });
        const session = user.session;
        // Closing the connection only: the user dangles in the room for the grace (spec 3 §3.1), as after a drop.
        void session.closeAfterFlush(session.outbound.enqueuedSeq, "kicked");
        ctx.moderation.emit({
          kind: "kick",
          user: before,
          room: room ? luaRoom(core, room) : null,
          reason: a.reason || DEFAULT_KICK_REASON,
        });
        return { user_id: a.user_id, preserve_room: true };
      },
    }),
    serverOp({
      name: "legacy.ban",
      summary: "ban a user id; disconnect: false leaves an online user connected until they log in again",
      permission: "admin",
      mutates: true,
      params: { user_id: p.userId(), reason: p.reason(), disconnect: z._default(z.boolean(), true) },
      run: (a, call) => {
        if (a.disconnect) return callNow(ctx.ops, call, "player.ban", { user_id: a.user_id, reason: a.reason });
        const before = luaUserById(core, a.user_id);
        core.bans.banUser({ user_id: a.user_id, reason: a.reason ?? "", banned_at: ctx.clock.now() });
        core.authCache.forgetUser(a.user_id);
        ctx.moderation.emit({ kind: "ban", user: before, reason: a.reason || DEFAULT_BAN_REASON, duration: 0 });
        return { user_id: a.user_id, reason: a.reason ?? "", disconnected: false };
      },
    }),
    serverOp({
      name: "legacy.room_ban",
      summary: "ban a user id from a room id (kept when the room does not exist yet) or lift the ban",
      permission: "room.manage",
      mutates: true,
      params: { user_id: p.userId(), room_id: p.roomId(), banned: z._default(z.boolean(), true), reason: p.reason() },
      run: (a, call) => {
        const changed = a.banned ? ctx.roomBans.add(a.room_id, a.user_id) : ctx.roomBans.remove(a.room_id, a.user_id);
        const room = core.rooms.get(a.room_id);
        if (room) {
          const inRoomList = room.bans.some((b) => b.user_id === a.user_id);
          // Mirrored into the room's own list while it exists: that takes a banned member out, with the notice.
          if (a.banned && !inRoomList) {
            callNow(ctx.ops, call, "room.ban", { room_id: a.room_id, user_id: a.user_id, reason: a.reason });
          }
          if (!a.banned && inRoomList) callNow(ctx.ops, call, "room.unban", { room_id: a.room_id, user_id: a.user_id });
        }
        return { user_id: a.user_id, room_id: a.room_id, banned: a.banned, changed };
      },
    }),
    serverOp({
      name: "legacy.room_bans",
      summary: "room bans by room id (legacy mode)",
      permission: "state.read",
      params: { room_id: z.optional(p.roomId()) },
      run: (a) => (a.room_id ? { [a.room_id]: ctx.roomBans.of(a.room_id) } : ctx.roomBans.all()),
    }),
    serverOp({
      name: "legacy.ban_ip",
      summary: "ban an address from the game port (connected users from it are disconnected)",
      permission: "admin",
      mutates: true,
      params: { ip: ip(), reason: p.reason() },
      run: (a, { context: s }) => ({ ip: a.ip, disconnected: s.admin.banIp(a.ip, a.reason ?? "") }),
    }),
    serverOp({
      name: "legacy.ip_blacklist",
      summary: "banned addresses: the game port's and those locked out of the admin API",
      permission: "admin",
      run: () => ({
        game: core.bans.ipBans().map((b) => b.ip).sort(),
        admin_api: ctx.lockouts.list().map((l) => ({ ip: l.ip, expires_in: l.until - ctx.clock.now() })),
      }),
    }),
    serverOp({
      name: "legacy.ip_blacklist_add",
      summary: "lock an address out of the admin API for the lockout time",
      permission: "admin",
      mutates: true,
      params: { ip: ip() },
      run: (a) => {
        ctx.lockouts.lock(a.ip, lockMs);
        return { ip: a.ip, expires_in: lockMs };
      },
    }),
    serverOp({
      name: "legacy.ip_blacklist_remove",
      summary: "lift an address ban (game port) and admin-API lockout",
      permission: "admin",
      mutates: true,
      params: { ip: ip(), list: z._default(z.enum(["game", "admin_api", "all"]), "all") },
      run: (a, { context: s }) => {
        const game = a.list !== "admin_api" && s.admin.unbanIp(a.ip);
        const adminApi = a.list !== "game" && ctx.lockouts.unlock(a.ip);
        return { ip: a.ip, removed: game || adminApi, game, admin_api: adminApi };
      },
    }),
    serverOp({
      name: "legacy.ip_blacklist_clear",
      summary: "clear the admin-API lockouts (list admin_api, default), the game port's address bans (game), or both",
      permission: "admin",
      mutates: true,
      params: { list: z._default(z.enum(["game", "admin_api", "all"]), "admin_api") },
      run: (a, { context: s }) => {
        let game = 0;
        if (a.list !== "admin_api") { for (const b of core.bans.ipBans()) if (s.admin.unbanIp(b.ip)) game++; }
        const adminApi = a.list !== "game" ? ctx.lockouts.clear() : 0;
        return { game, admin_api: adminApi };
      },
    }),
  ];
}
