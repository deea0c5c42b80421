/**
 * Process wiring: builds the one server context from the loaded
 * configuration (clock, logs, upstream, event bus, persistence, chart
 * prober) and starts everything in order: the store and journal first (issue
 * 5: durable before the first login), persistent rooms restored, then the
 * game port, HTTP, the local socket and the terminal console. `main.ts`
 * calls this; tests build their own contexts.
 *
 * @module
 */

import { resolve } from "node:path";
import denoConfig from "../deno.json" with { type: "json" };
import { gameChartHandler } from "./app_charts.ts";
import { appReadiness } from "./app_health.ts";
import { machineAddresses, startupSummary } from "./app_summary.ts";
import { ChartDurationCache, resolveChartDuration } from "./chart/mod.ts";
import { ConsoleLogSink, type ConsoleRegistry, createRegistry, startConsole } from "./console/mod.ts";
import { type Config, loadConfig, type LoadedConfig, productionSummary } from "./config/mod.ts";
import { EventBus, logRoomEvents } from "./events/mod.ts";
import { adminPasswordProblem, listenOptionsOf, RouteRegistry, SseRegistry, startHttp } from "./http/mod.ts";
import { type ConsoleCommands, type PluginSystem, startPlugins } from "./plugins/mod.ts";
import { InProcessBenchmarks } from "./load/mod.ts";
import { CommandCounter, ServerMetrics } from "./metrics/mod.ts";
import { configSecrets, createErrorReporter, type ErrorReporter } from "./reporting/mod.ts";
import { closeOps, createOps, type ServerOps } from "./ops/mod.ts";
import { Persistence, SCHEMA_VERSION } from "./persistence/mod.ts";
import type { Room } from "./room/mod.ts";
import {
  type ChartDurationResolver,
  type ConsoleRunner,
  GameServer,
  inGameConsole,
  type PlaytimeSource,
  restoreRoom,
  roomFromSnapshot,
  snapshotOf,
  snapshotProblem,
} from "./server/mod.ts";
import { type OpenUdsHandle, PendingApprovals, startOpenUds } from "./uds/mod.ts";
import { EXIT_RESTART, updateOps, Updater } from "./update/mod.ts";
import { bindWithRetry } from "./util/bind_retry.ts";
import { Upstream, type UpstreamChart } from "./upstream/mod.ts";
import { type Clock, SystemClock } from "./util/clock.ts";
import { Deadline } from "./util/deadline.ts";
import { type Logger, LogHub, type LogRecord } from "./util/log.ts";
import { systemRandom } from "./util/random.ts";

/** The server's version (deno.json). */
const VERSION: string = denoConfig.version;

/** Time of the shutdown budget kept for stopping the store (its final flush). */
const STORE_STOP_RESERVE_MS = 2000;

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

/** What a mode attaching its own parts to the server ({@link StartOptions.attach}) is given. */
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

/** Options of {@link startApp}. */
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

/** Players online for the self-update's idle rule: real users, connected or about to reconnect (not benchmarks). */
function playersOnline(server: GameServer): number {
  let n = 0;
  for (const id of server.core.users.keys()) if (id > 0) n++;
  return n;
}

/** The playtime of the durable store, in the server's terms (seconds). */
function durablePlaytime(p: Persistence): PlaytimeSource {
  return {
    seconds: async (id) => (await p.playtime(id)) / 1000,
    top: async (n) =>
      (await p.topPlaytime(n)).map((r) => ({
        user_id: r.user_id,
        name: r.name ?? `#${r.user_id}`,
        seconds: r.total_ms / 1000,
      })),
  };
}

/**
 * Probes chart archives, sharing results between rooms for a few minutes (spec 3 §3.1 rule 5).
 * One cache per API endpoint: a room's endpoint override may serve other charts under the same ids.
 */
function chartProber(clock: Clock): ChartDurationResolver {
  const caches = new Map<string, ChartDurationCache>();
  const cacheFor = (endpoint: string) => {
    let cache = caches.get(endpoint);
    if (!cache) {
      cache = new ChartDurationCache({ clock });
      caches.set(endpoint, cache);
      // Bounded: the oldest endpoint's cache goes first.
      for (const old of caches.keys()) if (caches.size > 16) caches.delete(old);
    }
    return cache;
  };
  return async (chartId, upstream, meta) => {
    const api = upstream as Upstream;
    // Metadata the selection already fetched spares a second `/chart/{id}`.
    const chart = meta && "file" in meta ? meta as UpstreamChart : chartId;
    return (await resolveChartDuration(api, chart, { clock, cache: cacheFor(api.baseUrl) })).audio.durationSecs;
  };
}

