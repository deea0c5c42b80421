/**
 * Host functions beyond the original 48 that the built-in plugins need to
 * do for real what the originals only simulated: server figures, admin
 * checks of a plugin route's request, moving users, room flags, and a
 * user's replays. Plugins written for the original never call them, so
 * nothing of the original API changes.
 *
 * @module
 */

import { listReplaysSync, removeReplaySync } from "../../../src/replay/mod.ts";
import { lua, type LuaFunction, type LuaState, toText } from "../fengari.ts";
import { pushValue, readValue } from "../values.ts";
import { argInt, argRoomId, callOp, type HostEnv, HostError, optBool, pushFailure } from "./env.ts";

/** A string-keyed table field of the request table at `idx`. */
function field(L: LuaState, idx: number, name: string): unknown {
  lua.lua_getfield(L, idx, new TextEncoder().encode(name));
  const value = readValue(L, -1);
  lua.lua_pop(L, 1);
  return value;
}

/** The extra functions. */
export function extraFunctions(env: HostEnv): Record<string, LuaFunction> {
  const ctx = env.ctx;
  const flag = (op: string, key: string): LuaFunction => (L) => {
    const r = callOp(env, op, { room_id: argRoomId(L, 1), [key]: optBool(L, 2, true) });
    if (!r.ok) return pushFailure(L, r.message);
    lua.lua_pushboolean(L, true);
    return 1;
  };
  return {
    get_server_stats: (L) => {
      const s = ctx.ops.context;
      pushValue(L, { ...s.counts(), uptime: s.uptimeSecs(), version: s.version, plugins: env.enabledPlugins() });
      return 1;
    },
    is_admin: (L) => {
      if (lua.lua_type(L, 1) !== lua.LUA_TTABLE) {
        throw new HostError("argument 1 must be the request table of a route handler");
      }
      const headers = field(L, 1, "headers");
      const query = field(L, 1, "query");
      const ip = field(L, 1, "ip");
      const bodyText = field(L, 1, "body");
      let body: unknown = {};
      if (typeof bodyText === "string" && bodyText.trim().startsWith("{")) {
        try {
          body = JSON.parse(bodyText);
        } catch {
          body = {};
        }
      }
      const pick = (t: unknown, k: string) => {
        const v = t && typeof t === "object" ? (t as Record<string, unknown>)[k] : undefined;
        return typeof v === "string" ? v : undefined;
      };
      const check = env.admin(typeof ip === "string" ? ip : "", {
        header: (n) => pick(headers, n.toLowerCase()),
        query: (n) => pick(query, n),
        body,
      });
      if (check.ok) {
        lua.lua_pushboolean(L, true);
        return 1;
      }
      lua.lua_pushboolean(L, false);
      pushValue(L, check.error);
      lua.lua_pushinteger(L, check.status);
      return 3;
    },
    is_admin_user: (L) => {
      lua.lua_pushboolean(L, ctx.core.adminIds.has(argInt(L, 1, "user id")));
      return 1;
    },
    move_user: (L) => {
      const r = callOp(env, "room.force_move", {
        user_id: argInt(L, 1, "user id"),
        room_id: argRoomId(L, 2),
        monitor: optBool(L, 3, false),
      });
      if (!r.ok) return pushFailure(L, r.message);
      lua.lua_pushboolean(L, true);
      return 1;
    },
    set_room_lock: flag("room.lock", "locked"),
    set_room_cycle: flag("room.cycle", "cycle"),
    set_room_hidden: flag("room.set_hidden", "hidden"),
    list_replays: (L) => {
      pushValue(L, listReplaysSync(ctx.replays, argInt(L, 1, "user id")));
      return 1;
    },
    delete_replay: (L) => {
      const user = argInt(L, 1, "user id");
      const chart = argInt(L, 2, "chart id");
      const time = lua.lua_type(L, 3) === lua.LUA_TNUMBER ? lua.lua_tonumber(L, 3) : Number(toText(L, 3));
      if (!Number.isSafeInteger(time)) throw new HostError("argument 3 (timestamp) must be an integer");
      lua.lua_pushboolean(L, removeReplaySync(ctx.replays, user, chart, time));
      return 1;
    },
  };
}
