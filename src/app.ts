/**
 * Process wiring: builds the one server context from the loaded
 * configuration (clock, logs, upstream, event bus, persistence) and starts
 * the game server once persistence is open (issue 5: the store and journal
 * are ready before the first login). `main.ts` calls this; tests build
 * their own contexts.
 *
 * @module
 */

import type { LoadedConfig } from "./config/mod.ts";
import { EventBus } from "./events/mod.ts";
import { Persistence } from "./persistence/mod.ts";
import { GameServer } from "./server/mod.ts";
import { Upstream } from "./upstream/mod.ts";
import { type Clock, SystemClock } from "./util/clock.ts";
import { LogHub } from "./util/log.ts";
import { systemRandom } from "./util/random.ts";

/** A started server process. */
export interface App {
  readonly server: GameServer;
  readonly logs: LogHub;
  /** Durable store and journal (issue 5); open once `ready` resolves. */
  readonly persistence: Persistence;
  /** Resolves once persistence is open and the server listens; rejects when startup fails closed. */
  readonly ready: Promise<void>;
  /** Graceful shutdown of everything started. */
  stop(): Promise<void>;
}

/** Options of {@link startApp}. */
export interface StartOptions {
  clock?: Clock;
  logs?: LogHub;
  /** Called when startup fails closed (default: exit with status 1; the reason is logged first). */
  onFatal?: (error: unknown) => void;
}

/** Starts the game server described by `loaded`. */
export function startApp(loaded: LoadedConfig, options: StartOptions = {}): App {
  const { config } = loaded;
  const clock = options.clock ?? new SystemClock();
  const logs = options.logs ?? new LogHub({ level: config.log_level, format: config.log_format });
  const log = logs.logger();
  for (const warning of loaded.warnings) log.warn(warning);
  const upstream = new Upstream({ baseUrl: config.game_api_endpoint, clock });
  const bus = new EventBus(() => clock.now());
  const persistence = new Persistence({ config, clock, log, bus });
  const { bans, loginJournal } = persistence;
  const server = new GameServer({ config, clock, random: systemRandom, log, upstream, bus, bans, loginJournal });
  const ready = (async () => {
    await persistence.open();
    await persistence.attachCore(server.core);
    const addr = server.listen();
    log.info("game server listening", {
      address: addr.hostname,
      port: addr.port,
      upstream: config.game_api_endpoint,
      config: loaded.file ?? "(defaults)",
    });
  })();
  ready.catch((error) => {
    log.error(error instanceof Error ? error.message : String(error));
    (options.onFatal ?? (() => Deno.exit(1)))(error);
  });
  return {
    server,
    logs,
    persistence,
    ready,
    async stop() {
      await ready.catch(() => {});
      await server.shutdown();
      await persistence.stop();
    },
  };
}
