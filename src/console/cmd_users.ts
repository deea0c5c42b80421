/**
 * Console commands about people (spec 3 §4.2): online users, kick, bans by
 * id and address, IP and room history, playtime, administrator ids and
 * broadcasts.
 *
 * @module
 */

import { parseIp } from "../net/mod.ts";
import { CommandError, invalid } from "./errors.ts";
import type { CommandSpec } from "./registry.ts";
import type { ConsoleServices } from "./services.ts";
import { fmtDuration, fmtTime, userLine, visitLine } from "./text.ts";
import { userView } from "./views.ts";

/** Longest broadcast, as a chat message (spec 3 §8). */
export const MAX_MESSAGE_CHARS = 200;

/** A broadcast text within the chat limit. */
export function checkMessage(message: string): string {
  if ([...message].length > MAX_MESSAGE_CHARS) invalid(`message longer than ${MAX_MESSAGE_CHARS} characters`);
  return message;
}

/** Addresses to ban for `ban ip <target>`: the address itself, or every address known for a user id. */
export async function banTargets(s: ConsoleServices, target: string): Promise<string[]> {
  if (parseIp(target)) return [target];
  if (!/^-?\d+$/.test(target)) invalid(`invalid target "${target}": expected an IP address or a user id`);
  const id = Number(target);
  const ips = new Set((await s.ipHistory(id)).map((r) => r.ip));
  const live = s.core.users.get(id)?.session?.ip;
  if (live) ips.add(live);
  if (!ips.size) throw new CommandError("USER_NOT_FOUND", `no address known for user ${id}`);
  return [...ips];
}

