/**
 * Process wiring: builds the one server context from the loaded
 * configuration (clock, logs, upstream, event bus, persistence, chart
 * prober) and starts everything in order (`app_start.ts`): the store and
 * journal first (issue 5: durable before the first login), persistent rooms
 * restored, then the game port, HTTP, the local socket and the terminal
 * console. `main.ts` calls this; tests build their own contexts.
 *
 * Only what a game server uses is imported here; the benchmark, the metrics
 * registry, the chart service, the plugin host and the account backend are
 * loaded when first used or switched on (issue 15 "Load on demand",
 * `tests/lazy_imports_test.ts`).
 *
 * @module
 */

import denoConfig from "../deno.json" with { type: "json" };
import { lazyBenchmarks } from "./app_benchmark.ts";
import { lazyMetrics } from "./app_metrics.ts";
import type { App, StartOptions } from "./app_options.ts";
import { chartProber, durablePlaytime, playersOnline, snapshotKeeper } from "./app_parts.ts";
import { bringUp, type Running } from "./app_start.ts";
import { ConsoleLogSink, createRegistry } from "./console/mod.ts";
import { loadConfig, type LoadedConfig, productionSummary } from "./config/mod.ts";
import { EventBus, logRoomEvents } from "./events/mod.ts";
import { RouteRegistry, SseRegistry } from "./http/mod.ts";
import { CommandCounter } from "./metrics/command_counter.ts";
import { configSecrets } from "./reporting/scrub.ts";
import { lazyErrorReporter } from "./reporting/lazy.ts";
import { closeOps, createOps } from "./ops/mod.ts";
import { Persistence, SCHEMA_VERSION } from "./persistence/mod.ts";
import { GameServer, inGameConsole } from "./server/mod.ts";
import { PendingApprovals } from "./uds/approvals.ts";
import { EXIT_RESTART, updateOps, Updater } from "./update/mod.ts";
import { Upstream } from "./upstream/client.ts";
import { SystemClock } from "./util/clock.ts";
import { Deadline } from "./util/deadline.ts";
import { LogHub } from "./util/log.ts";
import { systemRandom } from "./util/random.ts";

export type { App, AppAttachment, AppParts, StartOptions } from "./app_options.ts";

/** The server's version (deno.json). */
const VERSION: string = denoConfig.version;

/** Time of the shutdown budget kept for stopping the store (its final flush). */
const STORE_STOP_RESERVE_MS = 2000;

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
  const reporter = lazyErrorReporter({
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
  const running: Running = { http: null, terminal: null, accounts: null, attached: null, plugins: null, uds: null };
  // The operations layer: every surface (console, OpenUDS, HTTP admin) and the benchmark act through it.
  const ops = createOps({
    server,
    shutdown: requestStop,
    logs,
    // spec 3 §4.5: `approve openuds` has something to approve only while the local socket actually runs in approval
    // mode (no token). Read per command from the running listener, not the configuration: a socket that failed to
    // start makes the console say that mode is not running instead of "no approval request <id>".
    get approvals() {
      return running.uds && config.openuds.auth_token === "" ? approvals : undefined;
    },
    persistence,
    schemaVersion: SCHEMA_VERSION,
    config: { initial: loaded, load: async () => adjust(await loadConfig({ args: options.args ?? [] })) },
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
  const benchmarks = lazyBenchmarks(server, {
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
  const metrics = lazyMetrics({
    core: server.core,
    version,
    persistence,
    commands: () => commandCounter.snapshot(),
    plugins: () => running.plugins?.host.list().map((p) => ({ state: p.state.toLowerCase() })) ?? [],
    update: () => {
      const s = updater.state;
      return { available: s.latest !== null && s.lastCheck?.outcome === "newer", pending: s.pending !== null };
    },
  });
  const ready = bringUp({
    loaded,
    options,
    version,
    clock,
    logs,
    log,
    sink,
    upstream,
    bus,
    persistence,
    server,
    ops,
    registry,
    updater,
    approvals,
    metrics,
    routes: new RouteRegistry(),
    streams: new SseRegistry(),
    running,
  }).catch(async (error) => {
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
      const { terminal, uds, http, accounts, attached, plugins } = running;
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
