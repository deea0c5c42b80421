/**
 * Host functions that talk (peers note §2.3, spec 3 §4.8 "Messages"): log
 * lines with the plugin's id, and system chat lines (user 0, no prefix, at
 * most 200 characters) to one user, a room or everyone.
 *
 * @module
 */

import { lua, type LuaFunction } from "../fengari.ts";
import { readValue } from "../values.ts";
import { argInt, argRoomId, argStr, callOp, type HostEnv, HostError, pushFailure } from "./env.ts";

/** Command types `send_to_user` / `broadcast_to_room` deliver: all mean a system chat line. */
export const CHAT_TYPES: ReadonlySet<string> = new Set(["chat", "message", "system", "text"]);

/** The text of a message argument: a string, or a table with `message`, `content` or `text`. */
function messageText(value: unknown, fn: string): string {
  if (typeof value === "string") return value;
  if (typeof value === "number") return String(value);
  if (value && typeof value === "object" && !Array.isArray(value)) {
    const v = value as Record<string, unknown>;
    for (const key of ["message", "content", "text"]) if (typeof v[key] === "string") return v[key] as string;
  }
  throw new HostError(`${fn} needs a message: a string, or a table with a message field`);
}

function chatType(type: string, fn: string): void {
  if (!CHAT_TYPES.has(type.toLowerCase())) {
    throw new HostError(`${fn}: unsupported command type "${type}" (use "chat")`);
  }
}

/** The message functions. */
export function messageFunctions(env: HostEnv): Record<string, LuaFunction> {
  const say = (L: Parameters<LuaFunction>[0], args: Record<string, unknown>) => {
    const r = callOp(env, "legacy.say", args);
    if (!r.ok) return pushFailure(L, r.message);
    lua.lua_pushboolean(L, (r.value as { users: number }).users > 0);
    return 1;
  };
  return {
    log_info: (L) => {
      env.log("info", argStr(L, 1, "message"));
      return 0;
    },
    log_error: (L) => {
      env.log("error", argStr(L, 1, "message"));
      return 0;
    },
    log_warn: (L) => {
      env.log("warn", argStr(L, 1, "message"));
      return 0;
    },
    send_to_user: (L) => {
      const user = argInt(L, 1, "user id");
      chatType(argStr(L, 2, "command type"), "send_to_user");
      return say(L, { user_id: user, message: messageText(readValue(L, 3), "send_to_user") });
    },
    broadcast_to_room: (L) => {
      const room = argRoomId(L, 1);
      chatType(argStr(L, 2, "command type"), "broadcast_to_room");
      return say(L, { room_id: room, message: messageText(readValue(L, 3), "broadcast_to_room") });
    },
    broadcast_message: (L) => say(L, { message: argStr(L, 1, "message") }),
    roomsay_message: (L) => say(L, { room_id: argRoomId(L, 1), message: argStr(L, 2, "message") }),
  };
}
