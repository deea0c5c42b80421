/**
 * The interfaces that act on the server -- `phira-query`, `phira-room-mgmt`,
 * `phira-user-mgmt`, `phira-messaging`, `phira-persistence`, `phira-admin`,
 * `phira-runtime` -- and `phira-host`'s `api-call` and `send-chat`. Each is
 * one operation of the operations layer called as the plugin (spec 3 §4.9:
 * console, OpenUDS and plugins call the same methods), so results, errors,
 * permissions and the audit log are the same as everywhere else.
 *
 * @module
 */

import { fromJsonValues } from "../json_value.ts";
import { fn, type HostContext, type InterfaceTable, num, opt, str } from "./table.ts";

const uid = (v: unknown) => num(v, "user-id");
const rid = (v: unknown) => str(v, "room-id");
const text = (v: unknown) => str(v, "string");

/** Calls an operation with named arguments built from the guest's. */
function viaOp(
  capability: Parameters<typeof fn>[0],
  name: string,
  args: (a: readonly unknown[]) => Record<string, unknown>,
) {
  return fn(capability, "api", (ctx: HostContext, a) => ctx.op(name, args(a)));
}

/** Like {@link viaOp} but answers a `bool` (false when the operation fails). */
function boolOp(
  capability: Parameters<typeof fn>[0],
  name: string,
  args: (a: readonly unknown[]) => Record<string, unknown>,
  read: (result: unknown) => boolean,
) {
  return fn(capability, "bool", async (ctx: HostContext, a) => read(await ctx.op(name, args(a))));
}

/** `phira-host.api-call` and `send-chat`. */
export const HOST_SERVER: InterfaceTable = {
  // The operation's own permission decides (checked by the operations layer).
  apiCall: fn(null, "api", (ctx, [method, args]) => ctx.op(str(method, "method"), fromJsonValues(args))),
  sendChat: fn(
    "send",
    "void",
    (ctx, [user, message]) =>
      uid(user) === 0
        ? ctx.op("broadcast.all", { message: text(message) })
        : ctx.op("broadcast.user", { user_id: uid(user), message: text(message) }),
  ),
};

/** `phira-query`. */
export const QUERY: InterfaceTable = {
  getUser: viaOp("state.read", "player.info", ([u]) => ({ user_id: uid(u) })),
  getUserExtra: viaOp("ext", "ext.user_get", ([u, k]) => ({ user_id: uid(u), key: text(k) })),
  setUserExtra: viaOp("ext", "ext.user_set", ([u, k, v]) => ({ user_id: uid(u), key: text(k), value: text(v) })),
  getRoom: viaOp("state.read", "room.info", ([r]) => ({ room_id: rid(r) })),
  getRoomExtra: viaOp("ext", "ext.room_get", ([r, k]) => ({ room_id: rid(r), key: text(k) })),
  listRooms: viaOp("state.read", "room.list", () => ({})),
  listOnlineUsers: viaOp("state.read", "users.list", () => ({})),
  isUserOnline: boolOp("state.read", "user.is_online", ([u]) => ({ user_id: uid(u) }), (r) => readFlag(r, "online")),
};

/** Reads a boolean answer that may be bare or wrapped in an object. */
function readFlag(result: unknown, key: string): boolean {
  if (typeof result === "boolean") return result;
  const v = (result as Record<string, unknown> | null)?.[key];
  return v === true;
}

/** `phira-room-mgmt` (spec's `game-room-mgmt` spells the last one `set-room-game-api-endpoint`). */
export const ROOM_MGMT: InterfaceTable = {
  createEmptyRoom: viaOp("room.manage", "room.create", ([r, e]) => ({ room_id: rid(r), endpoint: opt(e, text) })),
  kickFromRoom: viaOp("room.manage", "room.kick", ([r, u]) => ({ room_id: rid(r), user_id: uid(u) })),
  transferHost: viaOp("room.manage", "room.set_host", ([r, u]) => ({ room_id: rid(r), host_id: uid(u) })),
  setHost: viaOp("room.manage", "room.set_host", ([r, u]) => ({ room_id: rid(r), host_id: opt(u, uid) })),
  setRoomLock: viaOp("room.manage", "room.lock", ([r, v]) => ({ room_id: rid(r), locked: Boolean(v) })),
  setRoomHidden: viaOp("room.manage", "room.set_hidden", ([r, v]) => ({ room_id: rid(r), hidden: Boolean(v) })),
  setRoomTournament: viaOp("room.manage", "room.set_tournament", ([r, v]) => ({
    room_id: rid(r),
    tournament: Boolean(v),
  })),
  setRoomLive: viaOp("room.manage", "room.set_live", ([r, v]) => ({ room_id: rid(r), live: Boolean(v) })),
  closeRoom: viaOp("room.manage", "room.close", ([r]) => ({ room_id: rid(r) })),
  setRoomPhiraApiEndpoint: viaOp("room.manage", "room.set_api_endpoint", ([r, e]) => ({
    room_id: rid(r),
    endpoint: opt(e, text),
  })),
};

