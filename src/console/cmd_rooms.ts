/**
 * Console room commands (spec 3 §4.2 `rooms`, `room ...`): each parses its
 * words, calls the room operation (`src/ops`) as the line's actor and
 * renders the JSON result as text.
 *
 * @module
 */

import { invalid, type RoomBan, type RoomInfo, type RoomSummary, type RoundView } from "../ops/mod.ts";
import type { CommandSpec } from "./registry.ts";
import { fmtTime, roomInfoLines, roomLine, roundLines } from "./text.ts";

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

type Rounds = { source: "persistence" | "memory"; rounds: RoundView[] };

/** The room commands (`room set` is in `cmd_room_set.ts`). */
export function roomCommands(): CommandSpec[] {
  const group = "Rooms";
  const room = { name: "room_id", kind: "room" } as const;
  const user = { name: "user_id", kind: "user" } as const;
  return [
    {
      name: "rooms",
      aliases: ["r"],
      help: "list rooms (hidden ones included)",
      group,
      run: async (_args, call) => {
        const { rooms } = await call.op("room.list") as { rooms: RoomSummary[] };
        if (!rooms.length) return ["no rooms"];
        return [`${rooms.length} room(s):`, ...rooms.map((r) => `  ${roomLine(r)}`)];
      },
    },
    {
      name: "room create-empty",
      args: [room, { name: "options", kind: "text", optional: true }],
      help: "create a room with nobody in it; options: persistent, system-host, an http(s):// API endpoint",
      group,
      run: async (args, call) => {
        const id = args.str("room_id");
        const o = parseCreateOptions((args.optStr("options") ?? "").split(" ").filter(Boolean));
        await call.op("room.create", {
          room_id: id,
          persistent_empty: o.persistent,
          endpoint: o.endpoint,
          system_host: o.systemHost,
        });
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
      run: async (args, call) =>
        roomInfoLines(await call.op("room.info", { room_id: args.str("room_id") }) as RoomInfo),
    },
    {
      name: "room start",
      args: [room],
      help: "forced start: selecting \u2192 waiting for ready; waiting \u2192 playing (not ready = aborted)",
      group,
      run: async (args, call) => {
        const id = args.str("room_id");
        const { state } = await call.op("room.start", { room_id: id }) as { state: string };
        return [`room ${id}: start forced, now ${state}`];
      },
    },
    {
      name: "room ready",
      args: [room, user],
      help: "mark a member ready on their behalf",
      group,
      run: async (args, call) => {
        await call.op("room.ready", { room_id: args.str("room_id"), user_id: args.int("user_id") });
        return [`user ${args.int("user_id")} is ready in ${args.str("room_id")}`];
      },
    },
    {
      name: "room cancel",
      args: [room],
      help: "cancel a start, or end the running round (unfinished players aborted)",
      group,
      run: async (args, call) => {
        const id = args.str("room_id");
        const { state } = await call.op("room.cancel_start", { room_id: id }) as { state: string };
        return [`room ${id}: cancelled, now ${state}`];
      },
    },
    {
      name: "room kick",
      args: [room, user],
      help: "take a member out of the room (they stay connected)",
      group,
      run: async (args, call) => {
        await call.op("room.kick", { room_id: args.str("room_id"), user_id: args.int("user_id") });
        return [`user ${args.int("user_id")} removed from ${args.str("room_id")}`];
      },
    },
    {
      name: "room force-move",
      args: [room, user, { name: "as", kind: "choice", choices: ["monitor", "player"], optional: true }],
      help: "move an online user into the room (their client reconnects into it)",
      group,
      run: async (args, call) => {
        const id = args.str("room_id");
        const uid = args.int("user_id");
        await call.op("room.force_move", { room_id: id, user_id: uid, monitor: args.optStr("as") === "monitor" });
        return [`user ${uid} moved to ${id}; their client reconnects into it`];
      },
    },
    {
      name: "room close",
      args: [room],
      help: "disband a room (members are told and leave; persistent rooms too)",
      group,
      run: async (args, call) => {
        await call.op("room.close", { room_id: args.str("room_id") });
        return [`room ${args.str("room_id")} closed`];
      },
    },
    {
      name: "room transfer",
      args: [room, user],
      help: "make a player of the room its host",
      group,
      run: async (args, call) => {
        await call.op("room.set_host", { room_id: args.str("room_id"), host_id: args.int("user_id") });
        return [`user ${args.int("user_id")} is now host of ${args.str("room_id")}`];
      },
    },
    {
      name: "room history",
      args: [room, { name: "limit", kind: "int", optional: true, min: 1, max: 1000 }],
      help: "settled rounds with results, newest first",
      group,
      run: async (args, call) => {
        const id = args.str("room_id");
        const { source, rounds } = await call.op("room.history", {
          room_id: id,
          limit: args.optInt("limit") ?? 10,
        }) as Rounds;
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
      run: async (args, call) => {
        const id = args.str("room_id");
        const { source, rounds } = await call.op("room.history", {
          room_id: id,
          limit: args.optInt("limit") ?? 50,
        }) as Rounds;
        if (!rounds.length) return [`no settled rounds for ${id}${source === "memory" ? " (memory)" : ""}`];
        return rounds.map((r, i) => `${i + 1}. ${roundLines(r, false)[0]}`);
      },
    },
    {
      name: "room round",
      args: [room, { name: "round", kind: "word" }],
      help: "one round's results, by uuid or by position (1 = latest)",
      group,
      run: async (args, call) =>
        roundLines(
          await call.op("room.round", { room_id: args.str("room_id"), round_id: args.str("round") }) as RoundView,
        ),
    },
    {
      name: "room uuid",
      args: [room],
      help: "the room's unique identifier",
      group,
      run: async (
        args,
        call,
      ) => [(await call.op("room.uuid", { room_id: args.str("room_id") }) as { uuid: string }).uuid],
    },
    {
      name: "room ban",
      args: [room, user, { name: "reason", kind: "text", optional: true }],
      help: "ban a user from the room (removes them if inside)",
      group,
      run: async (args, call) => {
        const reason = args.optStr("reason");
        await call.op("room.ban", { room_id: args.str("room_id"), user_id: args.int("user_id"), reason });
        return [`user ${args.int("user_id")} banned from ${args.str("room_id")}`];
      },
    },
    {
      name: "room unban",
      args: [room, user],
      help: "lift a room ban",
      group,
      run: async (args, call) => {
        await call.op("room.unban", { room_id: args.str("room_id"), user_id: args.int("user_id") });
        return [`user ${args.int("user_id")} unbanned from ${args.str("room_id")}`];
      },
    },
    {
      name: "room banlist",
      args: [room],
      help: "users banned from the room",
      group,
      run: async (args, call) => {
        const id = args.str("room_id");
        const { bans } = await call.op("room.banlist", { room_id: id }) as { bans: RoomBan[] };
        if (!bans.length) return [`nobody is banned from ${id}`];
        return bans.map((b) => `${b.user_id}  ${fmtTime(b.banned_at)}  ${b.reason || "(no reason)"}`);
      },
    },
  ];
}
