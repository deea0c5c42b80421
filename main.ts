/**
 * Chorus command-line entry point.
 *
 *   chorus [start]        run the game server (default)
 *   chorus check-config   print the effective configuration with sources
 *   chorus dev            run the development upstream and a server using it
 *   chorus proxy          run the monitor proxy (its own options; proxy --help)
 *
 * Configuration flags (`--port`, `--config <file>`, …) apply to every command.
 *
 * @module
 */

import { startApp } from "./src/app.ts";
import { ConfigError, loadConfig, type LoadedConfig, renderEffectiveConfig } from "./src/config/mod.ts";
import { suggestFlag } from "./src/config/flags.ts";
import { runLoad } from "./src/load/mod.ts";
import { runProxy } from "./src/proxy/cli.ts";
import { devToken, serveDevApi } from "./src/upstream/mod.ts";
import {
  DEFAULT_DEV_UPSTREAM_PORT,
  DEV_UPSTREAM_PORT_OPTION,
  devEndpointNotice,
  takeDevUpstreamPort,
  withDevUpstream,
} from "./src/upstream/dev_command.ts";
import type { Logger } from "./src/util/log.ts";

const USAGE = `Chorus — multiplayer server for Phira

Usage: chorus [command] [--config <file>] [--<key> <value> …]

Commands:
  start          run the game server (default); --tui for the terminal UI, --no-cli for no console
  check-config   print the effective configuration, the source of each value, secrets masked
  dev            run the development upstream on 127.0.0.1 and a server that uses it (overrides
                 game_api_endpoint); --dev-upstream-port <n> picks its port (default 12380, 0 = any free)
  load           load generator: chorus load <sessions|rooms|logins|sse|http> [options] (see load --help)
  proxy          monitor proxy for browsers: rooms, room events, live rounds (see proxy --help)
  help           show this text

Every configuration key can be set in server_config.yml, as PM_<KEY> in the
environment, or as --<key-in-kebab-case> on the command line (in that order of
precedence). See README.md.`;

/** Exit codes: 0 ok, 1 runtime failure, 2 usage error, 3 invalid configuration. */
const EXIT = { ok: 0, runtime: 1, usage: 2, config: 3 } as const;

function print(lines: string | string[]): void {
  console.log(Array.isArray(lines) ? lines.join("\n") : lines);
}

/** Past the shutdown budget, how long the backstop waits before forcing the exit. */
const FORCE_EXIT_SLACK_MS = 1000;

/** Flags of `start` that are not configuration keys. */
interface StartFlags {
  tui: boolean;
  console: boolean;
}

/** Runs until SIGINT/SIGTERM or an operator's `exit`, then shuts down gracefully. */
async function serve(
  loaded: LoadedConfig,
  flags: StartFlags,
  args: string[],
  announce: (log: Logger) => void = () => {},
  adjust: (loaded: LoadedConfig) => LoadedConfig = (l) => l,
): Promise<number> {
  const app = startApp(loaded, { args, tui: flags.tui, console: flags.console, adjust });
  const log = app.logs.logger();
  announce(log);
  try {
    await app.ready;
  } catch (error) {
    log.error(`startup failed: ${error instanceof Error ? error.message : String(error)}`);
    await app.stop().catch(() => {});
    return EXIT.runtime;
  }
  const { promise: signalled, resolve } = Promise.withResolvers<string>();
  const signals: Deno.Signal[] = ["SIGINT", "SIGTERM"];
  for (const signal of signals) Deno.addSignalListener(signal, () => resolve(signal));
  const reason = await Promise.race([signalled, app.stopRequested]);
  log.info("shutting down", { reason });
  // app.stop() keeps to graceful_shutdown_timeout itself (it abandons steps
  // that overrun); this is only the backstop for a stop that cannot even do
  // that, e.g. a blocked event loop. A second signal ends the process at once.
  const grace = loaded.config.graceful_shutdown_timeout * 1000 + FORCE_EXIT_SLACK_MS;
  const force = setTimeout(() => {
    log.error("shutdown did not finish in time; exiting");
    Deno.exit(EXIT.runtime);
  }, grace);
  for (const s of signals) Deno.addSignalListener(s, () => Deno.exit(EXIT.runtime));
  await app.stop();
  clearTimeout(force);
  return EXIT.ok;
}

