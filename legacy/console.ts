/**
 * The legacy console (spec 3 §4.3): the commands and texts of the lua-cpp
 * server's console (peers note §2.9) on the same line editor, history and
 * Tab completion as the main console, each an adapter over an operation.
 * Commands are case-insensitive; unknown ones answer `Unknown command:`.
 * What the original only printed (contest start, `unban` that hung the
 * console, `stop` that did not stop) works here. `plugins` / `plugin ...`
 * and `op` / `ops` are added.
 *
 * Commands about people are `console_people.ts`; how a command is written
 * `console_kit.ts`; the help text `console_help.ts`.
 *
 * @module
 */

import type { CommandSpec } from "../src/console/mod.ts";
import type { LegacyContext } from "./context.ts";
import { LEGACY_HELP } from "./console_help.ts";
import { attempt, command, int, onOff, op, yes } from "./console_kit.ts";
import { peopleCommands } from "./console_people.ts";
import { ORGANISER_ID } from "./ops_contest.ts";

/** The legacy commands. */
export function legacyCommands(ctx: LegacyContext): CommandSpec[] {
  const core = ctx.core;
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
    ...peopleCommands(ctx),
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
          `${p.id} ${p.version} [${p.state}]${p.builtin ? " (built-in)" : ""}${p.reason ? ` \u2014 ${p.reason}` : ""}`
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
