/**
 * Host functions about users (peers note §2.3, spec 3 §4.8 "Users"):
 * lookups return tables with fields, kicks and bans go through the
 * operations layer (durable, firing `on_user_kick` / `on_user_ban` /
 * `on_user_unban`).
 *
 * @module
 */

import { lua, type LuaFunction, pushString } from "../fengari.ts";
import { pushValue } from "../values.ts";
import { luaUser } from "../../views.ts";
import { argInt, callOp, type HostEnv, optBool, optStr } from "./env.ts";

/** The user functions. */
export function userFunctions(env: HostEnv): Record<string, LuaFunction> {
  const core = env.ctx.core;
  const user = (id: number) => core.users.get(id);
  return {
    get_user: (L) => {
      const u = user(argInt(L, 1, "user id"));
      if (!u) lua.lua_pushnil(L);
      else pushValue(L, luaUser(core, u));
      return 1;
    },
    get_user_name: (L) => {
      const u = user(argInt(L, 1, "user id"));
      if (!u) lua.lua_pushnil(L);
      else pushString(L, u.name);
      return 1;
    },
    get_user_language: (L) => {
      const u = user(argInt(L, 1, "user id"));
      if (!u) lua.lua_pushnil(L);
      else pushString(L, u.language);
      return 1;
    },
    get_user_room_id: (L) => {
      const u = user(argInt(L, 1, "user id"));
      if (!u?.roomId || !core.rooms.has(u.roomId)) lua.lua_pushnil(L);
      else pushString(L, u.roomId);
      return 1;
    },
    get_connected_user_count: (L) => {
      lua.lua_pushinteger(L, env.ctx.ops.context.counts().users);
      return 1;
    },
    get_connected_user_ids: (L) => {
      pushValue(L, core.onlineUsers().filter((u) => u.id > 0).map((u) => u.id).sort((a, b) => a - b));
      return 1;
    },
    kick_user: (L) => {
      const id = argInt(L, 1, "user id");
      const r = callOp(env, "legacy.disconnect", {
        user_id: id,
        preserve_room: optBool(L, 2, false),
        reason: optStr(L, 3, "reason"),
      });
      lua.lua_pushboolean(L, r.ok);
      return 1;
    },
    ban_user: (L) => {
      const r = callOp(env, "player.ban", { user_id: argInt(L, 1, "user id"), reason: optStr(L, 2, "reason") });
      lua.lua_pushboolean(L, r.ok);
      return 1;
    },
    unban_user: (L) => {
      const r = callOp(env, "player.unban", { user_id: argInt(L, 1, "user id") });
      lua.lua_pushboolean(L, r.ok);
      return 1;
    },
    is_user_banned: (L) => {
      lua.lua_pushboolean(L, core.bans.userBan(argInt(L, 1, "user id")) !== undefined);
      return 1;
    },
    get_banned_users: (L) => {
      pushValue(L, core.bans.userBans().map((b) => b.user_id).sort((a, b) => a - b));
      return 1;
    },
  };
}
