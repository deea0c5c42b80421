/**
 * Host functions about rooms (peers note §2.3, spec 3 §4.8 "Rooms"): room
 * tables with their fields, disband, capacity 1-64, room bans that hold for
 * rooms created later, and virtual rooms that really exist (empty, hosted
 * by the system, kept when empty; ids starting with `_` stay out of `/room`).
 *
 * @module
 */

import { lua, type LuaFunction, pushString } from "../fengari.ts";
import { pushValue } from "../values.ts";
import { luaRoom } from "../../views.ts";
import { argInt, argRoomId, argStr, callOp, type HostEnv, optStr, pushFailure } from "./env.ts";

/** Room capacity the legacy API accepts (spec 3 §8). */
export const LEGACY_MAX_USERS = { min: 1, max: 64 } as const;

/** The room functions. */
export function roomFunctions(env: HostEnv): Record<string, LuaFunction> {
  const core = env.ctx.core;
  const room = (id: string) => core.rooms.get(id);
  return {
    get_room: (L) => {
      const r = room(argRoomId(L, 1));
      if (!r) lua.lua_pushnil(L);
      else pushValue(L, luaRoom(core, r));
      return 1;
    },
    get_room_list: (L) => {
      pushValue(L, [...core.rooms.keys()].sort());
      return 1;
    },
    get_active_room_count: (L) => {
      lua.lua_pushinteger(L, core.rooms.size);
      return 1;
    },
    get_room_user_count: (L) => {
      const r = room(argRoomId(L, 1));
      if (!r) lua.lua_pushnil(L);
      else lua.lua_pushinteger(L, r.players.length);
      return 1;
    },
    get_room_user_ids: (L) => {
      pushValue(L, room(argRoomId(L, 1))?.players.map((p) => p.id) ?? []);
      return 1;
    },
    get_room_owner_id: (L) => {
      const r = room(argRoomId(L, 1));
      const host = r ? luaRoom(core, r).host_id : null;
      if (host === null) lua.lua_pushnil(L);
      else lua.lua_pushinteger(L, host);
      return 1;
    },
    get_room_max_users: (L) => {
      const r = room(argRoomId(L, 1));
      if (!r) lua.lua_pushnil(L);
      else lua.lua_pushinteger(L, r.maxPlayers);
      return 1;
    },
    set_max_users: (L) => {
      const id = argRoomId(L, 1);
      const n = argInt(L, 2, "max users");
      if (n < LEGACY_MAX_USERS.min || n > LEGACY_MAX_USERS.max) {
        return pushFailure(L, `max users must be between ${LEGACY_MAX_USERS.min} and ${LEGACY_MAX_USERS.max}`);
      }
      const r = callOp(env, "room.set_max_users", { room_id: id, max_users: n });
      if (!r.ok) return pushFailure(L, r.message);
      lua.lua_pushboolean(L, true);
      return 1;
    },
    disband_room: (L) => {
      const r = callOp(env, "room.close", { room_id: argRoomId(L, 1) });
      if (!r.ok) return pushFailure(L, r.message);
      lua.lua_pushboolean(L, true);
      return 1;
    },
    create_virtual_room: (L) => {
      const id = argStr(L, 1, "room id");
      const r = callOp(env, "room.create", { room_id: id, persistent_empty: true, system_host: true });
      if (!r.ok) {
        lua.lua_pushnil(L);
        pushString(L, r.message);
        return 2;
      }
      const made = room(id);
      if (made) pushValue(L, luaRoom(core, made));
      else lua.lua_pushnil(L);
      return 1;
    },
    ban_room_user: (L) => {
      const r = callOp(env, "legacy.room_ban", {
        user_id: argInt(L, 1, "user id"),
        room_id: argRoomId(L, 2),
        banned: true,
        reason: optStr(L, 3, "reason"),
      });
      if (!r.ok) return pushFailure(L, r.message);
      lua.lua_pushboolean(L, true);
      return 1;
    },
    unban_room_user: (L) => {
      const r = callOp(env, "legacy.room_ban", {
        user_id: argInt(L, 1, "user id"),
        room_id: argRoomId(L, 2),
        banned: false,
      });
      if (!r.ok) return pushFailure(L, r.message);
      lua.lua_pushboolean(L, (r.value as { changed: boolean }).changed);
      return 1;
    },
    is_user_banned_from_room: (L) => {
      const user = argInt(L, 1, "user id");
      const id = argRoomId(L, 2);
      const inRoom = room(id)?.bans.some((b) => b.user_id === user) ?? false;
      lua.lua_pushboolean(L, inRoom || env.ctx.roomBans.has(id, user));
      return 1;
    },
  };
}
