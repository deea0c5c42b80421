/**
 * The start-up sequence of the wired process (`startApp`, `src/app.ts`): the
 * store and journal first (issue 5: durable before the first login),
 * persistent rooms restored, a mode's own parts, then the game port, HTTP,
 * the plugin host, the account backend, the local socket, the start-up
 * summary and the terminal console. Parts that only some configurations use
 * (plugins, accounts, the local socket) are imported here when switched on
 * (issue 15 "Load on demand").
 *
 * @module
 */

import { resolve } from "node:path";
import { gameChartHandler } from "./app_charts.ts";
import { appReadiness } from "./app_health.ts";
import type { AppAttachment, StartOptions } from "./app_options.ts";
import { consoleCommands, restoreRooms } from "./app_parts.ts";
import { machineAddresses, startupSummary } from "./app_summary.ts";
import { type ConsoleLogSink, type ConsoleRegistry, startConsole } from "./console/mod.ts";
import type { LoadedConfig } from "./config/mod.ts";
import type { EventBus } from "./events/mod.ts";
import type { MetricsSource } from "./http/routes_metrics.ts";
import { adminPasswordProblem, listenOptionsOf, type RouteRegistry, type SseRegistry, startHttp } from "./http/mod.ts";
import type { ServerOps } from "./ops/mod.ts";
import type { Persistence } from "./persistence/mod.ts";
import type { PluginSystem } from "./plugins/wiring.ts";
import type { GameServer } from "./server/mod.ts";
import type { OpenUdsHandle, PendingApprovals } from "./uds/mod.ts";
import type { Updater } from "./update/mod.ts";
import type { Upstream } from "./upstream/client.ts";
import { bindWithRetry } from "./util/bind_retry.ts";
import type { Clock } from "./util/clock.ts";
import type { Logger, LogHub } from "./util/log.ts";

/** Something started that closes with the front ends. */
export interface Closable {
  close(): Promise<void>;
}

/** What has been started so far; read by the readiness probe, the metrics and `stop()`. */
export interface Running {
  http: Closable | null;
  terminal: Closable | null;
  accounts: Closable | null;
  attached: AppAttachment | null;
  /** The plugin host, once started (after HTTP: it registers routes into the port's registries). */
  plugins: PluginSystem | null;
  uds: OpenUdsHandle | null;
}

/** The process's parts as `startApp` built them. */
export interface Wiring {
  readonly loaded: LoadedConfig;
  readonly options: StartOptions;
  readonly version: string;
  readonly clock: Clock;
  readonly logs: LogHub;
  readonly log: Logger;
  readonly sink: ConsoleLogSink;
  readonly upstream: Upstream;
  readonly bus: EventBus;
  readonly persistence: Persistence;
  readonly server: GameServer;
  readonly ops: ServerOps;
  readonly registry: ConsoleRegistry;
  readonly updater: Updater;
  readonly approvals: PendingApprovals;
  readonly metrics: MetricsSource;
  /** The plugin host registers routes and streams into the HTTP port's registries (spec 1 §4.3). */
  readonly routes: RouteRegistry;
  readonly streams: SseRegistry;
  readonly running: Running;
}

/** Runs the start-up sequence; resolves once everything listens, rejects when start-up fails closed. */
export async function bringUp(w: Wiring): Promise<void> {
  const { loaded, options, clock, log, server, persistence, ops, registry, updater, running } = w;
  const { config } = loaded;
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
    running.attached = await options.attach({
      server,
      ops,
      persistence,
      logs: w.logs,
      config,
      clock,
      registry,
      consoleSink: w.sink,
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
    plugins: () => running.plugins?.health() ?? null,
  });
  // `/chart/{id}` for the spectator page (issue 19); the service opens on the first request.
  const chart = gameChartHandler({ config, upstream: w.upstream, clock, log, server });
  // spec 3 §5.4: the process an update replaced may still hold the port for a moment.
  const httpService = listen
    ? await bindWithRetry(() =>
      startHttp({
        server,
        config,
        options: { corsOrigins: config.http_cors_origins },
        health,
        ops,
        metrics: w.metrics,
        chart,
        routes: w.routes,
        streams: w.streams,
      }, listen), clock)
    : null;
  running.http = httpService;
  // Plugins load while the ports already listen; start-up is complete (and `/health/ready` ready) once they have
  // loaded or failed -- compiling a new plugin file takes seconds, a cached one a fraction of a second.
  if (options.wasmPlugins ?? true) {
    const { startPlugins } = await import("./plugins/wiring.ts");
    running.plugins = startPlugins({
      pluginsDir: config.plugins_dir,
      dataDir: `${config.data_dir}/plugins`,
      cacheDir: config.wasm_runtime.cache_dir || `${config.data_dir}/plugin-cache`,
      limits: config.wasm_runtime,
      secret: config.service_secret_key,
      ops,
      bus: w.bus,
      core: server.core,
      routes: w.routes,
      streams: w.streams,
      commands: consoleCommands(registry),
      clock,
      log,
    });
    await running.plugins.started;
  }
  // The account backend mounted in this process (spec 2 §1.1), loaded only when switched on.
  if (config.accounts.enabled) {
    const { mountAccounts } = await import("./accounts/mount.ts");
    running.accounts = await mountAccounts({ config, server, bus: w.bus, upstream: w.upstream, clock, log });
  }
  if (config.openuds.enabled && Deno.build.os !== "windows") {
    // The server works without the local socket: a failure is logged, not fatal. Loaded only when switched on.
    const { startOpenUds } = await import("./uds/mod.ts");
    running.uds = await startOpenUds({ ops, config: config.openuds, approvals: w.approvals, logs: w.logs }).catch(
      (error) => {
        log.error("OpenUDS did not start", { error: String(error) });
        return null;
      },
    );
  }
  const problem = adminPasswordProblem(config.admin_password);
  for (
    const line of startupSummary({
      config,
      version: w.version,
      pid: Deno.pid,
      gamePort: addr.port,
      httpPort: httpService?.port ?? null,
      adminProblem: problem,
      adminPasswordSet: (config.admin_password ?? "") !== "",
      dataDir: resolve(config.data_dir),
      configFile: loaded.file,
      addresses: machineAddresses(),
      ...(running.attached?.summary ? { httpLines: running.attached.summary } : {}),
    })
  ) log.info(line);
  if ((options.console ?? true) && config.cli_enabled) {
    running.terminal = startConsole({ registry, tui: options.tui ?? false, logs: w.logs, logSink: w.sink, log });
  }
  // The one-time notice of the update (or rollback) that led to this process, now that it runs.
  await updater.confirmStarted();
}