/** Keeps snapshots of persistent rooms: saved on change (debounced by the store), deleted with the room. */
function snapshotKeeper(persistence: Persistence): (roomId: string, room: Room | null) => void {
  const stored = new Set<string>();
  return (roomId, room) => {
    if (room?.persistent) {
      stored.add(roomId);
      persistence.saveRoomSnapshot(roomId, snapshotOf(room));
    } else if (stored.delete(roomId)) persistence.deleteRoomSnapshot(roomId);
  };
}

async function restoreRooms(
  server: GameServer,
  persistence: Persistence,
  required: boolean,
  log: Logger,
): Promise<void> {
  let restored = 0;
  for (const row of await persistence.loadRoomSnapshots()) {
    const problem = snapshotProblem(row.payload);
    if (problem) {
      const message = `Cannot restore persistent room "${row.room_id}": ${problem}`;
      if (required) throw new Error(message);
      log.error(message);
      continue;
    }
    restoreRoom(server.core, roomFromSnapshot(row.payload as Parameters<typeof roomFromSnapshot>[0]));
    restored++;
  }
  if (restored) log.info("persistent rooms restored", { rooms: restored });
}

/** Plugin handlers as console commands (group `Plugins`), their words passed as the arguments. */
function consoleCommands(registry: ReturnType<typeof createRegistry>): ConsoleCommands {
  return {
    add: (command) =>
      registry.register({
        name: command.name,
        args: [{ name: "args", kind: "words", optional: true }],
        help: command.help,
        group: "Plugins",
        run: (args) => command.run(args.words("args")),
      }),
  };
}

