/**
 * The `runtime` report (spec 3 §4.2; OpenUDS `runtime.*`): registry,
 * upstream, events, schema, persistence and latency sections as plain JSON.
 *
 * @module
 */

import { LatencyHistogram } from "../server/mod.ts";
import type { OpsServices } from "./services.ts";

/** The `runtime` report (spec 3 §4.2): one plain-JSON object per section. */
export interface RuntimeReport {
  readonly registry: Readonly<Record<string, unknown>>;
  readonly upstream: Readonly<Record<string, unknown>>;
  readonly events: Readonly<Record<string, unknown>>;
  readonly schema: Readonly<Record<string, unknown>>;
  readonly persistence: Readonly<Record<string, unknown>>;
  readonly latency: { readonly response: unknown; readonly handshake: unknown; readonly buckets: string[] };
}

/** Builds the report; `commands` = console commands registered. */
export function runtimeReport(s: OpsServices, commands: number): RuntimeReport {
  const core = s.core;
  const users = [...core.users.values()];
  const bus = core.ctx.bus;
  const upstream = core.ctx.upstream as { stats?: () => unknown; requests?: () => unknown };
  const store = s.deps.persistence;
  let persistence: Record<string, unknown>;
  if (store) {
    try {
      persistence = { enabled: true, ...store.status() };
    } catch (error) {
      persistence = { enabled: true, error: error instanceof Error ? error.message : String(error) };
    }
  } else persistence = { enabled: false, mode: "memory only: nothing is written to disk" };
  return {
    registry: {
      version: s.version,
      uptime_secs: s.uptimeSecs(),
      users_online: users.filter((u) => u.session).length,
      users_dangling: users.filter((u) => !u.session).length,
      rooms: core.rooms.size,
      hidden_rooms: [...core.rooms.values()].filter((r) => r.hidden).length,
      sessions: core.sessions.size,
      pending_auth: core.pendingAuth,
      room_monitor: s.deps.server.roomMonitor.session !== null,
      room_creation: core.switches.roomCreation,
      connections: core.switches.connections,
      admin_ids: core.adminIds.size,
      registered_commands: commands,
      counters: { ...core.counters.values },
      invariant_violations: core.counters.violations(),
    },
    upstream: typeof upstream.stats === "function"
      ? { available: true, stats: upstream.stats(), ...(upstream.requests ? { requests: upstream.requests() } : {}) }
      : { available: false, reason: "this upstream client keeps no statistics" },
    events: {
      sequence: bus.seq,
      published: bus.published,
      subscribers: bus.subscriberCount,
      listener_failures: bus.listenerFailures,
      // Extensions' reliable subscribers and push deliveries with their back-pressure (queued, refused) figures.
      reliable: bus.status().reliable,
      deliveries: bus.status().deliveries,
    },
    schema: store
      ? { source: "persistence", version: s.deps.schemaVersion ?? null }
      : { source: "none", version: null, note: "no database in memory-only mode" },
    persistence,
    latency: {
      response: core.counters.response.toJSON(),
      handshake: core.counters.handshake.toJSON(),
      buckets: LatencyHistogram.labels(),
    },
  };
}
