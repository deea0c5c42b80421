/**
 * The legacy console (spec 3 §4.3): the commands and texts of the lua-cpp
 * server's console (peers note §2.9) on the same line editor, history and
 * Tab completion as the main console, each an adapter over an operation.
 * Commands are case-insensitive; unknown ones answer `Unknown command:`.
 * What the original only printed (contest start, `unban` that hung the
 * console, `stop` that did not stop) works here. `plugins` / `plugin …`
 * and `op` / `ops` are added.
 *
 * Longer than most modules: the table of every legacy command with its texts.
 *
 * @module
 */

import { OpsError } from "../src/ops/mod.ts";
import type { Args, CommandCall, CommandSpec } from "../src/console/mod.ts";
import type { LegacyContext } from "./context.ts";
import { ORGANISER_ID } from "./ops_contest.ts";

const yes = (b: boolean) => (b ? "Yes" : "No");
const MAX_MESSAGE = 200;

/** The words after the command (optional rest argument). */
const REST = [{ name: "args", kind: "words", optional: true }] as const;

/** The help text. */
export const LEGACY_HELP: readonly string[] = [
  "=== Phira MP Server CLI Help ===",
  "General Commands:",
  "  help, ?                          Show this help",
  "  status, info                     Show server status",
  "  stop, shutdown, exit, quit       Stop the server",
  "Room Management:",
  "  list, rooms                      List active rooms",
  "  disband <roomId>                 Disband a room",
  "  maxusers <roomId> <count>        Set a room's max users (1-64)",
  "  roomcreation <on|off|status>     Allow players to create rooms",
  "  banroom <userId> <roomId>        Ban a user from a room",
  "  unbanroom <userId> <roomId>      Lift a room ban",
  "User Management:",
  "  users                            List online users",
  "  user <userId>                    Show one user",
  "  kick <userId>                    Disconnect a user",
  "  ban <userId> [reason]            Ban a user",
  "  unban <userId>                   Lift a ban",
  "  banlist                          List banned users",
  "Communication:",
  "  broadcast <msg>, say <msg>       Message everyone",
  "  roomsay <roomId> <msg>           Message one room",
  "Contest Management:",
  "  contest <roomId> enable [ids]    Make a contest room (whitelist, manual start, disband after)",
  "  contest <roomId> disable         Make it a normal room again",
  "  contest <roomId> whitelist <ids> Set the whitelist",
  "  contest <roomId> start [force]   Start the round (force: not ready = aborted)",
  "Server Management:",
  "  reload                           Reload plugins",
  "  replay <on|off|status>           Record replays of new rooms",
  "  ipblacklist list                 List banned addresses",
  "  ipblacklist remove <ip>          Lift an address ban",
  "  ipblacklist clear [game|all]     Clear admin-API lockouts (or the game port's bans)",
  "  plugins                          List plugins",
  "  plugin <enable|disable|info> <id>",
  "  op <operation> [args], ops       Any server operation",
];

/** Runs `fn`, turning an operation's refusal into `Error: …`. */
async function attempt(fn: () => Promise<string[]>): Promise<string[]> {
  try {
    return await fn();
  } catch (error) {
    if (error instanceof OpsError) return [`Error: ${error.message}`];
    throw error;
  }
}

function int(word: string | undefined): number | null {
  return word !== undefined && /^-?\d{1,10}$/.test(word) ? Number(word) : null;
}

