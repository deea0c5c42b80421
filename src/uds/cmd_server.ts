/**
 * OpenUDS server-wide commands (spec 3 §4.5): statistics and status, config
 * reload, shutdown, run-time switches, `cli.execute`, logs and operator
 * input, journal batches, runtime sections, and the plugin commands, which
 * answer `UNAVAILABLE` until a plugin host exists.
 *
 * @module
 */

import { z } from "zod";
import { NO_PERSISTENCE } from "../console/mod.ts";
import { command, p, type UdsCall, type UdsCommand } from "./command.ts";
import { UdsError } from "./errors.ts";

/** OpenUDS API version (spec 3 §9). */
export const OPENUDS_API_VERSION = "0.1";

const NO_PLUGINS = "the plugin host is not part of this build yet";

function openudsSection(call: UdsCall): Record<string, unknown> {
  return {
    connections: call.connections(),
    max_connections: call.config.max_connections,
    event_buffer_size: call.config.event_buffer_size,
    heartbeat_interval_secs: call.config.heartbeat_interval_secs,
  };
}

/** The server-wide commands. */
export function serverCommands(): UdsCommand[] {
  const telemetry = (kind: "touches" | "judges") =>
    command(`persist.${kind}`, {
      since: z.number().int().min(0).default(0),
      limit: p.limit(100, 500),
      round_uuid: z.string().optional(),
      player_id: p.userId().optional(),
    }, async (a, { services: s }) => {
      const store = s.deps.persistence;
      if (!store) throw new UdsError("UNAVAILABLE", NO_PERSISTENCE);
      const rows = await store.queries.telemetry(kind, {
        since: a.since,
        limit: a.limit,
        ...(a.round_uuid === undefined ? {} : { round: a.round_uuid }),
        ...(a.player_id === undefined ? {} : { player: a.player_id }),
      });
      // Ascending by sequence (spec 3 §4.5); `next_since` continues after the last one.
      const items = rows.map((r) => ({
        sequence: r.seq,
        room_id: r.room_id,
        round_uuid: r.round_uuid,
        player_id: r.player_id,
        count: r.item_count,
        items: r.items,
        first_at: r.first_at,
        created_at: r.created_at,
      }));
      return { items, count: items.length, next_since: items.at(-1)?.sequence ?? a.since };
    });
  const plugin = (name: string, shape: z.ZodRawShape) =>
    command(name, shape, () => {
      throw new UdsError("UNAVAILABLE", NO_PLUGINS);
    });
  return [
    command("server.stats", {}, (_a, call) => {
      const s = call.services;
      const c = s.counts();
      return {
        users_online: c.users,
        active_rooms: c.rooms,
        active_sessions: c.sessions,
        loaded_plugins: null,
        port: s.deps.server.address?.port ?? s.core.ctx.config.port,
        uptime_secs: s.uptimeSecs(),
        server_name: s.core.ctx.config.server_name,
        openuds_connections: call.connections(),
      };
    }),
    command("server.status", {}, (_a, { services: s }) => ({
      server: "Chorus",
      version: s.version,
      api_version: OPENUDS_API_VERSION,
      running: !s.core.shuttingDown,
      shutting_down: s.core.shuttingDown,
      port: s.deps.server.address?.port ?? s.core.ctx.config.port,
      server_name: s.core.ctx.config.server_name,
      room_creation_enabled: s.core.switches.roomCreation,
      connections_enabled: s.core.switches.connections,
    })),
    command("server.config_reload", {}, (_a, { services: s }) => s.reloadConfig()),
    command("server.shutdown", {}, (_a, call) => {
      call.after(() => call.services.deps.shutdown(`openuds ${call.sessionId}: server.shutdown`));
      return { ok: true, message: "shutdown requested" };
    }),
    command("server.roomcreation", { enabled: p.bool() }, (a, { services: s }) => {
      s.core.switches.roomCreation = a.enabled;
      return { room_creation_enabled: a.enabled };
    }),
    command("server.connections", { enabled: p.bool() }, (a, { services: s }) => {
      s.core.switches.connections = a.enabled;
      return { connections_enabled: a.enabled };
    }),
    command("cli.execute", { command: p.text(4096) }, async (a, call) => {
      const r = await call.registry.run(a.command, { kind: "openuds", session: call.sessionId });
      if (!r.ok) throw new UdsError(r.code, r.message, { output: r.lines });
      return { output: r.lines };
    }),
    command("logs.history", { limit: p.limit(100, 2000) }, (a, { logs }) => {
      if (!logs) throw new UdsError("UNAVAILABLE", "no log history in this process");
      const entries = logs.history(a.limit).map((r) => ({
        seq: r.seq,
        time: r.time,
        level: r.level,
        msg: r.msg,
        fields: r.fields,
        line: r.line,
      }));
      return { entries, count: entries.length };
    }),
    command("logs.input", { limit: p.limit(100, 1000) }, (a, { registry }) => {
      const inputs = registry.inputs.recent(a.limit);
      return { inputs, count: inputs.length };
    }),
    telemetry("touches"),
    telemetry("judges"),
    command("runtime.status", {}, (_a, call) => ({
      ...call.services.runtime(call.registry.commands().length),
      openuds: openudsSection(call),
    })),
    command("runtime.actors", {}, (_a, call) => {
      const core = call.services.core;
      const users = [...core.users.values()];
      return {
        sessions: core.sessions.size,
        users_online: users.filter((u) => u.session).length,
        users_dangling: users.filter((u) => !u.session).length,
        rooms: core.rooms.size,
        pending_auth: core.pendingAuth,
        room_monitor: call.services.deps.server.roomMonitor.session !== null,
        event_subscribers: core.ctx.bus.subscriberCount,
        openuds: openudsSection(call),
      };
    }),
    command("runtime.persistence", {}, (_a, call) => call.services.runtime(0).persistence),
    command("runtime.phira", {}, (_a, call) => call.services.runtime(0).upstream),
    plugin("plugin.list", {}),
    plugin("plugin.reload", {}),
    plugin("plugin.enable", { name: p.text(128) }),
    plugin("plugin.disable", { name: p.text(128) }),
    plugin("plugin.info", { name: p.text(128) }),
    plugin("plugin.remove", { name: p.text(128) }),
    plugin("plugin.call", { name: p.text(128), method: p.text(128), args: z.array(z.unknown()).optional() }),
  ];
}