async function dev(loaded: LoadedConfig, flags: StartFlags, args: string[], port: number): Promise<number> {
  let upstream;
  try {
    upstream = serveDevApi({ port, hostname: "127.0.0.1" });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    console.error(`Cannot start the development upstream on 127.0.0.1:${port}: ${reason}`);
    return EXIT.runtime;
  }
  print([
    `development upstream: ${upstream.url}`,
    `tokens: Alice (100) ${devToken(100)}   Bob (200) ${devToken(200)}   zh-CN (300) ${devToken(300, "zh-CN")}`,
  ]);
  // dev always plays against the development upstream; a game_api_endpoint the user set is overridden, loudly.
  // startApp applies the override to every re-read too, so `config reload` does not report it as a change.
  const notice = devEndpointNotice(loaded, upstream.url);
  try {
    return await serve(loaded, flags, args, (log) => {
      log.info(notice.info);
      if (notice.warning) log.warn(notice.warning);
    }, (l) => withDevUpstream(l, upstream.url));
  } finally {
    await upstream.close();
  }
}

/** Options `main` itself understands; any other `--…` left over is not a configuration key either. */
const FRONT_END_OPTIONS = new Set(["--tui", "--no-cli", "--help", "-h"]);

/** The first leftover argument that looks like an option but is none (everything after `--` is positional). */
function unknownOption(rest: readonly string[]): string | null {
  for (const arg of rest) {
    if (arg === "--") return null;
    if (arg.startsWith("-") && arg.length > 1 && !FRONT_END_OPTIONS.has(arg)) return arg;
  }
  return null;
}

async function main(args: string[]): Promise<number> {
  // The load generator has its own options (--port, --duration, …): not configuration keys.
  if (args[0] === "load") return await runLoad(args.slice(1));
  // The monitor proxy is its own role with its own options (spec 1 §2.4).
  if (args[0] === "proxy") return await runProxy(args.slice(1));
  let loaded: LoadedConfig;
  try {
    loaded = loadConfig({ args });
  } catch (error) {
    if (error instanceof ConfigError) {
      // Warnings (unknown keys, …) often explain the failure: show them first.
      for (const warning of error.warnings) console.error(`! ${warning}`);
      console.error(error.message);
      return EXIT.config;
    }
    throw error;
  }
  // Front-end flags of `start`/`dev` (not configuration keys).
  const flags: StartFlags = { tui: loaded.rest.includes("--tui"), console: !loaded.rest.includes("--no-cli") };
  const devPort = takeDevUpstreamPort(loaded.rest);
  if (!devPort.ok) {
    console.error(`${devPort.message}\n\n${USAGE}`);
    return EXIT.usage;
  }
  const unknown = unknownOption(devPort.rest);
  if (unknown) {
    const near = suggestFlag(unknown);
    console.error(`unknown option ${unknown.split("=")[0]}${near ? `; did you mean ${near}?` : ""}\n\n${USAGE}`);
    return EXIT.usage;
  }
  const [command = "start", ...extra] = devPort.rest.filter((a) => a !== "--tui" && a !== "--no-cli");
  if (command === "help" || command === "--help" || command === "-h") {
    print(USAGE);
    return EXIT.ok;
  }
  if (devPort.port !== null && command !== "dev") {
    console.error(`${DEV_UPSTREAM_PORT_OPTION} applies to the dev command only\n\n${USAGE}`);
    return EXIT.usage;
  }
  if (extra.length) {
    console.error(`Unexpected argument${extra.length > 1 ? "s" : ""}: ${extra.join(" ")}\n\n${USAGE}`);
    return EXIT.usage;
  }
  switch (command) {
    case "start":
      return await serve(loaded, flags, args);
    case "check-config":
      print(renderEffectiveConfig(loaded));
      return EXIT.ok;
    case "dev":
      return await dev(loaded, flags, args, devPort.port ?? DEFAULT_DEV_UPSTREAM_PORT);
    default:
      console.error(`Unknown command: ${command}\n\n${USAGE}`);
      return EXIT.usage;
  }
}

if (import.meta.main) Deno.exit(await main(Deno.args));
