/**
 * What `startApp` (`src/app.ts`) is given and gives back: the started
 * process, the parts a mode (legacy) attaches its own front ends to, and the
 * options of a start.
 *
 * @module
 */

import type { ConsoleLogSink, ConsoleRegistry } from "./console/mod.ts";
import type { Config, LoadedConfig } from "./config/mod.ts";
import type { ServerOps } from "./ops/mod.ts";
import type { Persistence } from "./persistence/mod.ts";
import type { ErrorReporter } from "./reporting/reporter.ts";
import type { ConsoleRunner, GameServer } from "./server/mod.ts";
import type { Updater } from "./update/mod.ts";
import type { Clock } from "./util/clock.ts";
import type { LogHub, LogRecord } from "./util/log.ts";

/** A started server process. */
export interface App {
  readonly server: GameServer;
  readonly logs: LogHub;
  /** The console's command runner (what the in-game console and OpenUDS `cli.execute` run). */
  readonly cli: ConsoleRunner;
  /** Durable store and journal (issue 5); open once `ready` resolves. */
  readonly persistence: Persistence;
  /** Resolves once everything listens; rejects when startup fails closed. */
  readonly ready: Promise<void>;
  /** Resolves with a reason when an operator asks the process to stop (`exit`, OpenUDS `server.shutdown`). */
  readonly stopRequested: Promise<string>;
  /** Error reporting (`sentry_dsn`); reports nothing when unset. */
  readonly reporter: ErrorReporter;
  /** The self-updater (spec 3 §5.4). */
  readonly updater: Updater;
  /** The process's exit code after `stop()`: 0, or non-zero when it stops to restart into a new binary. */
  exitCode(): number;
  /** Graceful shutdown of everything started. */
  stop(): Promise<void>;
}

/** What a mode attaching its own parts to the server ((`StartOptions.attach`)) is given. */
export interface AppParts {
  readonly server: GameServer;
  readonly ops: ServerOps;
  readonly persistence: Persistence;
  readonly logs: LogHub;
  readonly config: Config;
  readonly clock: Clock;
  /** The console's command registry (what the terminal console runs). */
  readonly registry: ConsoleRegistry;
  /** Writes to the operator's console without going through the logs (history, log listeners). */
  readonly consoleSink: ConsoleLogSink;
  /** Whether the interactive console runs on this terminal. */
  readonly consoleShown: boolean;
}

/** Parts a mode attached; closed with the front ends. */
export interface AppAttachment {
  /** Start-up summary lines about the mode's HTTP service, replacing the HTTP API's. */
  readonly summary?: readonly string[];
  close(): Promise<void>;
}

/** Options of `startApp`. */
export interface StartOptions {
  clock?: Clock;
  /** Arguments the configuration was loaded from (`config reload` reads them again). */
  args?: string[];
  /** Run the interactive console on this terminal (default: when `cli_enabled`). */
  console?: boolean;
  /** Use the full-screen terminal UI when stdin is a terminal. */
  tui?: boolean;
  /**
   * What the command overrides (dev's game API endpoint), applied to the configuration given and to every re-read
   * (`config reload`, `check-config`): the reload diff then compares like with like instead of reporting the user's own
   * value as a change needing a restart.
   */
  adjust?: (loaded: LoadedConfig) => LoadedConfig;
  /** Where log lines go instead of stdout (tests that provoke errors on purpose check `logs.history()`). */
  logSink?: (line: string, record: LogRecord) => void;
  /** Serve the HTTP API of document 1 on `http_port` (default true; legacy mode serves its own API there). */
  http?: boolean;
  /** Run the WebAssembly plugin host over `plugins_dir` (default true; legacy mode runs Lua plugins there instead). */
  wasmPlugins?: boolean;
  /** Builds the console's command registry (default: every built-in command; legacy mode: the legacy console). */
  registry?: (ops: ServerOps) => ConsoleRegistry;
  /**
   * Attaches a mode's own parts once the store is open and before the game
   * port listens (legacy mode: Lua plugins, replays, its HTTP API).
   */
  attach?: (parts: AppParts) => Promise<AppAttachment>;
  /**
   * The binary self-update replaces (default: this executable when it is a compiled `chorus`, else none) and the
   * version it counts as running (default: `deno.json`'s); tests pass a file and versions of their own.
   */
  update?: { readonly executable?: string | null; readonly version?: string; readonly platform?: string };
}
