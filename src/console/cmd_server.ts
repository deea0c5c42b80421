/**
 * Server-wide console commands (spec 3 §4.2): help, exit/quit,
 * check-config, config reload, runtime switches, OpenUDS approval, welcome
 * configuration, player count and the runtime report -- `help` aside, each
 * an adapter over its operation (`src/ops`).
 *
 * @module
 */

import type { ConfigCheck, ReloadReport, RuntimeReport } from "../ops/mod.ts";
import { onOff } from "../ops/mod.ts";
import type { CommandSpec } from "./registry.ts";
import { fmtTime, histogramLines, kvLines } from "./text.ts";

type Status = { room_creation_enabled: boolean; connections_enabled: boolean };

/** The server-wide commands. */
export function serverCommands(): CommandSpec[] {
  const group = "Server";
  return [
    {
      name: "help",
      args: [{ name: "command", kind: "text", optional: true }],
      help: "list commands, or the commands starting with the given words",
      group,
      run: (args, call) => call.registry.help(args.optStr("command") ?? ""),
    },
    {
      name: "exit",
      aliases: ["quit"],
      help: "stop the server gracefully",
      group,
      run: async (_args, call) => {
        await call.op("server.shutdown", { reason: "exit" });
        return ["stopping the server"];
      },
    },
    {
      name: "check-config",
      help: "validate the configuration sources again and show the effective values (applies nothing)",
      group,
      run: async (_args, call) => {
        const r = await call.op("server.check_config") as ConfigCheck;
        return [
          "configuration is valid",
          ...r.effective,
          r.differs.length
            ? `differs from the running configuration: ${
              r.differs.join(", ")
            } (config reload picks up what can change at run time)`
            : "same as the running configuration",
          `active: ${r.active.sessions} sessions, ${r.active.users_online} users online, ${r.active.rooms} rooms`,
        ];
      },
    },
    {
      name: "config reload",
      help: "reload the configuration; runtime switches keep their run-time values",
      group,
      run: async (_args, call) => {
        const r = await call.op("server.config_reload") as ReloadReport;
        if (!r.changed.length) {
          return [`configuration reloaded from ${r.file ?? "defaults"}: nothing changed`, ...r.notes];
        }
        return [
          `configuration reloaded from ${r.file ?? "defaults"}: ${r.changed.length} changed`,
          ...(r.applied.length ? [`  applied: ${r.applied.join(", ")}`] : []),
          ...(r.restart_required.length ? [`  take effect after a restart: ${r.restart_required.join(", ")}`] : []),
          ...r.notes.map((n) => `  note: ${n}`),
        ];
      },
    },
    {
      name: "roomcreation",
      args: [{ name: "state", kind: "bool", optional: true }],
      help: "turn room creation by players on or off (run-time switch), or show it",
      group,
      run: async (args, call) => {
        if (args.has("state")) await call.op("server.roomcreation", { enabled: args.bool("state") });
        const status = await call.op("server.status") as Status;
        return [`room creation is ${onOff(status.room_creation_enabled)}`];
      },
    },
    {
      name: "connections",
      args: [{ name: "state", kind: "bool", optional: true }],
      help: "accept new game connections or turn them away (run-time switch), or show it",
      group,
      run: async (args, call) => {
        if (args.has("state")) await call.op("server.connections", { enabled: args.bool("state") });
        const status = await call.op("server.status") as Status;
        return [`new connections are ${status.connections_enabled ? "accepted" : "turned away"}`];
      },
    },
    {
      name: "approve openuds",
      args: [{ name: "pending_id", kind: "word", optional: true }],
      help: "let a waiting local-socket client in; without an id, list the waiting ones",
      group,
      run: async (args, call) => {
        const id = args.optStr("pending_id");
        if (id === undefined) {
          const { pending } = await call.op("openuds.pending") as {
            pending: { pending_id: string; client_name: string; expires_at: number }[];
          };
          if (!pending.length) return ["no OpenUDS client is waiting for approval"];
          return pending.map((p) => `${p.pending_id}  ${p.client_name}  expires ${fmtTime(p.expires_at)}`);
        }
        await call.op("openuds.approve", { pending_id: id });
        return [`OpenUDS client ${id} approved`];
      },
    },
    {
      name: "welcome-config",
      help: "show the welcome message configuration, its placeholders and a preview",
      group,
      run: async (_args, call) => {
        const w = await call.op("server.welcome_config") as {
          enabled: boolean;
          show_time: boolean;
          messages: Record<string, string[]>;
          placeholders: string[];
          preview: string[];
        };
        const langs = Object.entries(w.messages);
        return [
          `welcome: ${w.enabled ? "enabled" : "disabled"}, [time] ${w.show_time ? "shown" : "not shown"}`,
          ...(langs.length
            ? langs.flatMap(([lang, lines]) => [`  ${lang}:`, ...lines.map((l) => `    ${l}`)])
            : ["  messages: built-in localized default (en-US, zh-CN, zh-TW)"]),
          `placeholders: ${w.placeholders.join(" ")}`,
          "preview (en-US, user Example(0)):",
          ...w.preview.map((l) => `  ${l}`),
        ];
      },
    },
    {
      name: "player-count",
      help: "number of players online",
      group,
      run: async (_args, call) => {
        const c = await call.op("server.stats") as {
          users_online: number;
          active_sessions: number;
          active_rooms: number;
        };
        return [`players online: ${c.users_online} (${c.active_sessions} sessions, ${c.active_rooms} rooms)`];
      },
    },
    {
      name: "runtime",
      help: "registry, upstream, events, schema, persistence and latency sections",
      group,
      run: async (_args, call) => {
        const r = await call.op("runtime.status") as RuntimeReport;
        const { response, handshake } = r.latency as { response: LatencyJson; handshake: LatencyJson };
        return [
          "registry:",
          ...kvLines(r.registry),
          "upstream:",
          ...kvLines(r.upstream),
          "events:",
          ...kvLines(r.events),
          "schema:",
          ...kvLines(r.schema),
          "persistence:",
          ...kvLines(r.persistence),
          "latency:",
          `  response: ${response.count} samples, avg ${response.avg_ms.toFixed(2)} ms, max ${
            response.max_ms.toFixed(2)
          } ms`,
          `  handshake: ${handshake.count} samples, avg ${handshake.avg_ms.toFixed(2)} ms, max ${
            handshake.max_ms.toFixed(2)
          } ms`,
          "  (runtime latency shows the histograms)",
        ];
      },
    },
    {
      name: "runtime latency",
      help: "response and handshake latency histograms (9 buckets, under 1 ms to 5000 ms and over)",
      group,
      run: async (_args, call) => {
        const r = await call.op("runtime.latency") as {
          response: Parameters<typeof histogramLines>[1];
          handshake: Parameters<typeof histogramLines>[1];
        };
        return [
          ...histogramLines("response latency (command received -> reply queued)", r.response),
          ...histogramLines("handshake latency (Authenticate received -> reply flushed)", r.handshake),
        ];
      },
    },
  ];
}

type LatencyJson = { count: number; avg_ms: number; max_ms: number };
