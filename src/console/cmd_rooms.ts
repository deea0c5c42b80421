/**
 * Console room commands (spec 3 §4.2 `rooms`, `room …`): listing and
 * inspection, forced start/ready/cancel, members, host, history and room
 * bans. Each runs the room machine's operator transitions through
 * `AdminRooms`, so members see what a host action would show them.
 *
 * @module
 */

import { closeRoom } from "../room/mod.ts";
import { applyAdmin } from "../server/mod.ts";
import { CommandError, invalid, unwrap } from "./errors.ts";
import type { CommandSpec } from "./registry.ts";
import type { ConsoleServices } from "./services.ts";
import { fmtTime, roomInfoLines, roomLine, roundLines } from "./text.ts";
import { roomInfo, roomSummary } from "./views.ts";

/** Options of `room create-empty`. */
export interface CreateEmptyOptions {
  persistent: boolean;
  systemHost: boolean;
  endpoint: string | null;
}

/** Reads `persistent`, `system-host` and an `http(s)://` endpoint from the words after the room id. */
export function parseCreateOptions(words: readonly string[]): CreateEmptyOptions {
  const o: CreateEmptyOptions = { persistent: false, systemHost: false, endpoint: null };
  for (const w of words) {
    if (w === "persistent") o.persistent = true;
    else if (w === "system-host" || w === "system") o.systemHost = true;
    else if (/^https?:\/\//.test(w)) o.endpoint = w;
    else invalid(`unknown option "${w}": expected persistent, system-host or an http(s):// endpoint`);
  }
  return o;
}

/** Closes a room whatever its flags (members leave with a notice; an empty persistent room is deleted). */
export function closeRoomNow(s: ConsoleServices, id: string): void {
  const core = s.core;
  const room = core.rooms.get(id);
  if (!room) throw new CommandError("ROOM_NOT_FOUND", `room not found: ${id}`);
  unwrap(applyAdmin(core, id, closeRoom(room, core.roomCtx())));
}

/** The room commands (`room set` is in `cmd_room_set.ts`). */
export function roomCommands(s: ConsoleServices): CommandSpec[] {
  const group = "Rooms";
  const room = { name: "room_id", kind: "room" } as const;
  const user = { name: "user_id", kind: "user" } as const;
  const ops = s.admin.roomOps;
  const get = (id: string) => {
    const r = s.core.rooms.get(id);
    if (!r) throw new CommandError("ROOM_NOT_FOUND", `room not found: ${id}`);
    return r;
  };
  return [
    {
      name: "rooms",
      aliases: ["r"],
      help: "list rooms (hidden ones included)",
      group,
      run: () => {
        const rooms = [...s.core.rooms.values()];
        if (!rooms.length) return ["no rooms"];
        return [`${rooms.length} room(s):`, ...rooms.map((r) => `  ${roomLine(roomSummary(r))}`)];
      },
    },
    {
      name: "room create-empty",
      args: [room, { name: "options", kind: "text", optional: true }],
      help: "create a room with nobody in it; options: persistent, system-host, an http(s):// API endpoint",
      group,
      run: (args) => {
        const id = args.str("room_id");
        const o = parseCreateOptions((args.optStr("options") ?? "").split(" ").filter(Boolean));
        unwrap(ops.createEmpty(id, { persistent: o.persistent, endpoint: o.endpoint, systemHost: o.systemHost }));
        return [
          `room ${id} created${o.persistent ? " (persistent)" : ""}${o.systemHost ? " with the system host" : ""}`,
        ];
      },
    },
    {
      name: "room info",
      aliases: ["room i"],
      args: [room],
      help: "everything about one room",
      group,
      run: (args) => roomInfoLines(roomInfo(s.core, get(args.str("room_id")))),
    },
    {
      name: "room start",
      args: [room],
      help: "forced start: selecting → waiting for ready; waiting → playing (not ready = aborted)",
      group,
      run: (args) => {
        const id = args.str("room_id");
        unwrap(ops.start(id));
        return [`room ${id}: start forced, now ${roomSummary(get(id)).state}`];
      },
    },
    {
      name: "room ready",
      args: [room, user],
      help: "mark a member ready on their behalf",
      group,
      run: (args) => {
        unwrap(ops.ready(args.str("room_id"), args.int("user_id")));
        return [`user ${args.int("user_id")} is ready in ${args.str("room_id")}`];
      },
    },
    {
      name: "room cancel",
      args: [room],
      help: "cancel a start, or end the running round (unfinished players aborted)",
      group,
      run: (args) => {
        const id = args.str("room_id");
        unwrap(ops.cancel(id));
        return [`room ${id}: cancelled, now ${roomSummary(get(id)).state}`];
      },
    },
    {
      name: "room kick",
      args: [room, user],
      help: "take a member out of the room (they stay connected)",
      group,
      run: (args) => {
        unwrap(ops.kick(args.str("room_id"), args.int("user_id")));
        return [`user ${args.int("user_id")} removed from ${args.str("room_id")}`];
      },
    },
    {
      name: "room force-move",
      args: [room, user, { name: "as", kind: "choice", choices: ["monitor", "player"], optional: true }],
      help: "move an online user into the room (their client reconnects into it)",
      group,
      run: (args) => {
        const id = args.str("room_id");
        const uid = args.int("user_id");
        unwrap(ops.forceMove(uid, id, args.optStr("as") === "monitor"));
        return [`user ${uid} moved to ${id}; their client reconnects into it`];
      },
    },
    {
      name: "room close",
      args: [room],
      help: "disband a room (members are told and leave; persistent rooms too)",
      group,
      run: (args) => {
        closeRoomNow(s, args.str("room_id"));
        return [`room ${args.str("room_id")} closed`];
      },
    },
    {
      name: "room transfer",
      args: [room, user],
      help: "make a player of the room its host",
      group,
      run: (args) => {
        unwrap(ops.setHost(args.str("room_id"), args.int("user_id")));
        return [`user ${args.int("user_id")} is now host of ${args.str("room_id")}`];
      },
    },
    {
      name: "room history",
      args: [room, { name: "limit", kind: "int", optional: true, min: 1, max: 1000 }],
      help: "settled rounds with results, newest first",
      group,
      run: async (args) => {
        const id = args.str("room_id");
        const { source, rounds } = await s.roomRounds(id, args.optInt("limit") ?? 10);
        const note = source === "memory" ? " (memory: this room's last rounds, play_history_cache_size)" : "";
        if (!rounds.length) return [`no settled rounds for ${id}${note}`];
        return [`rounds of ${id}${note}:`, ...rounds.flatMap((r) => roundLines(r))];
      },
    },
    {
      name: "room rounds",
      args: [room, { name: "limit", kind: "int", optional: true, min: 1, max: 1000 }],
      help: "settled rounds, one line each, newest first",
      group,
      run: async (args) => {
        const id = args.str("room_id");
        const { source, rounds } = await s.roomRounds(id, args.optInt("limit") ?? 50);
        if (!rounds.length) return [`no settled rounds for ${id}${source === "memory" ? " (memory)" : ""}`];
        return rounds.map((r, i) => `${i + 1}. ${roundLines(r, false)[0]}`);
      },
    },
    {
      name: "room round",
      args: [room, { name: "round", kind: "word" }],
      help: "one round's results, by uuid or by position (1 = latest)",
      group,
      run: async (args) => roundLines((await s.round(args.str("room_id"), args.str("round"))).round),
    },
    {
      name: "room uuid",
      args: [room],
      help: "the room's unique identifier",
      group,
      run: (args) => [get(args.str("room_id")).uuid],
    },
    {
      name: "room ban",
      args: [room, user, { name: "reason", kind: "text", optional: true }],
      help: "ban a user from the room (removes them if inside)",
      group,
      run: (args) => {
        unwrap(ops.ban(args.str("room_id"), args.int("user_id"), args.optStr("reason") ?? ""));
        return [`user ${args.int("user_id")} banned from ${args.str("room_id")}`];
      },
    },
    {
      name: "room unban",
      args: [room, user],
      help: "lift a room ban",
      group,
      run: (args) => {
        unwrap(ops.unban(args.str("room_id"), args.int("user_id")));
        return [`user ${args.int("user_id")} unbanned from ${args.str("room_id")}`];
      },
    },
    {
      name: "room banlist",
      args: [room],
      help: "users banned from the room",
      group,
      run: (args) => {
        const r = get(args.str("room_id"));
        if (!r.bans.length) return [`nobody is banned from ${r.id}`];
        return r.bans.map((b) => `${b.user_id}  ${fmtTime(b.banned_at)}  ${b.reason || "(no reason)"}`);
      },
    },
  ];
}
