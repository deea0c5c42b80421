/**
 * Host functions about the server (peers note §2.3, spec 3 §4.8 "Server",
 * "Status"): switches, shutdown that really stops, plugin reload, plugin
 * HTTP routes, the ban file of the original, and JSON helpers (the built-in
 * `http-admin-api` of the original defined its own broken ones).
 *
 * @module
 */

import { adminDataNow, adminDataPath, applyBans, parseBanFile } from "../../admin_data.ts";
import { lua, luaBytes, type LuaFunction, pushString } from "../fengari.ts";
import { markArray, pushValue, readValue } from "../values.ts";
import { argStr, callOp, type HostEnv, HostError, pushFailure } from "./env.ts";

/** Registry table holding a plugin's route handlers by `METHOD path`. */
export const ROUTES_KEY = "chorus.routes";

/** The server functions. */
export function serverFunctions(env: HostEnv): Record<string, LuaFunction> {
  const flag = (op: string): LuaFunction => (L) => {
    const r = callOp(env, op, { enabled: lua.lua_toboolean(L, 1) });
    lua.lua_pushboolean(L, r.ok);
    return 1;
  };
  const read = (op: string): LuaFunction => (L) => {
    const r = callOp(env, op, {});
    lua.lua_pushboolean(L, r.ok && (r.value as { enabled: boolean }).enabled);
    return 1;
  };
  return {
    shutdown_server: (L) => {
      const r = callOp(env, "legacy.shutdown", { reason: `plugin ${env.pluginId}` });
      lua.lua_pushboolean(L, r.ok);
      return 1;
    },
    reload_plugins: (L) => {
      env.reloadSoon();
      lua.lua_pushboolean(L, true);
      return 1;
    },
    set_replay_status: flag("legacy.replay"),
    get_replay_status: read("legacy.replay"),
    set_room_creation_status: flag("legacy.room_creation"),
    get_room_creation_status: read("legacy.room_creation"),
    register_http_route: (L) => {
      const method = argStr(L, 1, "method").toUpperCase();
      const path = argStr(L, 2, "path");
      if (lua.lua_type(L, 3) !== lua.LUA_TFUNCTION) throw new HostError("argument 3 (handler) must be a function");
      const key = `${method} ${path}`;
      if (!env.routes.register(env.pluginId, method, path, key)) {
        env.log("warn", `route ${key} not registered: invalid, or taken by the server or another plugin`);
        lua.lua_pushboolean(L, false);
        return 1;
      }
      lua.lua_getfield(L, lua.LUA_REGISTRYINDEX, luaBytes(ROUTES_KEY));
      if (lua.lua_type(L, -1) !== lua.LUA_TTABLE) {
        lua.lua_pop(L, 1);
        lua.lua_createtable(L, 0, 4);
        lua.lua_pushvalue(L, -1);
        lua.lua_setfield(L, lua.LUA_REGISTRYINDEX, luaBytes(ROUTES_KEY));
      }
      lua.lua_pushvalue(L, 3);
      lua.lua_setfield(L, -2, luaBytes(key));
      lua.lua_pop(L, 1);
      lua.lua_pushboolean(L, true);
      return 1;
    },
    save_admin_data: (L) => {
      const path = adminDataPath(env.ctx);
      const temp = `${path}.tmp`;
      try {
        Deno.writeTextFileSync(temp, JSON.stringify(adminDataNow(env.ctx), null, 2) + "\n");
        Deno.renameSync(temp, path);
      } catch (error) {
        return pushFailure(L, `cannot write ${path}: ${error instanceof Error ? error.message : error}`);
      }
      lua.lua_pushboolean(L, true);
      return 1;
    },
    load_admin_data: (L) => {
      const path = adminDataPath(env.ctx);
      let content;
      try {
        content = parseBanFile("admin_data.json", Deno.readTextFileSync(path));
      } catch (error) {
        return pushFailure(L, `cannot load ${path}: ${error instanceof Error ? error.message : error}`);
      }
      const report = applyBans(env.ctx, "admin_data.json", content);
      env.log("info", "admin_data.json loaded", { users: report.users, room_bans: report.roomBans });
      lua.lua_pushboolean(L, true);
      return 1;
    },
    array: (L) => {
      if (lua.lua_type(L, 1) !== lua.LUA_TTABLE) lua.lua_createtable(L, 0, 0);
      else lua.lua_pushvalue(L, 1);
      markArray(L);
      return 1;
    },
    json_encode: (L) => {
      pushString(L, JSON.stringify(readValue(L, 1)));
      return 1;
    },
    json_decode: (L) => {
      const text = argStr(L, 1, "json text");
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (error) {
        lua.lua_pushnil(L);
        pushString(L, `invalid JSON: ${error instanceof Error ? error.message : error}`);
        return 2;
      }
      pushValue(L, value);
      return 1;
    },
  };
}