/** `phira-user-mgmt`. */
export const USER_MGMT: InterfaceTable = {
  kickUser: viaOp("admin", "player.kick", ([u, why]) => ({ user_id: uid(u), reason: text(why) })),
  banUser: viaOp("admin", "player.ban", ([u, why]) => ({ user_id: uid(u), reason: text(why) })),
  unbanUser: viaOp("admin", "player.unban", ([u]) => ({ user_id: uid(u) })),
  getBanList: viaOp("admin", "player.banlist", () => ({})),
  isBanned: boolOp("admin", "admin.is_banned", ([u]) => ({ user_id: uid(u) }), (r) => readFlag(r, "banned")),
};

/** `phira-messaging`. */
export const MESSAGING: InterfaceTable = {
  sendToUser: viaOp("send", "broadcast.user", ([u, m]) => ({ user_id: uid(u), message: text(m) })),
  sendToRoom: viaOp("send", "broadcast.room", ([r, m]) => ({ room_id: rid(r), message: text(m) })),
  sendToAll: viaOp("send", "broadcast.all", ([m]) => ({ message: text(m) })),
};

const since = (v: unknown) => num(v, "since-sequence");
const limit = (v: unknown) => num(v, "limit");

/** `phira-persistence`. */
export const PERSISTENCE: InterfaceTable = {
  queryEvents: viaOp("state.read", "persist.events", ([s, l, k, r, u]) => ({
    since: since(s),
    limit: limit(l),
    kind: opt(k, text),
    room_id: opt(r, rid),
    user_id: opt(u, uid),
  })),
  queryRoomSnapshots: viaOp("state.read", "persist.rooms", ([s, l]) => ({ since: since(s), limit: limit(l) })),
  queryTouches: viaOp("state.read", "persist.touches", ([s, l, r, p]) => ({
    since: since(s),
    limit: limit(l),
    round_uuid: opt(r, text),
    player_id: opt(p, uid),
  })),
  queryJudges: viaOp("state.read", "persist.judges", ([s, l, r, p]) => ({
    since: since(s),
    limit: limit(l),
    round_uuid: opt(r, text),
    player_id: opt(p, uid),
  })),
  getPlaytime: viaOp("state.read", "persist.playtime", ([u]) => ({ user_id: uid(u) })),
  topPlaytime: viaOp("state.read", "persist.top_playtime", ([l]) => ({ limit: limit(l) })),
};

/** `phira-admin`. */
export const ADMIN: InterfaceTable = {
  listAdminIds: viaOp("admin", "admin.id_list", () => ({})),
  isAdmin: boolOp("admin", "admin.check", ([u]) => ({ user_id: uid(u) }), (r) => readFlag(r, "admin")),
  addAdminId: viaOp("admin", "admin.id_add", ([u]) => ({ user_id: uid(u) })),
  removeAdminId: viaOp("admin", "admin.id_remove", ([u]) => ({ user_id: uid(u) })),
  setAdminIds: viaOp("admin", "admin.id_set", ([ids]) => ({
    user_ids: [...(ids as Iterable<unknown> ?? [])].map(uid),
  })),
};

/** `phira-runtime`. */
export const RUNTIME: InterfaceTable = {
  status: viaOp("state.read", "runtime.status", () => ({})),
  events: viaOp("state.read", "runtime.events", ([l]) => ({ limit: opt(l, limit) })),
  commands: viaOp("state.read", "ops.list", () => ({})),
};