/** Starts the server described by `loaded`. */
export function startApp(given: LoadedConfig, options: StartOptions = {}): App {
  const adjust = options.adjust ?? ((l: LoadedConfig) => l);
  const loaded = adjust(given);
  const { config } = loaded;
  const clock = options.clock ?? new SystemClock();
  const sink = new ConsoleLogSink();
  const logs = new LogHub({ level: config.log_level, format: config.log_format, sink: options.logSink ?? sink.write });
  const log = logs.logger();
  const version = options.update?.version ?? VERSION;
  // spec 3 §2.3 `sentry_dsn`: every error-level record is reported, scrubbed of tokens and secrets; off when unset.
  const reporter = createErrorReporter({
    dsn: config.sentry_dsn,
    release: `chorus@${version}`,
    environment: config.profile.toLowerCase(),
    serverName: config.server_name,
    secrets: configSecrets(config),
    clock,
  });
  const unfollowLogs = reporter.follow(logs);
  for (const warning of loaded.warnings) log.warn(warning);
  // Development: what Production would refuse is expected here; one line, the details in check-config.
  const production = productionSummary(loaded.production ?? []);
  if (production) log.info(production);
  const upstream = new Upstream({ baseUrl: config.game_api_endpoint, clock });
  const bus = new EventBus(() => clock.now(), { log });
  // Room lifecycle lines for the companion room service, which follows this log (spec 2 §4.4).
  const stopRoomLog = logRoomEvents(bus, log);
  const persistence = new Persistence({ config, clock, log, bus });
  const server = new GameServer({
    config,
    clock,
    random: systemRandom,
    log,
    upstream,
    bus,
    bans: persistence.bans,
    loginJournal: persistence.loginJournal,
    playtime: durablePlaytime(persistence),
    chartDuration: chartProber(clock),
    onRoomChanged: snapshotKeeper(persistence),
  });
  const { promise: stopRequested, resolve: requestStop } = Promise.withResolvers<string>();
  const approvals = new PendingApprovals(clock, config.openuds.approval_ttl_secs);
  let uds: OpenUdsHandle | null = null;
  // The operations layer: every surface (console, OpenUDS, HTTP admin) and the benchmark act through it.
  const ops = createOps({
    server,
    shutdown: requestStop,
    logs,
    // spec 3 §4.5: `approve openuds` has something to approve only while the local socket actually runs in approval
    // mode (no token). Read per command from the running listener, not the configuration: a socket that failed to
    // start makes the console say that mode is not running instead of "no approval request <id>".
    get approvals() {
      return uds && config.openuds.auth_token === "" ? approvals : undefined;
    },
    persistence,
    schemaVersion: SCHEMA_VERSION,
    config: { initial: loaded, load: () => adjust(loadConfig({ args: options.args ?? [] })) },
    // Read when called: the benchmark is built from these operations just below.
    get benchmark() {
      return benchmarks.runner;
    },
    startedAt: clock.now(),
    version,
  });
  // Built after the operations, which it changes its rooms through; before the console, which reads its grammar. The
  // benchmark drives this server and stores reports in the journal. One at a time; `stop()` aborts a running one
  // (spec 3 §4.2: virtual sessions and bench- rooms are cleaned up, not left behind).
  const benchmarkStop = new AbortController();
  const benchmarks = new InProcessBenchmarks(server, {
    ops,
    clock,
    log,
    reportStore: persistence,
    signal: benchmarkStop.signal,
  });
  const registry = (options.registry ?? createRegistry)(ops);
  // Commands by kind for /metrics: first of the feature links, so it also counts what the in-game console answers.
  const commandCounter = new CommandCounter();
  server.commands.use(commandCounter.link);
  // The in-game console (spec 3 §4.2) is a link of the command pipeline, attached from outside the core.
  server.commands.use(inGameConsole(registry));
  // spec 3 §5.4: after installing a new binary the process stops and exits non-zero; its supervisor starts the new one.
  let exitCode = 0;
  const updater = new Updater({
    config: config.update,
    version,
    clock,
    log: log.child({ component: "update" }),
    players: () => playersOnline(server),
    executable: options.update?.executable !== undefined
      ? options.update.executable
      : (Deno.build.standalone ? Deno.execPath() : null),
    ...(options.update?.platform ? { platform: options.update.platform } : {}),
    restart: (reason) => {
      exitCode = EXIT_RESTART;
      requestStop(reason);
    },
  });
  for (const op of updateOps(updater)) ops.register(op, "update");
  // `GET /metrics`: read at scrape time from the server's own counters (no work per message).
  // The plugin host, once started (after HTTP: it registers routes into the port's registries).
  let plugins: PluginSystem | null = null;
  const metrics = new ServerMetrics({
    core: server.core,
    version,
    persistence,
    commands: () => commandCounter.snapshot(),
    plugins: () => plugins?.host.list().map((p) => ({ state: p.state.toLowerCase() })) ?? [],
    update: () => {
      const s = updater.state;
      return { available: s.latest !== null && s.lastCheck?.outcome === "newer", pending: s.pending !== null };
    },
  });

  let http: { close(): Promise<void> } | null = null;
  let terminal: { close(): Promise<void> } | null = null;
  // The plugin host registers routes and streams into the HTTP port's registries (spec 1 §4.3).
  const routes = new RouteRegistry();
  const streams = new SseRegistry();
  let accounts: { close(): Promise<void> } | null = null;
  let attached: AppAttachment | null = null;
  const ready = (async () => {
    await updater.start();
    await persistence.open();
    await persistence.attachCore(server.core);
    const savedAdmins = persistence.getSetting("admin_game_ids");
    if (Array.isArray(savedAdmins)) {
      server.core.adminIds.clear();
      for (const id of savedAdmins) if (Number.isInteger(id)) server.core.adminIds.add(id);
    }
    server.core.adminIds.onChange = (ids) => persistence.setSetting("admin_game_ids", ids);
    await restoreRooms(server, persistence, config.persistent_rooms_required, log);
    if (options.attach) {
      const consoleShown = (options.console ?? true) && config.cli_enabled;
      attached = await options.attach({
        server,
        ops,
        persistence,
        logs,
        config,
        clock,
        registry,
        consoleSink: sink,
        consoleShown,
      });
    }
    // spec 3 §5.4: the process an update replaced may still hold the ports for a moment.
    const addr = await bindWithRetry(() => server.listen(), clock);
    log.info("game server listening", {
      address: addr.hostname,
      port: addr.port,
      upstream: config.game_api_endpoint,
      config: loaded.file ?? "(defaults)",
      store: persistence.status().backend ?? "none",
    });
    const listen = (options.http ?? true) ? listenOptionsOf(config) : null;
    const health = appReadiness({
      shuttingDown: () => server.core.shuttingDown,
      persistence: () => persistence.status(),
      now: () => clock.now(),
      plugins: () => plugins?.health() ?? null,
    });
    // `/chart/{id}` for the spectator page (issue 19); the service opens on the first request.
    const chart = gameChartHandler({ config, upstream, clock, log, server });
    // spec 3 §5.4: the process an update replaced may still hold the port for a moment.
    const httpService = listen
      ? await bindWithRetry(() =>
        startHttp({
          server,
          config,
          options: { corsOrigins: config.http_cors_origins },
          health,
          ops,
          metrics,
          chart,
          routes,
          streams,
        }, listen), clock)
      : null;
    http = httpService;
    // Plugins load while the ports already listen; start-up is complete (and `/health/ready` ready) once they have
    // loaded or failed — compiling a new plugin file takes seconds, a cached one a fraction of a second.
    if (options.wasmPlugins ?? true) {
      plugins = startPlugins({
        pluginsDir: config.plugins_dir,
        dataDir: `${config.data_dir}/plugins`,
        cacheDir: config.wasm_runtime.cache_dir || `${config.data_dir}/plugin-cache`,
        limits: config.wasm_runtime,
        secret: config.service_secret_key,
        ops,
        bus,
        core: server.core,
        routes,
        streams,
        commands: consoleCommands(registry),
        clock,
        log,
      });
      await plugins.started;
    }
    // The account backend mounted in this process (spec 2 §1.1), loaded only when switched on.
    if (config.accounts.enabled) {
      const { mountAccounts } = await import("./accounts/mount.ts");
      accounts = await mountAccounts({ config, server, bus, upstream, clock, log });
    }
    if (config.openuds.enabled && Deno.build.os !== "windows") {
      // The server works without the local socket: a failure is logged, not fatal.
      uds = await startOpenUds({ ops, config: config.openuds, approvals, logs }).catch((error) => {
        log.error("OpenUDS did not start", { error: String(error) });
        return null;
      });
    }
    const problem = adminPasswordProblem(config.admin_password);
    for (
      const line of startupSummary({
        config,
        version,
        pid: Deno.pid,
        gamePort: addr.port,
        httpPort: httpService?.port ?? null,
        adminProblem: problem,
        adminPasswordSet: (config.admin_password ?? "") !== "",
        dataDir: resolve(config.data_dir),
        configFile: loaded.file,
        addresses: machineAddresses(),
        ...(attached?.summary ? { httpLines: attached.summary } : {}),
      })
    ) log.info(line);
    if ((options.console ?? true) && config.cli_enabled) {
      terminal = startConsole({ registry, tui: options.tui ?? false, logs, logSink: sink, log });
    }
    // The one-time notice of the update (or rollback) that led to this process, now that it runs.
    await updater.confirmStarted();
  })().catch(async (error) => {
    // A binary an update just installed that cannot start puts the previous one back for the next start.
    await updater.startupFailed(error instanceof Error ? error.message : String(error));
    throw error;
  });
  ready.catch(() => {});
  return {
    server,
    logs,
    cli: registry,
    persistence,
    ready,
    stopRequested,
    updater,
    reporter,
    exitCode: () => exitCode,
    async stop() {
      updater.stop();
      // One budget for the whole stop (issue 3 "Lifecycle"): a step that
      // overruns it is abandoned, so the process exits within
      // graceful_shutdown_timeout whatever hangs.
      const deadline = new Deadline(clock, config.graceful_shutdown_timeout * 1000);
      const step = async (what: string, work: Promise<unknown>) => {
        if (!(await deadline.within(work))) log.warn("shutdown step abandoned at the deadline", { step: what });
      };
      await step("startup", ready.catch(() => {}));
      // Before anything closes: the benchmark's cleanup needs the server, its report the journal.
      benchmarkStop.abort();
      await step("benchmark", benchmarks.idle());
      await step(
        "front ends",
        Promise.all([terminal?.close(), uds?.close(), http?.close(), accounts?.close(), attached?.close()]),
      );
      // Plugins' cleanup may still act on the server: before the game server stops.
      await step("plugins", plugins?.stop() ?? Promise.resolve());
      // The game server may use what is left but a reserve, so that the
      // store's final flush still fits in the budget.
      const reserve = Math.min(STORE_STOP_RESERVE_MS, (config.graceful_shutdown_timeout * 1000) / 4);
      await step("game server", server.shutdown({ budgetMs: Math.max(0, deadline.remaining() - reserve) }));
      registry.close();
      closeOps(ops);
      stopRoomLog();
      await step("persistence", persistence.stop());
      unfollowLogs();
      await step("error reports", reporter.close(Math.min(2000, deadline.remaining())));
    },
  };
}
