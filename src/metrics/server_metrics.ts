/**
 * The game server's Prometheus metrics (`GET /metrics`): sessions, users,
 * logins by outcome, rooms by state, commands by kind, the response and
 * handshake latency histograms (spec 3 §8), queue depths, journal and store
 * health, plugin states, self-update state, the production counters that
 * must stay 0 (spec 3 §7 rule 4) and the process's own metrics
 * (prom-client's defaults: CPU, memory, file descriptors, event-loop lag).
 *
 * Everything is read from what the server already counts, when Prometheus
 * scrapes: serving metrics costs nothing per message. A scrape walks the
 * sessions and rooms once (queue depths, rooms by state).
 *
 * @module
 */

import { collectDefaultMetrics, Registry } from "prom-client";
import type { EventBus } from "../events/mod.ts";
import type { PersistenceStatus } from "../persistence/mod.ts";
import { INFO_COUNTERS, INVARIANT_COUNTERS, LATENCY_BOUNDS_MS, type ServerCore } from "../server/mod.ts";
import { histogramSamples, registerSnapshot, type Sample } from "./snapshot.ts";

/** Plugin states (spec 3 §3.3). */
export const PLUGIN_STATES = ["loaded", "enabled", "disabled", "error"] as const;

/** Room states (spec 3 §3.1), by the room machine's phase. */
const ROOM_STATES = { select: "select_chart", wait: "waiting_for_ready", play: "playing" } as const;

/** What the metrics read. Everything but the core is optional and reads as zero when absent. */
export interface MetricsSources {
  readonly core: ServerCore;
  readonly version: string;
  readonly persistence?: { status(): PersistenceStatus };
  /** Plugins and their states (the plugin host); absent = none. */
  readonly plugins?: () => readonly { readonly state: string }[];
  /** Commands handled, by kind (the command counter on the pipeline); absent = not counted. */
  readonly commands?: () => Readonly<Record<string, number>>;
  /** Self-update: a newer release known, an update pending. */
  readonly update?: () => { readonly available: boolean; readonly pending: boolean };
}

/** Options of {@link ServerMetrics}. */
export interface ServerMetricsOptions {
  /** Also export the process's metrics (default true). */
  readonly processMetrics?: boolean;
}

/** The metrics registry of one server. */
export class ServerMetrics {
  readonly registry: Registry = new Registry();

  constructor(sources: MetricsSources, options: ServerMetricsOptions = {}) {
    if (options.processMetrics ?? true) collectDefaultMetrics({ register: this.registry });
    registerServerMetrics(this.registry, sources);
  }

  /** The `Content-Type` of {@link render}'s text. */
  get contentType(): string {
    return this.registry.contentType;
  }

  /** The exposition text. */
  render(): Promise<string> {
    return this.registry.metrics();
  }
}

function bus(core: ServerCore): EventBus {
  return core.ctx.bus;
}

