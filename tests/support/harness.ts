/**
 * Scenario-test harness: a game server on 127.0.0.1 (port chosen by the OS)
 * with a {@link ManualClock}, the development upstream injected through
 * `fetch` (no extra socket), and client helpers. Everything it opens is
 * closed by {@link Harness.close}, which also asserts that the production
 * invariant counters stayed 0 and no client saw a crash-rule violation.
 *
 * @module
 */

import { deepEqual } from "node:assert/strict";
import { type ClientOptions, connect, type PhiraClient } from "../../src/client/mod.ts";
import { type Config, defaultConfig } from "../../src/config/mod.ts";
import { EventBus } from "../../src/events/mod.ts";
import { type ChartDurationResolver, GameServer, type TelemetryBudget } from "../../src/server/mod.ts";
import { createDevApi, type DevApi, devToken, Upstream } from "../../src/upstream/mod.ts";
import { ManualClock } from "../../src/util/clock.ts";
import { LogHub } from "../../src/util/log.ts";
import { SeededRandom } from "../../src/util/random.ts";

/** A running test server and its helpers. */
export interface Harness {
  readonly server: GameServer;
  readonly clock: ManualClock;
  readonly dev: DevApi;
  readonly bus: EventBus;
  readonly logs: LogHub;
  readonly port: number;
  /** Opens a client (auto-ping off); closed by {@link close}. */
  connect(options?: ClientOptions): Promise<PhiraClient>;
  /** Connects and authenticates as dev user `id`. */
  login(id: number, language?: string, options?: ClientOptions): Promise<PhiraClient>;
  /** A raw TCP connection to the server; closed by {@link close}. */
  raw(): Promise<Deno.TcpConn>;
  /** Advances the clock, then lets I/O settle. */
  advance(ms: number): Promise<void>;
  /** Closes everything and checks invariants. */
  close(options?: { allowViolations?: boolean }): Promise<void>;
}

/** Options of {@link startHarness}. */
export interface HarnessOptions {
  config?: Partial<Config>;
  seed?: number;
  /** Chart duration resolver (default: none, so the fallback duration applies). */
  chartDuration?: ChartDurationResolver;
  /** Telemetry budget per player (default: the server's); tests that need floods of telemetry raise it. */
  telemetryBudget?: TelemetryBudget;
  /** Upstream client to use instead of the in-process development API (e.g. real dev upstreams on loopback). */
  upstream?: Upstream;
}

/** Lets pending socket reads, writes and promise chains run. */
export async function settle(rounds = 5): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise((resolve) => setTimeout(resolve, 0));
}

/** Starts a server for one test. */
export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const clock = new ManualClock();
  const config: Config = {
    ...defaultConfig(),
    port: 0 as unknown as number,
    bind_address: "127.0.0.1",
    monitors: [9, 10],
    // Welcome lines would follow every login; scenario logs assert exact
    // sequences, so they are off unless a test turns them on.
    welcome: { enabled: false, show_time: false, messages: {} },
    ...options.config,
  };
  // CHORUS_TEST_LOG=1 prints the server log of every scenario.
  const verbose = Boolean(Deno.env.get("CHORUS_TEST_LOG"));
  const logs = verbose ? new LogHub({ level: "debug" }) : new LogHub({ level: "debug", sink: () => {} });
  const dev = createDevApi({ clock });
  const upstream = options.upstream ?? new Upstream({
    baseUrl: "http://dev.upstream",
    fetch: dev.fetch,
    clock,
    random: new SeededRandom(7),
  });
  const bus = new EventBus(() => clock.now());
  let n = 0;
  const server = new GameServer({
    config,
    clock,
    random: new SeededRandom(options.seed ?? 1),
    log: logs.logger(),
    upstream,
    bus,
    newUuid: () => `00000000-0000-4000-8000-${(++n).toString(16).padStart(12, "0")}`,
    ...(options.chartDuration ? { chartDuration: options.chartDuration } : {}),
    ...(options.telemetryBudget ? { telemetryBudget: options.telemetryBudget } : {}),
  });
  const port = (await server.listen()).port;
  const clients: PhiraClient[] = [];
  const raws: Deno.TcpConn[] = [];

  const connectClient = async (o: ClientOptions = {}) => {
    const client = await connect({ host: "127.0.0.1", port, pingIntervalMs: 0, ...o });
    clients.push(client);
    return client;
  };

  return {
    server,
    clock,
    dev,
    bus,
    logs,
    port,
    connect: connectClient,
    async login(id, language = "en-US", o = {}) {
      const client = await connectClient(o);
      await client.authenticate(devToken(id, language));
      return client;
    },
    async raw() {
      const conn = await Deno.connect({ hostname: "127.0.0.1", port });
      raws.push(conn);
      return conn;
    },
    async advance(ms) {
      clock.advance(ms);
      await settle();
    },
    async close({ allowViolations = false } = {}) {
      for (const c of clients) await c.close();
      for (const r of raws) {
        try {
          r.close();
        } catch {
          // Closed by the server already.
        }
      }
      await server.shutdown();
      if (!allowViolations) {
        deepEqual(server.core.counters.violations(), {}, "production invariant counters must stay 0");
        deepEqual(clients.flatMap((c) => c.violations), [], "no client may see a crash-rule violation");
      }
    },
  };
}

/** A telemetry budget no test flood reaches, for tests about something else (queues, gates). */
export const UNLIMITED_TELEMETRY: TelemetryBudget = {
  touches: { messagesPerSec: 1e9, itemsPerSec: 1e12 },
  judges: { messagesPerSec: 1e9, itemsPerSec: 1e12 },
  burstSecs: 1,
};

/** The dev token of user `id`. */
export { devToken };
