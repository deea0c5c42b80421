/**
 * Process wiring: builds the one server context from the loaded
 * configuration (clock, logs, upstream, event bus) and starts the game
 * server. `main.ts` calls this; tests build their own contexts.
 *
 * @module
 */

import type { LoadedConfig } from "./config/mod.ts";
import { EventBus } from "./events/mod.ts";
import { GameServer } from "./server/mod.ts";
import { Upstream } from "./upstream/mod.ts";
import { type Clock, SystemClock } from "./util/clock.ts";
import { LogHub } from "./util/log.ts";
import { systemRandom } from "./util/random.ts";

/** A started server process. */
export interface App {
  readonly server: GameServer;
  readonly logs: LogHub;
  /** Graceful shutdown of everything started. */
  stop(): Promise<void>;
}

/** Options of {@link startApp}. */
export interface StartOptions {
  clock?: Clock;
  logs?: LogHub;
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
  const server = new GameServer({ config, clock, random: systemRandom, log, upstream, bus });
  const addr = server.listen();
  log.info("game server listening", {
    address: addr.hostname,
    port: addr.port,
    upstream: config.game_api_endpoint,
    config: loaded.file ?? "(defaults)",
  });
  return {
    server,
    logs,
    stop: () => server.shutdown(),
  };
}
