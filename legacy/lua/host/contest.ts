/**
 * Host functions about contest rooms (peers note §2.3, spec 3 §4.8
 * "Contest"), over the contest operations (`ops_contest.ts`): whitelist,
 * manual start through the core's tournament mode, disband after the round.
 * The original's `enable_contest` always answered false; here it works.
 *
 * @module
 */

import { lua, type LuaFunction } from "../fengari.ts";
import { argInt, argRoomId, callOp, type HostEnv, optBool, pushFailure } from "./env.ts";

/** The contest functions. */
export function contestFunctions(env: HostEnv): Record<string, LuaFunction> {
  const answer = (L: Parameters<LuaFunction>[0], op: string, args: unknown) => {
    const r = callOp(env, op, args);
    if (!r.ok) return pushFailure(L, r.message);
    lua.lua_pushboolean(L, true);
    return 1;
  };
  return {
    enable_contest: (L) =>
      answer(L, "legacy.contest_config", {
        room_id: argRoomId(L, 1),
        enabled: true,
        manual_start: optBool(L, 2, true),
        auto_disband: optBool(L, 3, true),
      }),
    disable_contest: (L) => {
      const room = argRoomId(L, 1);
      if (!env.ctx.contests.get(room)) return pushFailure(L, `room ${room} is not a contest room`);
      return answer(L, "legacy.contest_config", { room_id: room, enabled: false });
    },
    add_contest_whitelist: (L) =>
      answer(L, "legacy.contest_whitelist", {
        room_id: argRoomId(L, 1),
        user_ids: [argInt(L, 2, "user id")],
        mode: "add",
      }),
    remove_contest_whitelist: (L) =>
      answer(L, "legacy.contest_whitelist", {
        room_id: argRoomId(L, 1),
        user_ids: [argInt(L, 2, "user id")],
        mode: "remove",
      }),
    start_contest: (L) => answer(L, "legacy.contest_start", { room_id: argRoomId(L, 1), force: optBool(L, 2, false) }),
  };
}
