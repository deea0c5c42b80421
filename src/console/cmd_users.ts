/**
 * Console commands about people (spec 3 §4.2): online users, kick, bans by
 * id and address, IP and room history, playtime, administrator ids and
 * broadcasts -- each an adapter over its operation (`src/ops`).
 *
 * @module
 */

import { invalid, MAX_MESSAGE_CHARS, OpsError, type RoomVisit, type UserView } from "../ops/mod.ts";
import type { IpBan, IpRecord, UserBan } from "../server/mod.ts";
import type { CommandSpec } from "./registry.ts";
import { fmtDuration, fmtTime, userLine, visitLine } from "./text.ts";

/** A broadcast text within the chat limit. */
export function checkMessage(message: string): string {
  if ([...message].length > MAX_MESSAGE_CHARS) invalid(`message longer than ${MAX_MESSAGE_CHARS} characters`);
  return message;
}

/** The commands about people. */
export function userCommands(): CommandSpec[] {
  const group = "Users";
  const user = { name: "user_id", kind: "user" } as const;
  const reason = { name: "reason", kind: "text", optional: true } as const;
  return [
    {
      name: "users",
      aliases: ["u"],
      help: "list online users (id, name, room, language, address)",
      group,
      run: async (_args, call) => {
        const { users } = await call.op("users.list") as { users: UserView[] };
        if (!users.length) return ["no users online"];
        return [`${users.length} online:`, ...users.map((u) => `  ${userLine(u)}`)];
      },
    },
    {
      name: "kick",
      args: [user, reason],
      help: "disconnect a user (they may log in again)",
      group,
      run: async (args, call) => {
        const id = args.int("user_id");
        await call.op("player.kick", { user_id: id, reason: args.optStr("reason") });
        return [`kicked user ${id}`];
      },
    },
    {
      name: "ban",
      args: [user, reason],
      help: "ban a user id (disconnects them if online)",
      group,
      run: async (args, call) => {
        const id = args.int("user_id");
        const r = await call.op("player.ban", { user_id: id, reason: args.optStr("reason") }) as {
          disconnected: boolean;
        };
        return [`banned user ${id}${r.disconnected ? " and disconnected them" : ""}`];
      },
    },
    {
      name: "unban",
      aliases: ["pardon"],
      args: [user],
      help: "lift a user ban",
      group,
      run: async (args, call) => {
        await call.op("player.unban", { user_id: args.int("user_id") });
        return [`unbanned user ${args.int("user_id")}`];
      },
    },
    {
      name: "ban ip",
      args: [{ name: "target", kind: "word" }, reason],
      help: "ban an address, or every address known for a user id",
      group,
      run: async (args, call) => {
        const r = await call.op("player.ban_ip", { target: args.str("target"), reason: args.optStr("reason") }) as {
          ips: string[];
          disconnected: number;
        };
        return [`banned ${r.ips.join(", ")}; ${r.disconnected} session(s) disconnected`];
      },
    },
    {
      name: "unban ip",
      args: [{ name: "ip", kind: "word" }],
      help: "lift an address ban",
      group,
      run: async (args, call) => {
        await call.op("player.unban_ip", { ip: args.str("ip") });
        return [`unbanned ${args.str("ip")}`];
      },
    },
    {
      name: "banlist",
      help: "list banned user ids and addresses",
      group,
      run: async (_args, call) => {
        const r = await call.op("player.banlist") as { bans: UserBan[]; ip_bans: IpBan[] };
        return [
          `banned users (${r.bans.length}):`,
          ...r.bans.map((b) => `  ${b.user_id}  ${fmtTime(b.banned_at)}  ${b.reason || "(no reason)"}`),
          `banned addresses (${r.ip_bans.length}):`,
          ...r.ip_bans.map((b) => `  ${b.ip}  ${fmtTime(b.banned_at)}  ${b.reason || "(no reason)"}`),
        ];
      },
    },
    {
      name: "ip-history",
      args: [user],
      help: "addresses a user connected from, newest first",
      group,
      run: async (args, call) => {
        const id = args.int("user_id");
        const { ip_history: rows } = await call.op("player.ip_history", { user_id: id }) as { ip_history: IpRecord[] };
        if (!rows.length) return [`no address recorded for user ${id}`];
        return rows.map((r) =>
          `${r.ip}  first ${fmtTime(r.first_seen_at)}  last ${fmtTime(r.last_seen_at)}  ${r.use_count} logins`
        );
      },
    },
    {
      name: "user-rooms",
      aliases: ["rh"],
      args: [user, { name: "limit", kind: "int", optional: true, min: 1, max: 1000 }],
      help: "rooms a user visited, newest first",
      group,
      run: async (args, call) => {
        const id = args.int("user_id");
        const { source, visits } = await call.op("user.room_history", {
          user_id: id,
          limit: args.optInt("limit") ?? 20,
        }) as { source: string; visits: RoomVisit[] };
        const note = source === "memory" ? " (memory: since this process started)" : "";
        if (!visits.length) return [`no room visits recorded for user ${id}${note}`];
        return [`rooms of user ${id}${note}:`, ...visits.map((v) => `  ${visitLine(v)}`)];
      },
    },
    {
      name: "playtime",
      args: [user],
      help: "time a user spent in rooms",
      group,
      run: async (args, call) => {
        const id = args.int("user_id");
        const { seconds } = await call.op("persist.playtime", { user_id: id }) as { seconds: number };
        return [`user ${id}: ${fmtDuration(seconds)} in rooms`];
      },
    },
    {
      name: "playtime top",
      args: [{ name: "limit", kind: "int", optional: true, min: 1, max: 100 }],
      help: "users with the most playtime",
      group,
      run: async (args, call) => {
        const { entries } = await call.op("persist.top_playtime", { limit: args.optInt("limit") ?? 10 }) as {
          entries: { user_id: number; name: string; seconds: number }[];
        };
        if (!entries.length) return ["no playtime recorded"];
        return entries.map((e, i) => `#${i + 1} ${e.name}(${e.user_id})  ${fmtDuration(e.seconds)}`);
      },
    },
    {
      name: "admin-id list",
      help: "game user ids with in-game console rights",
      group,
      run: async (_args, call) => [`administrator ids: ${await adminIdText(call)}`],
    },
    {
      name: "admin-id add",
      args: [user],
      help: "give a game user in-game console rights",
      group,
      run: async (args, call) => {
        const id = args.int("user_id");
        if (await call.op("admin.check", { user_id: id })) {
          throw new OpsError("CONFLICT", `user ${id} is already an administrator`);
        }
        await call.op("admin.id_add", { user_id: id });
        return [`user ${id} is now an administrator`];
      },
    },
    {
      name: "admin-id remove",
      args: [user],
      help: "take in-game console rights away",
      group,
      run: async (args, call) => {
        await call.op("admin.id_remove", { user_id: args.int("user_id") });
        return [`user ${args.int("user_id")} is no longer an administrator`];
      },
    },
    {
      name: "admin-id set",
      args: [{ name: "user_ids", kind: "ints", optional: true }],
      help: "replace the administrator ids (none given = nobody)",
      group,
      run: async (args, call) => {
        const { admin_ids } = await call.op("admin.id_set", { user_ids: args.ints("user_ids") }) as {
          admin_ids: number[];
        };
        return [`administrator ids: ${admin_ids.join(", ") || "none"}`];
      },
    },
    {
      name: "broadcast all",
      args: [{ name: "message", kind: "text" }],
      help: "system message to every online user",
      group,
      run: async (args, call) => {
        const { sent } = await call.op("broadcast.all", { message: checkMessage(args.str("message")) }) as {
          sent: number;
        };
        return [`sent to ${sent} user(s)`];
      },
    },
    {
      name: "broadcast room",
      args: [{ name: "room_id", kind: "room" }, { name: "message", kind: "text" }],
      help: "system message to a room's members",
      group,
      run: async (args, call) => {
        const id = args.str("room_id");
        const { sent } = await call.op("broadcast.room", {
          room_id: id,
          message: checkMessage(args.str("message")),
        }) as { sent: number };
        return [`sent to ${sent} member(s) of ${id}`];
      },
    },
    {
      name: "broadcast user",
      args: [user, { name: "message", kind: "text" }],
      help: "system message to one online user",
      group,
      run: async (args, call) => {
        const id = args.int("user_id");
        await call.op("broadcast.user", { user_id: id, message: checkMessage(args.str("message")) });
        return [`sent to user ${id}`];
      },
    },
  ];
}

async function adminIdText(call: { op(name: string, args?: unknown): Promise<unknown> }): Promise<string> {
  const { admin_ids } = await call.op("admin.id_list") as { admin_ids: number[] };
  return admin_ids.join(", ") || "none";
}
