/**
 * Host functions about address bans (peers note §2.3, spec 3 §4.8 "IP"). Two
 * lists, as in the original: `is_admin = true` (the default) is the game
 * port's address ban list (durable; connections from it are refused and
 * those open are closed); `is_admin = false` is the admin API's lockout list
 * (temporary; the addresses that failed tokens or codes too often).
 * `is_ip_banned` answers for either.
 *
 * @module
 */

import { canonicalIp } from "../../../src/net/mod.ts";
import { lua, type LuaFunction } from "../fengari.ts";
import { pushValue } from "../values.ts";
import { argStr, callOp, type HostEnv, optBool, pushFailure } from "./env.ts";

/** The address functions. */
export function ipFunctions(env: HostEnv): Record<string, LuaFunction> {
  const ctx = env.ctx;
  return {
    add_ip_to_blacklist: (L) => {
      const ip = argStr(L, 1, "address");
      const game = optBool(L, 2, true);
      const r = callOp(env, game ? "legacy.ban_ip" : "legacy.ip_blacklist_add", { ip });
      if (!r.ok) return pushFailure(L, r.message);
      lua.lua_pushboolean(L, true);
      return 1;
    },
    remove_ip_from_blacklist: (L) => {
      const ip = argStr(L, 1, "address");
      const list = optBool(L, 2, true) ? "game" : "admin_api";
      const r = callOp(env, "legacy.ip_blacklist_remove", { ip, list });
      if (!r.ok) return pushFailure(L, r.message);
      lua.lua_pushboolean(L, (r.value as { removed: boolean }).removed);
      return 1;
    },
    is_ip_banned: (L) => {
      const ip = canonicalIp(argStr(L, 1, "address"));
      lua.lua_pushboolean(L, ip !== null && (!!ctx.core.bans.ipBan(ip) || ctx.lockouts.lockedUntil(ip) !== null));
      return 1;
    },
    get_banned_ips: (L) => {
      const game = optBool(L, 1, true);
      pushValue(L, game ? ctx.core.bans.ipBans().map((b) => b.ip).sort() : ctx.lockouts.list().map((l) => l.ip));
      return 1;
    },
    clear_ip_blacklist: (L) => {
      const r = callOp(env, "legacy.ip_blacklist_clear", { list: optBool(L, 1, true) ? "game" : "admin_api" });
      lua.lua_pushboolean(L, r.ok);
      return 1;
    },
  };
}
