/**
 * What `start` and `dev` run: the game server (`src/app.ts`) until a stop
 * signal, the task runner's exit or an operator's `exit`, then a graceful
 * shutdown. Imported on demand by those roles, so that `chorus --help`,
 * `--version` and the other roles never load the game server.
 *
 * @module
 */

import { startApp, type StartOptions } from "../app.ts";
import { reportCrashes } from "../reporting/crash.ts";
import { StopWatch } from "../app_stop.ts";
import type { LoadedConfig } from "../config/mod.ts";
import { SystemClock } from "../util/clock.ts";
import { collectStartupGarbage, exposedGc } from "../util/startup_gc.ts";
import type { Logger } from "../util/log.ts";
import { EXIT } from "./role.ts";
import type { ServerRun } from "./server_role.ts";

/** Past the shutdown budget, how long the backstop waits before forcing the exit. */
const FORCE_EXIT_SLACK_MS = 1000;

/** How {@link serve} may change the run: log lines at start, a configuration override applied to every re-read. */
export interface ServeOptions {
  readonly announce?: (log: Logger) => void;
  readonly adjust?: (loaded: LoadedConfig) => LoadedConfig;
  /** A mode's own parts and front ends (legacy mode: its HTTP API, console and plugins). */
  readonly mode?: Pick<StartOptions, "http" | "registry" | "attach">;
}

/** Runs until a stop signal, the task runner's exit (`app_stop.ts`) or an operator's `exit`, then shuts down gracefully. */
export async function serve(run: ServerRun, options: ServeOptions = {}): Promise<number> {
  const { loaded } = run;
  const app = startApp(loaded, {
    args: [...run.args],
    tui: run.tui,
    console: run.console,
    ...(options.adjust ? { adjust: options.adjust } : {}),
    ...options.mode,
  });
  const log = app.logs.logger();
  // With sentry_dsn set, an uncaught error is reported before the process exits.
  reportCrashes(app.reporter, log, (code) => Deno.exit(code));
  options.announce?.(log);
  // SIGINT, SIGTERM, SIGHUP (unless `sighup: ignore`) and the task runner going away (`on_orphan`), watched from the
  // start: a signal during a slow start-up (the embedded database's creation) is a graceful stop once it is up.
  const stops = new StopWatch({
    sighup: loaded.config.sighup,
    onOrphan: loaded.config.on_orphan,
    clock: new SystemClock(),
    log,
  });
  try {
    await app.ready;
  } catch (error) {
    log.error(`startup failed: ${error instanceof Error ? error.message : String(error)}`);
    await app.stop().catch(() => {});
    stops.close();
    return EXIT.runtime;
  }
  const collected = collectStartupGarbage(exposedGc());
  if (collected) {
    log.debug("start-up garbage collected", {
      heap_mb: `${(collected.heapBefore / 1048576).toFixed(1)} -> ${(collected.heapAfter / 1048576).toFixed(1)}`,
      ms: Math.round(collected.ms),
    });
  }
  const reason = await Promise.race([stops.requested, app.stopRequested]);
  log.info("shutting down", { reason });
  // app.stop() keeps to graceful_shutdown_timeout itself (it abandons steps
  // that overrun); this is only the backstop for a stop that cannot even do
  // that, e.g. a blocked event loop. A second signal ends the process at once.
  const grace = loaded.config.graceful_shutdown_timeout * 1000 + FORCE_EXIT_SLACK_MS;
  const force = setTimeout(() => {
    log.error("shutdown did not finish in time; exiting");
    Deno.exit(EXIT.runtime);
  }, grace);
  stops.onRepeat(() => Deno.exit(EXIT.runtime));
  await app.stop();
  stops.close();
  clearTimeout(force);
  // Non-zero after an update installed a new binary: the supervisor starts it (spec 3 §5.4).
  return app.exitCode();
}
