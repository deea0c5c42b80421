/**
 * Server-wide console commands (spec 3 §4.2): help, exit/quit,
 * check-config, config reload, runtime switches, OpenUDS approval, welcome
 * configuration, player count and the runtime report.
 *
 * @module
 */

import { renderWelcome } from "../server/mod.ts";
import { CommandError, unavailable } from "./errors.ts";
import type { CommandSpec } from "./registry.ts";
import { type ConsoleServices, onOff } from "./services.ts";
import { fmtTime, histogramLines, kvLines } from "./text.ts";

/** Welcome placeholders (spec 3 §2.3). */
export const WELCOME_PLACEHOLDERS = [
  "[user_name]",
  "[user_id]",
  "[player-count]",
  "[players]",
  "[players-online]",
  "[server_name]",
  "[time]",
  "[playtime]",
  "[playtime <id>]",
  "[top_playtime]",
  "[active_rooms]",
] as const;

/** The server-wide commands. */
export function serverCommands(s: ConsoleServices): CommandSpec[] {
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
      run: (_args, call) => {
        const who = call.actor.kind === "in-game" ? `in-game console (${call.actor.userId})` : call.actor.kind;
        s.deps.shutdown(`${who}: exit`);
        return ["stopping the server"];
      },
    },
    {
      name: "check-config",
      help: "validate the configuration sources again and show the effective values (applies nothing)",
      group,
      run: () => s.checkConfig(),
    },
    {
      name: "config reload",
      help: "reload the configuration; runtime switches keep their run-time values",
      group,
      run: () => {
        const r = s.reloadConfig();
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
      run: (args) => {
        const sw = s.core.switches;
        if (args.has("state")) sw.roomCreation = args.bool("state");
        return [`room creation is ${onOff(sw.roomCreation)}`];
      },
    },
    {
      name: "connections",
      args: [{ name: "state", kind: "bool", optional: true }],
      help: "accept new game connections or turn them away (run-time switch), or show it",
      group,
      run: (args) => {
        const sw = s.core.switches;
        if (args.has("state")) sw.connections = args.bool("state");
        return [`new connections are ${sw.connections ? "accepted" : "turned away"}`];
      },
    },
    {
      name: "approve openuds",
      args: [{ name: "pending_id", kind: "word", optional: true }],
      help: "let a waiting local-socket client in; without an id, list the waiting ones",
      group,
      run: (args) => {
        const approvals = s.deps.approvals;
        // Token mode admits clients by token: there is never anything to approve (spec 3 §4.5).
        if (!approvals) {
          unavailable("OpenUDS approval mode is not running (the local socket is off or uses auth_token)");
        }
        const id = args.optStr("pending_id");
        if (id === undefined) {
          const pending = approvals.pending();
          if (!pending.length) return ["no OpenUDS client is waiting for approval"];
          return pending.map((p) => `${p.pending_id}  ${p.client_name}  expires ${fmtTime(p.expires_at)}`);
        }
        const outcome = approvals.approve(id);
        if (outcome === "approved") return [`OpenUDS client ${id} approved`];
        throw new CommandError(
          "INVALID_ARGUMENT",
          outcome === "expired" ? `approval request ${id} expired` : `no approval request ${id}`,
        );
      },
    },
    {
      name: "welcome-config",
      help: "show the welcome message configuration, its placeholders and a preview",
      group,
      run: async () => {
        const core = s.core;
        const { welcome, server_name: serverName } = core.ctx.config;
        const langs = Object.entries(welcome.messages);
        const preview = await renderWelcome(welcome.messages, {
          userId: 0,
          userName: "Example",
          language: "en-US",
          locale: "en-US",
          serverName,
          playersOnline: s.counts().users,
          now: core.ctx.clock.now(),
          showTime: welcome.show_time,
          rooms: core.rooms.values(),
          nameOf: (id) => core.users.get(id)?.name,
        }, core.playtime);
        return [
          `welcome: ${welcome.enabled ? "enabled" : "disabled"}, [time] ${welcome.show_time ? "shown" : "not shown"}`,
          ...(langs.length
            ? langs.flatMap(([lang, lines]) => [`  ${lang}:`, ...lines.map((l) => `    ${l}`)])
            : ["  messages: built-in localized default (en-US, zh-CN, zh-TW)"]),
          `placeholders: ${WELCOME_PLACEHOLDERS.join(" ")}`,
          "preview (en-US, user Example(0)):",
          ...preview.map((l) => `  ${l}`),
        ];
      },
    },
    {
      name: "player-count",
      help: "number of players online",
      group,
      run: () => {
        const c = s.counts();
        return [`players online: ${c.users} (${c.sessions} sessions, ${c.rooms} rooms)`];
      },
    },
    {
      name: "runtime",
      help: "registry, upstream, events, schema, persistence and latency sections",
      group,
      run: (_args, call) => {
        const r = s.runtime(call.registry.commands().length);
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
      run: () => {
        const c = s.core.counters;
        return [
          ...histogramLines("response latency (command received -> reply queued)", c.response.toJSON()),
          ...histogramLines("handshake latency (Authenticate received -> reply flushed)", c.handshake.toJSON()),
        ];
      },
    },
  ];
}

type LatencyJson = { count: number; avg_ms: number; max_ms: number };