/** Registers every chorus_* metric on `registry`. */
export function registerServerMetrics(registry: Registry, s: MetricsSources): void {
  const { core } = s;
  const counters = core.counters;
  const gauge = (name: string, help: string, read: () => number | readonly Sample[]) =>
    registerSnapshot(registry, name, help, "gauge", () => {
      const v = read();
      return typeof v === "number" ? [{ value: v }] : v;
    });
  const counter = (name: string, help: string, read: () => number | readonly Sample[]) =>
    registerSnapshot(registry, name, help, "counter", () => {
      const v = read();
      return typeof v === "number" ? [{ value: v }] : v;
    });

  gauge("chorus_build_info", "Version of the running server (value 1).", () => [{
    labels: { version: s.version },
    value: 1,
  }]);
  gauge("chorus_sessions", "Open game connections.", () => core.sessions.size);
  gauge("chorus_sessions_pending_auth", "Logins in progress (bounded by max_pending_auth).", () => core.pendingAuth);
  gauge("chorus_users", "Users in the registry: connected, or within their reconnect grace.", () => {
    let connected = 0, reconnecting = 0;
    for (const user of core.users.values()) user.session ? connected++ : reconnecting++;
    return [
      { labels: { state: "connected" }, value: connected },
      { labels: { state: "reconnecting" }, value: reconnecting },
    ];
  });
  gauge("chorus_rooms", "Rooms by state (spec 3 §3.1).", () => {
    const by: Record<string, number> = { select_chart: 0, waiting_for_ready: 0, playing: 0 };
    for (const room of core.rooms.values()) by[ROOM_STATES[room.phase.kind]]!++;
    return Object.entries(by).map(([state, value]) => ({ labels: { state }, value }));
  });
  counter("chorus_logins_total", "Login attempts by outcome.", () => [
    { labels: { outcome: "ok" }, value: counters.handshake.count },
    { labels: { outcome: "failed" }, value: counters.values.auth_failures },
    { labels: { outcome: "busy" }, value: counters.values.auth_rejected_busy },
  ]);
  counter("chorus_auth_cache_total", "Token lookups answered by the auth cache (hit) or the upstream (miss).", () => [
    { labels: { result: "hit" }, value: counters.values.auth_cache_hits },
    { labels: { result: "miss" }, value: counters.values.auth_cache_misses },
  ]);
  counter("chorus_connections_rejected_total", "Connections or logins turned away.", () => [
    { labels: { reason: "full" }, value: counters.values.sessions_rejected_full },
    { labels: { reason: "rate_limited" }, value: counters.values.connections_rate_limited },
  ]);
  counter("chorus_requests_total", "Commands that expect a reply, received.", () => counters.values.request_received);
  counter("chorus_commands_total", "Commands handled, by kind.", () => {
    const by = s.commands?.() ?? {};
    return Object.entries(by).map(([kind, value]) => ({ labels: { kind }, value }));
  });
  counter(
    "chorus_server_events_total",
    "Informational server counters (runtime report `counters`).",
    () => INFO_COUNTERS.map((name) => ({ labels: { counter: name }, value: counters.values[name] ?? 0 })),
  );
  counter(
    "chorus_compat_invariant_total",
    "Production counters that must stay 0 (spec 3 §7 rule 4); any increase is a defect to report.",
    () => INVARIANT_COUNTERS.map((name) => ({ labels: { counter: name }, value: counters.values[name] })),
  );
  for (
    const [name, h, help] of [
      ["chorus_response_latency_seconds", counters.response, "Command received to its reply queued."],
      ["chorus_handshake_latency_seconds", counters.handshake, "Authenticate received to Authenticate(Ok) flushed."],
    ] as const
  ) {
    registerSnapshot(
      registry,
      name,
      help,
      "histogram",
      () => histogramSamples(LATENCY_BOUNDS_MS, h.buckets, h.sumMs, h.count),
    );
  }
  gauge("chorus_outbound_queued", "Frames and bytes waiting in the sessions' outbound queues.", () => {
    let frames = 0, bytes = 0;
    for (const session of core.sessions) {
      frames += session.outbound.pendingFrames;
      bytes += session.outbound.pendingBytes;
    }
    return [{ labels: { unit: "frames" }, value: frames }, { labels: { unit: "bytes" }, value: bytes }];
  });
  gauge("chorus_event_bus_subscribers", "Subscribers of the event bus.", () => bus(core).subscriberCount);
  counter("chorus_event_bus_published_total", "Events published on the bus.", () => bus(core).published);
  counter(
    "chorus_event_bus_listener_failures_total",
    "Bus listeners that threw.",
    () => bus(core).listenerFailures,
  );
  registerPersistence(s, gauge, counter);
  gauge("chorus_plugins", "Plugins by state (spec 3 §3.3).", () => {
    const by = Object.fromEntries(PLUGIN_STATES.map((state) => [state, 0])) as Record<string, number>;
    for (const plugin of s.plugins?.() ?? []) by[plugin.state] = (by[plugin.state] ?? 0) + 1;
    return Object.entries(by).map(([state, value]) => ({ labels: { state }, value }));
  });
  gauge("chorus_update", "Self-update: a newer release is known (available), an update waits (pending).", () => {
    const u = s.update?.() ?? { available: false, pending: false };
    return [
      { labels: { state: "available" }, value: u.available ? 1 : 0 },
      { labels: { state: "pending" }, value: u.pending ? 1 : 0 },
    ];
  });
}

type Register = (name: string, help: string, read: () => number | readonly Sample[]) => void;

/** Journal and store health. Absent persistence (memory-only tests) reads as a store that is up and empty. */
function registerPersistence(s: MetricsSources, gauge: Register, counter: Register): void {
  const status = (): PersistenceStatus | null => s.persistence?.status() ?? null;
  gauge("chorus_store_up", "1 while the durable store accepts writes.", () => status()?.store_up === false ? 0 : 1);
  gauge("chorus_persistence_queue", "Records waiting for the store, and the queue's capacity.", () => [
    { labels: { of: "depth" }, value: status()?.queue_depth ?? 0 },
    { labels: { of: "capacity" }, value: status()?.queue_capacity ?? 0 },
  ]);
  gauge("chorus_journal_pending_records", "Journaled records not yet in the store.", () => status()?.pending ?? 0);
  gauge("chorus_journal_bytes", "Size of the journal on disk.", () => status()?.journal_bytes ?? 0);
  gauge("chorus_journal_segments", "Journal segment files.", () => status()?.journal_segments ?? 0);
  gauge("chorus_dead_letters", "Records the store refused (dead-letter list).", () => status()?.dead_letters ?? 0);
  counter("chorus_persistence_events_total", "Journal and store counters (runtime persistence).", () => {
    const c = status()?.counters as Readonly<Record<string, number>> | undefined;
    return c ? Object.entries(c).map(([name, value]) => ({ labels: { counter: name }, value })) : [];
  });
}
