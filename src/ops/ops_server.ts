/**
 * Server-wide operations (spec 3 §4.5 `server.*`, `cli.execute`, `logs.*`,
 * `runtime.*`; §4.2 `check-config`, `config reload`, `roomcreation`,
 * `welcome-config`, `approve openuds`, `runtime latency`): statistics and
 * status, configuration, shutdown, run-time switches, console lines, logs
 * and operator input, the runtime report, and the operations registry and
 * audit log themselves.
 *
 * @module
 */

import * as z from "../util/zod.ts";
import { LatencyHistogram, renderWelcome } from "../server/mod.ts";
import { describeActor } from "./actor.ts";
import { type ServerOp, serverOp } from "./server_op.ts";
import { OpsError, unavailable } from "./errors.ts";
import { p } from "./params.ts";
import type { OpsServices } from "./services.ts";

/** OpenUDS API version (spec 3 §9). */
export const OPENUDS_API_VERSION = "0.1";

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

function port(s: OpsServices): number {
  return s.deps.server.address?.port ?? s.core.ctx.config.port;
}

/** The server-wide operations. */
export function serverOps(): ServerOp[] {
  return [
    serverOp({
      name: "server.stats",
      summary: "online players, rooms, sessions, port, uptime",
      permission: "state.read",
      run: (_a, { context: s }) => {
        const c = s.counts();
        const sections = s.statusSections();
        const openuds = sections.openuds;
        const plugins = sections.plugins as { enabled?: number } | undefined;
        return {
          users_online: c.users,
          active_rooms: c.rooms,
          active_sessions: c.sessions,
          loaded_plugins: plugins ? plugins.enabled ?? 0 : null,
          port: port(s),
          uptime_secs: s.uptimeSecs(),
          server_name: s.core.ctx.config.server_name,
          ...(openuds ? { openuds_connections: openuds.connections } : {}),
        };
      },
    }),
    serverOp({
      name: "server.status",
      summary: "name, version, running state and run-time switches",
      permission: "state.read",
      run: (_a, { context: s }) => ({
        server: "Chorus",
        version: s.version,
        api_version: OPENUDS_API_VERSION,
        running: !s.core.shuttingDown,
        shutting_down: s.core.shuttingDown,
        port: port(s),
        server_name: s.core.ctx.config.server_name,
        room_creation_enabled: s.core.switches.roomCreation,
        connections_enabled: s.core.switches.connections,
      }),
    }),
    serverOp({
      name: "server.check_config",
      summary: "validate the configuration sources again and show the effective values (applies nothing)",
      permission: "operator",
      run: (_a, { context: s }) => s.config.check(),
    }),
    serverOp({
      name: "server.config_reload",
      summary: "reload the configuration; runtime switches keep their run-time values",
      permission: "operator",
      mutates: true,
      run: (_a, { context: s }) => s.config.reload(),
    }),
    serverOp({
      name: "server.shutdown",
      summary: "stop the server gracefully (after this answer is delivered)",
      permission: "operator",
      mutates: true,
      params: { reason: z.optional(z.string().check(z.maxLength(200))) },
      run: (a, call) => {
        const shutdown = call.context.deps.shutdown ?? unavailable("no shutdown handler in this process");
        const reason = `${describeActor(call.actor)}: ${a.reason ?? call.calledAs}`;
        call.defer(() => shutdown(reason));
        return { ok: true, message: "shutdown requested" };
      },
    }),
    serverOp({
      name: "server.roomcreation",
      summary: "turn room creation by players on or off (run-time switch)",
      permission: "operator",
      mutates: true,
      params: { enabled: p.bool() },
      run: (a, { context: s }) => {
        s.core.switches.roomCreation = a.enabled;
        return { room_creation_enabled: a.enabled };
      },
    }),
    serverOp({
      name: "server.connections",
      summary: "accept new game connections or turn them away (run-time switch)",
      permission: "operator",
      mutates: true,
      params: { enabled: p.bool() },
      run: (a, { context: s }) => {
        s.core.switches.connections = a.enabled;
        return { connections_enabled: a.enabled };
      },
    }),
    serverOp({
      name: "server.welcome_config",
      summary: "the welcome message configuration, its placeholders and an en-US preview",
      permission: "operator",
      run: async (_a, { context: s }) => {
        const core = s.core;
        const { welcome, server_name: serverName } = core.ctx.config;
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
        return {
          enabled: welcome.enabled,
          show_time: welcome.show_time,
          messages: welcome.messages,
          placeholders: WELCOME_PLACEHOLDERS,
          preview,
        };
      },
    }),
    serverOp({
      name: "cli.execute",
      summary: "run a console command line; returns its output lines",
      permission: "operator",
      mutates: true,
      params: { command: p.text(4096) },
      run: async (a, { context: s, actor }) => {
        const cli = s.cli ?? unavailable("no console command registry in this process");
        const r = await cli.run(a.command, actor);
        if (!r.ok) throw new OpsError(r.code, r.message, { details: { output: r.lines } });
        return { output: r.lines };
      },
    }),
    serverOp({
      name: "logs.history",
      summary: "recent log records",
      permission: "operator",
      params: { limit: p.limit(100, 2000) },
      run: (a, { context: s }) => {
        const logs = s.deps.logs ?? unavailable("no log history in this process");
        const entries = logs.history(a.limit).map((r) => ({
          seq: r.seq,
          time: r.time,
          level: r.level,
          msg: r.msg,
          fields: r.fields,
          line: r.line,
        }));
        return { entries, count: entries.length };
      },
    }),
    serverOp({
      name: "logs.input",
      summary: "recent operator input from every front end",
      permission: "operator",
      params: { limit: p.limit(100, 1000) },
      run: (a, { context: s }) => {
        const inputs = s.inputs.recent(a.limit);
        return { inputs, count: inputs.length };
      },
    }),
    serverOp({
      name: "runtime.status",
      summary: "registry, upstream, events, schema, persistence and latency sections (and attached parts')",
      permission: "state.read",
      run: (_a, { context: s }) => ({ ...s.runtime(), ...s.statusSections() }),
    }),
    serverOp({
      name: "runtime.actors",
      summary: "sessions, users, rooms, pending logins, subscribers",
      permission: "state.read",
      run: (_a, { context: s }) => {
        const core = s.core;
        const users = [...core.users.values()];
        return {
          sessions: core.sessions.size,
          users_online: users.filter((u) => u.session).length,
          users_dangling: users.filter((u) => !u.session).length,
          rooms: core.rooms.size,
          pending_auth: core.pendingAuth,
          room_monitor: s.deps.server.roomMonitor.session !== null,
          event_subscribers: core.ctx.bus.subscriberCount,
          ...s.statusSections(),
        };
      },
    }),
    serverOp({
      name: "runtime.persistence",
      summary: "the durable store's status",
      permission: "state.read",
      run: (_a, { context: s }) => s.runtime().persistence,
    }),
    serverOp({
      name: "runtime.phira",
      summary: "upstream (Phira API) client statistics",
      permission: "state.read",
      run: (_a, { context: s }) => s.runtime().upstream,
    }),
    serverOp({
      name: "runtime.latency",
      summary: "response and handshake latency histograms (9 buckets, under 1 ms to 5000 ms and over)",
      permission: "state.read",
      run: (_a, { context: s }) => ({
        response: s.core.counters.response.toJSON(),
        handshake: s.core.counters.handshake.toJSON(),
        buckets: LatencyHistogram.labels(),
      }),
    }),
    serverOp({
      name: "openuds.pending",
      summary: "local-socket clients waiting for approval",
      permission: "operator",
      run: (_a, { context: s }) => {
        const approvals = s.deps.approvals ?? unavailable(NO_APPROVALS);
        return { pending: approvals.pending() };
      },
    }),
    serverOp({
      name: "openuds.approve",
      summary: "let a waiting local-socket client in",
      permission: "operator",
      mutates: true,
      params: { pending_id: p.text(128) },
      run: (a, { context: s }) => {
        const approvals = s.deps.approvals ?? unavailable(NO_APPROVALS);
        const outcome = approvals.approve(a.pending_id);
        if (outcome !== "approved") {
          throw new OpsError(
            "INVALID_ARGUMENT",
            outcome === "expired" ? `approval request ${a.pending_id} expired` : `no approval request ${a.pending_id}`,
          );
        }
        return { pending_id: a.pending_id, approved: true };
      },
    }),
  ];
}

/** Token mode admits clients by token: there is never anything to approve (spec 3 §4.5). */
const NO_APPROVALS = "OpenUDS approval mode is not running (the local socket is off or uses auth_token)";