/** The legacy commands. */
export function legacyCommands(ctx: LegacyContext): CommandSpec[] {
  const core = ctx.core;
  const op = (call: CommandCall, name: string, args: unknown) => call.op(name, args);
  const words = (args: Args) => args.words("args");
  const command = (
    name: string,
    aliases: string[],
    help: string,
    run: (w: string[], call: CommandCall) => string[] | Promise<string[]>,
  ): CommandSpec => ({ name, aliases, args: REST, help, group: "Legacy", run: (a, call) => run(words(a), call) });
  const onOff = (name: string, what: string, opName: string, texts: [string, string, string, string]) =>
    command(name, [], `${what} <on|off|status>`, (w, call) =>
      attempt(async () => {
        const arg = w[0]?.toLowerCase();
        if (arg === "on" || arg === "off") {
          await op(call, opName, { enabled: arg === "on" });
          return [arg === "on" ? texts[0] : texts[1]];
        }
        if (arg === "status") {
          const r = await op(call, opName, {}) as { enabled: boolean };
          return [r.enabled ? texts[2] : texts[3]];
        }
        return [`Usage: ${name} <on|off|status>`];
      }));
  return [
    command("help", ["?"], "show the legacy commands", () => [...LEGACY_HELP]),
    command("status", ["info"], "server status", () => {
      const counts = ctx.ops.context.counts();
      return [
        "=== Server Status ===",
        `Connected Users: ${counts.users}`,
        `Total Sessions: ${counts.sessions}`,
        `Active Rooms: ${counts.rooms}`,
        `Replay Enabled: ${yes(ctx.switches.replay)}`,
        `Room Creation: ${core.switches.roomCreation ? "Enabled" : "Disabled"}`,
        "===================",
      ];
    }),
    command("stop", ["shutdown", "exit", "quit"], "stop the server", (_w, call) =>
      attempt(async () => {
        await op(call, "server.shutdown", { reason: "console stop" });
        return ["Shutting down server..."];
      })),
    command("list", ["rooms"], "list rooms", () => {
      const rooms = [...core.rooms.values()].sort((a, b) => (a.id < b.id ? -1 : 1));
      if (!rooms.length) return ["No active rooms"];
      const out: string[] = [];
      for (const r of rooms) {
        const host = r.players.find((p) => p.id === r.hostId);
        const hostText = host
          ? `${host.name} (${host.id})${core.users.get(host.id)?.session ? "" : " (disconnected)"}`
          : r.hostId === -1
          ? "(system)"
          : "(none)";
        const phase = r.phase;
        const status = phase.kind === "select"
          ? "Selecting Chart"
          : phase.kind === "wait"
          ? `Waiting for Ready (${phase.ready.filter((id) => id !== ORGANISER_ID).length} ready)`
          : `Playing (${phase.results.size} results)`;
        out.push(`Room ID: ${r.id}`, `  Host: ${hostText}`, `  Players: ${r.players.length}/${r.maxPlayers}`);
        out.push(`  Monitors: ${r.monitors.length}`, `  Status: ${status}`);
        if (r.chart) out.push(`  Chart: ${r.chart.name} (ID: ${r.chart.id})`);
        out.push(`  Locked: ${yes(r.locked)}`, `  Cycle Mode: ${yes(r.cycle)}`, `  Live: ${yes(r.live)}`);
      }
      return out;
    }),
    command("disband", [], "disband a room", (w, call) =>
      attempt(async () => {
        const id = w[0];
        if (!id) return ["Usage: disband <roomId>"];
        const room = core.rooms.get(id);
        if (!room) return [`Error: Room '${id}' not found`];
        const notified = [...room.players, ...room.monitors].filter((m) => core.users.get(m.id)?.session).length;
        await op(call, "room.close", { room_id: id });
        return [`Room '${id}' disbanded (notified ${notified} users)`];
      })),
    command("maxusers", [], "set a room's max users", (w, call) =>
      attempt(async () => {
        const [id, countWord] = w;
        if (!id || countWord === undefined) return ["Usage: maxusers <roomId> <count>"];
        const n = int(countWord);
        if (n === null || n < 1 || n > 64) return ["Error: Max users must be between 1 and 64"];
        if (!core.rooms.has(id)) return [`Error: Room '${id}' not found`];
        await op(call, "room.set_max_users", { room_id: id, max_users: n });
        return [`Room '${id}' max users set to ${n}`];
      })),
    onOff("roomcreation", "room creation", "legacy.room_creation", [
      "Room creation enabled",
      "Room creation disabled",
      "Room creation is enabled",
      "Room creation is disabled",
    ]),
    onOff("replay", "replay recording", "legacy.replay", [
      "Replay recording enabled",
      "Replay recording disabled",
      "Replay recording is enabled",
      "Replay recording is disabled",
    ]),
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
    command("contest", [], "contest rooms: enable, disable, whitelist, start", (w, call) =>
      attempt(async () => {
        const [room, sub, ...rest] = w;
        const ids = rest.flatMap((x) => x.split(",")).map((x) => int(x.trim())).filter((x): x is number => x !== null);
        if (!room || !sub) return ["Usage: contest <roomId> <enable [ids]|disable|whitelist <ids>|start [force]>"];
        switch (sub.toLowerCase()) {
          case "enable": {
            const r = await op(call, "legacy.contest_config", { room_id: room, enabled: true, whitelist: ids }) as {
              whitelist: number[];
            };
            return [`Contest enabled for room '${room}' (whitelist: ${r.whitelist.join(", ") || "anyone"})`];
          }
          case "disable":
            await op(call, "legacy.contest_config", { room_id: room, enabled: false });
            return [`Contest disabled for room '${room}'`];
          case "whitelist": {
            const r = await op(call, "legacy.contest_whitelist", { room_id: room, user_ids: ids }) as {
              whitelist: number[];
            };
            return [`Contest whitelist of room '${room}': ${r.whitelist.join(", ") || "anyone"}`];
          }
          case "start":
            await op(call, "legacy.contest_start", { room_id: room, force: rest[0]?.toLowerCase() === "force" });
            return [`Started contest in room '${room}'`];
          default:
            return ["Usage: contest <roomId> <enable [ids]|disable|whitelist <ids>|start [force]>"];
        }
      })),
    command("plugins", [], "list plugins", (_w, call) =>
      attempt(async () => {
        const r = await op(call, "plugin.list", {}) as {
          plugins: { id: string; version: string; state: string; reason: string | null; builtin: boolean }[];
        };
        if (!r.plugins.length) return ["No plugins"];
        return r.plugins.map((p) =>
          `${p.id} ${p.version} [${p.state}]${p.builtin ? " (built-in)" : ""}${p.reason ? ` — ${p.reason}` : ""}`
        );
      })),
    command("plugin", [], "plugin <list|enable|disable|info> <id>", (w, call) =>
      attempt(async () => {
        const [sub, id] = w;
        if (sub === "list") return ["Use: plugins"];
        if (!id || !["enable", "disable", "info"].includes(sub ?? "")) {
          return ["Usage: plugin <enable|disable|info> <id>"];
        }
        if (sub === "info") return JSON.stringify(await op(call, "plugin.info", { name: id }), null, 2).split("\n");
        if (sub === "enable") {
          await op(call, "plugin.enable", { name: id });
          return [`Plugin ${id} enabled`];
        }
        const r = await op(call, "plugin.disable", { name: id }) as { disabled: string[] };
        return [`Plugin(s) disabled: ${r.disabled.join(", ")}`];
      })),
  ];
}