/** The commands about people. */
export function userCommands(s: ConsoleServices): CommandSpec[] {
  const group = "Users";
  const user = { name: "user_id", kind: "user" } as const;
  const reason = { name: "reason", kind: "text", optional: true } as const;
  return [
    {
      name: "users",
      aliases: ["u"],
      help: "list online users (id, name, room, language, address)",
      group,
      run: () => {
        const users = s.core.onlineUsers();
        if (!users.length) return ["no users online"];
        return [`${users.length} online:`, ...users.map((u) => `  ${userLine(userView(s.core, u))}`)];
      },
    },
    {
      name: "kick",
      args: [user, reason],
      help: "disconnect a user (they may log in again)",
      group,
      run: (args) => {
        const id = args.int("user_id");
        if (!s.admin.kickUser(id, args.optStr("reason") ?? "")) {
          throw new CommandError("USER_NOT_FOUND", `user ${id} is not online`);
        }
        return [`kicked user ${id}`];
      },
    },
    {
      name: "ban",
      args: [user, reason],
      help: "ban a user id (disconnects them if online)",
      group,
      run: (args) => {
        const id = args.int("user_id");
        const online = s.core.users.has(id);
        s.admin.banUser(id, args.optStr("reason") ?? "");
        return [`banned user ${id}${online ? " and disconnected them" : ""}`];
      },
    },
    {
      name: "unban",
      aliases: ["pardon"],
      args: [user],
      help: "lift a user ban",
      group,
      run: (args) => {
        const id = args.int("user_id");
        if (!s.admin.unbanUser(id)) throw new CommandError("USER_NOT_FOUND", `user ${id} is not banned`);
        return [`unbanned user ${id}`];
      },
    },
    {
      name: "ban ip",
      args: [{ name: "target", kind: "word" }, reason],
      help: "ban an address, or every address known for a user id",
      group,
      run: async (args) => {
        const ips = await banTargets(s, args.str("target"));
        const hit = ips.reduce((n, ip) => n + s.admin.banIp(ip, args.optStr("reason") ?? ""), 0);
        return [`banned ${ips.join(", ")}; ${hit} session(s) disconnected`];
      },
    },
    {
      name: "unban ip",
      args: [{ name: "ip", kind: "word" }],
      help: "lift an address ban",
      group,
      run: (args) => {
        const ip = args.str("ip");
        if (!s.admin.unbanIp(ip)) throw new CommandError("INVALID_ARGUMENT", `address ${ip} is not banned`);
        return [`unbanned ${ip}`];
      },
    },
    {
      name: "banlist",
      help: "list banned user ids and addresses",
      group,
      run: () => {
        const users = s.core.bans.userBans();
        const ips = s.core.bans.ipBans();
        return [
          `banned users (${users.length}):`,
          ...users.map((b) => `  ${b.user_id}  ${fmtTime(b.banned_at)}  ${b.reason || "(no reason)"}`),
          `banned addresses (${ips.length}):`,
          ...ips.map((b) => `  ${b.ip}  ${fmtTime(b.banned_at)}  ${b.reason || "(no reason)"}`),
        ];
      },
    },
    {
      name: "ip-history",
      args: [user],
      help: "addresses a user connected from, newest first",
      group,
      run: async (args) => {
        const id = args.int("user_id");
        const rows = await s.ipHistory(id);
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
      run: async (args) => {
        const id = args.int("user_id");
        const { source, visits } = await s.userRooms(id, args.optInt("limit") ?? 20);
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
      run: async (args) => {
        const id = args.int("user_id");
        return [`user ${id}: ${fmtDuration(await s.playtimeSecs(id))} in rooms`];
      },
    },
    {
      name: "playtime top",
      args: [{ name: "limit", kind: "int", optional: true, min: 1, max: 100 }],
      help: "users with the most playtime",
      group,
      run: async (args) => {
        const top = await s.topPlaytime(args.optInt("limit") ?? 10);
        if (!top.length) return ["no playtime recorded"];
        return top.map((e, i) => `#${i + 1} ${e.name}(${e.user_id})  ${fmtDuration(e.seconds)}`);
      },
    },
    {
      name: "admin-id list",
      help: "game user ids with in-game console rights",
      group,
      run: () => [`administrator ids: ${[...s.core.adminIds].sort((a, b) => a - b).join(", ") || "none"}`],
    },
    {
      name: "admin-id add",
      args: [user],
      help: "give a game user in-game console rights",
      group,
      run: (args) => {
        const id = args.int("user_id");
        if (s.core.adminIds.has(id)) throw new CommandError("CONFLICT", `user ${id} is already an administrator`);
        s.core.adminIds.add(id);
        return [`user ${id} is now an administrator`];
      },
    },
    {
      name: "admin-id remove",
      args: [user],
      help: "take in-game console rights away",
      group,
      run: (args) => {
        const id = args.int("user_id");
        if (!s.core.adminIds.delete(id)) throw new CommandError("USER_NOT_FOUND", `user ${id} is not an administrator`);
        return [`user ${id} is no longer an administrator`];
      },
    },
    {
      name: "admin-id set",
      args: [{ name: "user_ids", kind: "ints", optional: true }],
      help: "replace the administrator ids (none given = nobody)",
      group,
      run: (args) => {
        const ids = args.ints("user_ids");
        s.core.adminIds.clear();
        for (const id of ids) s.core.adminIds.add(id);
        return [`administrator ids: ${[...s.core.adminIds].join(", ") || "none"}`];
      },
    },
    {
      name: "broadcast all",
      args: [{ name: "message", kind: "text" }],
      help: "system message to every online user",
      group,
      run: (args) => [`sent to ${s.admin.broadcastAll(checkMessage(args.str("message")))} user(s)`],
    },
    {
      name: "broadcast room",
      args: [{ name: "room_id", kind: "room" }, { name: "message", kind: "text" }],
      help: "system message to a room's members",
      group,
      run: (args) => {
        const id = args.str("room_id");
        const n = s.admin.broadcastRoom(id, checkMessage(args.str("message")));
        if (n === null) throw new CommandError("ROOM_NOT_FOUND", `room not found: ${id}`);
        return [`sent to ${n} member(s) of ${id}`];
      },
    },
    {
      name: "broadcast user",
      args: [user, { name: "message", kind: "text" }],
      help: "system message to one online user",
      group,
      run: (args) => {
        const id = args.int("user_id");
        if (!s.admin.broadcastUser(id, checkMessage(args.str("message")))) {
          throw new CommandError("USER_NOT_FOUND", `user ${id} is not online`);
        }
        return [`sent to user ${id}`];
      },
    },
  ];
}
