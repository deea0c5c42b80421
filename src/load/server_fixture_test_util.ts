/**
 * Test support: a game server on 127.0.0.1 with a {@link ManualClock} and the
 * development upstream injected through `fetch`, and a driver that advances
 * the clock while real sockets do their work, until a promise settles.
 *
 * @module
 */

import { type Config, defaultConfig } from "../config/mod.ts";
import { EventBus } from "../events/mod.ts";
import { closeOps, createOps, type ServerOps } from "../ops/mod.ts";
import { GameServer } from "../server/mod.ts";
import { createDevApi, Upstream } from "../upstream/mod.ts";
import { ManualClock } from "../util/clock.ts";
import { LogHub } from "../util/log.ts";
import { SeededRandom } from "../util/random.ts";

/** A test server. */
export interface TestServer {
  readonly server: GameServer;
  /** The server's operations (what the benchmark changes rooms through). */
  readonly ops: ServerOps;
  readonly clock: ManualClock;
  readonly port: number;
  readonly logs: LogHub;
  close(): Promise<void>;
}

/** Starts a server (listening when `listen`, the default) with `config` overrides. */
export async function startTestServer(config: Partial<Config> = {}, listen = true): Promise<TestServer> {
  const clock = new ManualClock();
  const logs = new LogHub({ level: "debug", sink: () => {} });
  const dev = createDevApi({ clock });
  const upstream = new Upstream({
    baseUrl: "http://dev.upstream",
    fetch: dev.fetch,
    clock,
    random: new SeededRandom(3),
  });
  const server = new GameServer({
    config: {
      ...defaultConfig(),
      port: 0 as unknown as number,
      bind_address: "127.0.0.1",
      welcome: { enabled: false, show_time: false, messages: {} },
      ...config,
    },
    clock,
    random: new SeededRandom(1),
    log: logs.logger(),
    upstream,
    bus: new EventBus(() => clock.now()),
  });
  const port = listen ? (await server.listen()).port : 0;
  const ops = createOps({ server });
  return {
    server,
    ops,
    clock,
    port,
    logs,
    close: () => {
      closeOps(ops);
      return drive(clock, server.shutdown());
    },
  };
}

/** Lets socket I/O and promise chains run. */
export async function settle(rounds = 3): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise((resolve) => setTimeout(resolve, 0));
}

/** Advances `clock` by `stepMs` per turn, letting I/O run in between, until `p` settles. */
export async function drive<T>(clock: ManualClock, p: Promise<T>, stepMs = 10, maxSteps = 50_000): Promise<T> {
  let done = false;
  p.then(() => (done = true), () => (done = true));
  for (let i = 0; !done && i < maxSteps; i++) {
    clock.advance(stepMs);
    await settle();
  }
  return await p;
}
