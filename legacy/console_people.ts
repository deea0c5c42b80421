/**
 * The legacy console's commands about people (spec 3 §4.3; texts of the
 * lua-cpp server, peers note §2.9): users, kicks, bans, messages and
 * address bans.
 *
 * @module
 */

import type { CommandSpec } from "../src/console/mod.ts";
import type { LegacyContext } from "./context.ts";
import { attempt, command, int, MAX_MESSAGE, op, yes } from "./console_kit.ts";

/** The commands about users, bans and messages. */
export function peopleCommands(ctx: LegacyContext): CommandSpec[] {
  const core = ctx.core;
  return [
    command("users", [], "list online users", () => {
      const users = core.onlineUsers().sort((a, b) => a.id - b.id);
      if (!users.length) return ["No users online"];
      return users.flatMap((u) => [
        `User ID: ${u.id}`,
        `  Name: ${u.name}`,
        `  Status: ${u.roomId ? "In Room" : "Lobby"}`,
        `  Monitor: ${yes(u.monitor)}`,
        `  Room: ${u.roomId ?? "-"}`,
        `  Language: ${u.language}`,
      ]);
    }),
    command("user", [], "show one user", (w) => {
      const id = int(w[0]);
      if (id === null) return ["Usage: user <userId>"];
      const u = core.users.get(id);
      if (!u) return [`Error: User ID ${id} not found`];
      const room = u.roomId ? core.rooms.get(u.roomId) : undefined;
      return [
        `=== User ${u.id} ===`,
        `Name: ${u.name}`,
        `Status: ${u.roomId ? "In Room" : "Lobby"}`,
        `Monitor: ${yes(u.monitor)}`,
        `Room: ${u.roomId ?? "-"}`,
        `Is Host: ${yes(room?.hostId === u.id)}`,
        `Language: ${u.language}`,
        `Session ID: ${u.session?.id ?? "-"}`,
        `Alive: ${yes(u.session !== null)}`,
        `Address: ${u.session?.ip ?? "-"}`,
      ];
    }),
    command("kick", [], "disconnect a user", (w, call) =>
      attempt(async () => {
        const id = int(w[0]);
        if (id === null) return ["Usage: kick <userId>"];
        if (!core.users.get(id)?.session) return [`Error: User ID ${id} not found or not connected`];
        await op(call, "player.kick", { user_id: id });
        return [`Kicked user ID: ${id}`];
      })),
    command("ban", [], "ban a user", (w, call) =>
      attempt(async () => {
        const id = int(w[0]);
        if (id === null) return ["Usage: ban <userId> [reason]"];
        const reason = w.slice(1).join(" ").slice(0, 200);
        await op(call, "player.ban", { user_id: id, ...(reason ? { reason } : {}) });
        return [`Banned user ID: ${id}`];
      })),
    command("unban", [], "lift a ban", (w, call) =>
      attempt(async () => {
        const id = int(w[0]);
        if (id === null) return ["Usage: unban <userId>"];
        if (!core.bans.userBan(id)) return [`Error: User ID ${id} is not banned`];
        await op(call, "player.unban", { user_id: id });
        return [`Unbanned user ID: ${id}`];
      })),
    command("banlist", [], "list banned users", () => {
      const bans = core.bans.userBans().sort((a, b) => a.user_id - b.user_id);
      if (!bans.length) return ["No banned users"];
      return [
        `=== Ban List (${bans.length} users) ===`,
        ...bans.map((b) => `User ID: ${b.user_id}${b.reason ? ` (${b.reason})` : ""}`),
      ];
    }),
    ...["banroom", "unbanroom"].map((name) =>
      command(
        name,
        [],
        name === "banroom" ? "ban a user from a room" : "lift a room ban",
        (w, call) =>
          attempt(async () => {
            const id = int(w[0]);
            const room = w[1];
            if (id === null || !room) return [`Usage: ${name} <userId> <roomId>`];
            const banned = name === "banroom";
            await op(call, "legacy.room_ban", { user_id: id, room_id: room, banned });
            return [`User ${id} ${banned ? "banned from" : "unbanned from"} room '${room}'`];
          }),
      )
    ),
    command("broadcast", ["say"], "message everyone", (w, call) =>
      attempt(async () => {
        const message = w.join(" ").trim();
        if (!message) return ["Error: Broadcast message cannot be empty"];
        if ([...message].length > MAX_MESSAGE) return [`Error: Message too long (max ${MAX_MESSAGE} characters)`];
        const r = await op(call, "legacy.say", { message }) as { rooms: number; users: number };
        return [`Broadcast sent to ${r.rooms} rooms: "${message}"`];
      })),
    command("roomsay", [], "message one room", (w, call) =>
      attempt(async () => {
        const [room, ...rest] = w;
        const message = rest.join(" ").trim();
        if (!room || !message) return ["Usage: roomsay <roomId> <msg>"];
        if ([...message].length > MAX_MESSAGE) return [`Error: Message too long (max ${MAX_MESSAGE} characters)`];
        if (!core.rooms.has(room)) return [`Error: Room '${room}' not found`];
        await op(call, "legacy.say", { room_id: room, message });
        return [`Message sent to room '${room}': "${message}"`];
      })),
    command("reload", [], "reload plugins", (_w, call) =>
      attempt(async () => {
        const r = await op(call, "plugin.reload", {}) as { plugins: { state: string }[] };
        const enabled = r.plugins.filter((p) => p.state === "enabled").length;
        return ["Reloading plugins...", "Plugins reloaded successfully", `${enabled} plugin(s) enabled`];
      })),
    command("ipblacklist", [], "address bans: list, remove <ip>, clear [game|all]", (w, call) =>
      attempt(async () => {
        const sub = w[0]?.toLowerCase();
        if (sub === "list") {
          const r = await op(call, "legacy.ip_blacklist", {}) as {
            game: string[];
            admin_api: { ip: string; expires_in: number }[];
          };
          if (!r.game.length && !r.admin_api.length) return ["No blacklisted IPs"];
          return [
            "=== IP Blacklist ===",
            ...r.game.map((ip) => `${ip} (game)`),
            ...r.admin_api.map((l) => `${l.ip} (admin API, ${Math.ceil(l.expires_in / 60_000)} min left)`),
          ];
        }
        if (sub === "remove" && w[1]) {
          const r = await op(call, "legacy.ip_blacklist_remove", { ip: w[1] }) as { removed: boolean };
          return [r.removed ? `Removed ${w[1]} from the blacklist` : `Error: ${w[1]} is not blacklisted`];
        }
        if (sub === "clear") {
          const list = w[1] === "game" ? "game" : w[1] === "all" ? "all" : "admin_api";
          const r = await op(call, "legacy.ip_blacklist_clear", { list }) as { game: number; admin_api: number };
          return [`IP blacklist cleared (${r.admin_api} admin API lockouts, ${r.game} game bans)`];
        }
        return ["Usage: ipblacklist <list|remove <ip>|clear [game|all]>"];
      })),
  ];
}
