/**
 * The host table of a plugin's state: the 48 functions of the original
 * `phira` table (peers note §2.3) and the extras (`json_encode`,
 * `json_decode`, `get_connected_user_ids`, `log_warn`, and those of
 * `extras.ts`), each wrapped so that
 * a failure becomes a Lua error naming it. The same table is the global
 * `phira` (what existing plugins use) and `game` (spec 3 §4.8).
 *
 * @module
 */

import { lua, luaBytes, type LuaFunction, type LuaState } from "../fengari.ts";
import { contestFunctions } from "./contest.ts";
import { extraFunctions } from "./extras.ts";
import { type HostEnv, hostFn } from "./env.ts";
import { ipFunctions } from "./ip.ts";
import { messageFunctions } from "./messages.ts";
import { roomFunctions } from "./rooms.ts";
import { serverFunctions } from "./server.ts";
import { userFunctions } from "./users.ts";

/** The original host table's 48 functions (peers note §2.3), every one implemented. */
export const ORIGINAL_FUNCTIONS = [
  "log_info",
  "log_error",
  "get_user",
  "get_room",
  "send_to_user",
  "broadcast_to_room",
  "create_virtual_room",
  "register_http_route",
  "kick_user",
  "ban_user",
  "unban_user",
  "is_user_banned",
  "get_banned_users",
  "ban_room_user",
  "unban_room_user",
  "is_user_banned_from_room",
  "disband_room",
  "set_max_users",
  "get_room_max_users",
  "broadcast_message",
  "roomsay_message",
  "shutdown_server",
  "reload_plugins",
  "get_connected_user_count",
  "get_active_room_count",
  "get_room_list",
  "set_replay_status",
  "get_replay_status",
  "set_room_creation_status",
  "get_room_creation_status",
  "add_ip_to_blacklist",
  "remove_ip_from_blacklist",
  "is_ip_banned",
  "get_banned_ips",
  "clear_ip_blacklist",
  "enable_contest",
  "disable_contest",
  "add_contest_whitelist",
  "remove_contest_whitelist",
  "start_contest",
  "get_user_name",
  "get_user_language",
  "get_user_room_id",
  "get_room_user_count",
  "get_room_user_ids",
  "get_room_owner_id",
  "save_admin_data",
  "load_admin_data",
] as const;

/** Every host function of a plugin. */
export function hostFunctions(env: HostEnv): Record<string, LuaFunction> {
  return {
    ...messageFunctions(env),
    ...userFunctions(env),
    ...roomFunctions(env),
    ...serverFunctions(env),
    ...ipFunctions(env),
    ...contestFunctions(env),
    ...extraFunctions(env),
  };
}

/** Installs the host table as the globals `phira` and `game`. */
export function installHostTable(L: LuaState, env: HostEnv): void {
  const fns = hostFunctions(env);
  lua.lua_createtable(L, 0, Object.keys(fns).length + 2);
  for (const [name, fn] of Object.entries(fns)) {
    lua.lua_pushjsfunction(L, hostFn(`phira.${name}`, fn));
    lua.lua_setfield(L, -2, luaBytes(name));
  }
  lua.lua_pushvalue(L, -1);
  lua.lua_setglobal(L, luaBytes("game"));
  lua.lua_setglobal(L, luaBytes("phira"));
}
