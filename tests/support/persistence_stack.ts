/**
 * A game server wired to durable persistence the way `src/app.ts` wires it
 * (bans, login journal, bus, auth cache and seen players), on 127.0.0.1
 * with a {@link ManualClock} and the development upstream injected through
 * `fetch`. New data directories are copies of one embedded database made
 * once per test file, so each test skips creating the schema again.
 *
 * @module
 */

import { deepEqual } from "node:assert/strict";
import { connect, type PhiraClient } from "../../src/client/mod.ts";
import { type Config, defaultConfig } from "../../src/config/mod.ts";
import { EventBus } from "../../src/events/mod.ts";
import { openPersistence, type Persistence, type PersistenceOptions } from "../../src/persistence/mod.ts";
import { GameServer, type TelemetryBudget } from "../../src/server/mod.ts";
import { createDevApi, devToken, Upstream } from "../../src/upstream/mod.ts";
import { ManualClock } from "../../src/util/clock.ts";
import { LogHub } from "../../src/util/log.ts";
import { SeededRandom } from "../../src/util/random.ts";

/** A running server with persistence. */
export interface Stack {
  readonly server: GameServer;
  readonly persistence: Persistence;
  readonly clock: ManualClock;
  readonly bus: EventBus;
  readonly logs: LogHub;
  login(id: number): Promise<PhiraClient>;
  connect(): Promise<PhiraClient>;
  /** Closes clients, the server and persistence; checks the production counters stayed 0. */
  close(): Promise<void>;
}

/** Options of {@link startStack}. */
export interface StackOptions extends Partial<Omit<PersistenceOptions, "config" | "clock" | "log" | "bus">> {
  readonly dataDir: string;
  readonly config?: Partial<Config>;
  readonly clock?: ManualClock;
  /** The per-player telemetry budget of the wire (default the server's; tests of the store's own cap lift it). */
  readonly telemetryBudget?: TelemetryBudget;
}

/** Makes fresh data directories from one template holding an initialized embedded database. */
export function dataDirs(): { fresh(): Promise<string>; cleanup(): Promise<void> } {
  let template: Promise<string> | null = null;
  const made: string[] = [];
  return {
    async fresh() {
      template ??= (async () => {
        const dir = await Deno.makeTempDir({ prefix: "chorus-template-" });
        const p = await openPersistence({
          config: { ...defaultConfig(), data_dir: dir },
          clock: new ManualClock(),
          log: new LogHub({ level: "error", sink: () => {} }).logger(),
        });
        await p.stop();
        await Deno.remove(`${dir}/journal`, { recursive: true });
        return dir;
      })();
      const source = await template;
      const dir = await Deno.makeTempDir({ prefix: "chorus-data-" });
      made.push(dir);
      const cp = await new Deno.Command("cp", { args: ["-a", `${source}/.`, dir] }).output();
      if (!cp.success) throw new Error(`Cannot copy the template data dir: ${new TextDecoder().decode(cp.stderr)}`);
      return dir;
    },
    async cleanup() {
      for (const dir of made) await Deno.remove(dir, { recursive: true }).catch(() => {});
      if (template) await Deno.remove(await template, { recursive: true }).catch(() => {});
    },
  };
}

/** Starts persistence, then the server on top of it. */
export async function startStack(o: StackOptions): Promise<Stack> {
  const clock = o.clock ?? new ManualClock();
  const logs = Deno.env.get("CHORUS_TEST_LOG")
    ? new LogHub({ level: "debug" })
    : new LogHub({ level: "debug", sink: () => {} });
  const log = logs.logger();
  const config: Config = {
    ...defaultConfig(),
    port: 0 as unknown as number,
    bind_address: "127.0.0.1",
    monitors: [9],
    data_dir: o.dataDir,
    ...o.config,
  };
  const dev = createDevApi({ clock });
  const upstream = new Upstream({
    baseUrl: "http://dev.upstream",
    fetch: dev.fetch,
    clock,
    random: new SeededRandom(7),
  });
  const bus = new EventBus(() => clock.now());
  const { dataDir: _d, config: _c, clock: _k, telemetryBudget, ...seams } = o;
  const persistence = await openPersistence({ config, clock, log, bus, ...seams });
  const { bans, loginJournal } = persistence;
  const server = new GameServer({
    config,
    clock,
    random: new SeededRandom(1),
    log,
    upstream,
    bus,
    bans,
    loginJournal,
    ...(telemetryBudget ? { telemetryBudget } : {}),
  });
  await persistence.attachCore(server.core);
  const port = (await server.listen()).port;
  const clients: PhiraClient[] = [];
  const open = async () => {
    const client = await connect({ host: "127.0.0.1", port, pingIntervalMs: 0 });
    clients.push(client);
    return client;
  };
  return {
    server,
    persistence,
    clock,
    bus,
    logs,
    connect: open,
    async login(id) {
      const client = await open();
      await client.authenticate(devToken(id));
      return client;
    },
    async close() {
      for (const c of clients) await c.close();
      await server.shutdown();
      await persistence.stop();
      deepEqual(server.core.counters.violations(), {}, "production invariant counters must stay 0");
      const status = persistence.status();
      deepEqual(Object.values(status.production_counters ?? {}).filter((v) => v !== 0), []);
    },
  };
}
