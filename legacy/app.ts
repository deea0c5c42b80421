/**
 * Legacy mode attached to a started game server (`StartOptions.attach`):
 * the context and its operations, the first-start import of ban files, the
 * Lua plugin host (built-in plugins from `legacy/plugins/`, the operator's
 * from `plugins_dir`; the operator's win on equal ids), the hook watchers,
 * the replay recorder, the legacy commands on the console, and the HTTP API
 * on `http_port`. Everything stops in reverse order.
 *
 * @module
 */

import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { AppAttachment, AppParts } from "../src/app.ts";
import { importBanFiles } from "./admin_data.ts";
import { legacyCommands } from "./console.ts";
import { createLegacyContext, type LegacyContext } from "./context.ts";
import { AdminAuth } from "./http/admin_auth.ts";
import { OtpService } from "./http/otp.ts";
import { createLegacyHttpApp, type LegacyHttpApp, serveLegacyHttp } from "./http/server.ts";
import { PluginRoutes } from "./http/plugin_routes.ts";
import type { PluginRoot } from "./lua/discover.ts";
import { LuaPluginHost } from "./lua/host.ts";
import { installPluginOps } from "./lua/ops.ts";
import { registerLegacyOps } from "./ops.ts";
import { ReplayRecorder } from "./recorder.ts";
import { MemorySettings, type SettingsStore } from "./state/settings.ts";
import { startWatchers } from "./watchers.ts";
import { programFile } from "../src/util/program_files.ts";

/** The folder of the built-in plugins. */
export const BUILTIN_PLUGINS_DIR: string = fileURLToPath(programFile("legacy/plugins/"));

/** The console banner of the original (peers note §2.9). */
export const BANNER: readonly string[] = [
  "",
  "=== Phira MP Server CLI ===",
  "Type 'help' for available commands",
  "==============================",
  "",
];

/** A running legacy mode (tests reach its parts). */
export interface LegacyMode extends AppAttachment {
  readonly ctx: LegacyContext;
  readonly host: LuaPluginHost;
  readonly recorder: ReplayRecorder;
  readonly http: LegacyHttpApp;
  readonly routes: PluginRoutes;
  /** The bound HTTP port, or null when `http_port` is 0. */
  readonly httpPort: number | null;
}

/** Options of {@link attachLegacy} (tests). */
export interface LegacyOptions {
  /** Plugin folders instead of the built-in one and `plugins_dir`. */
  readonly roots?: readonly PluginRoot[];
  /** The working directory for ban files (default the process's). */
  readonly cwd?: string;
  /** Settings instead of the durable store's. */
  readonly settings?: SettingsStore;
  /** Serve HTTP (default true). */
  readonly listen?: boolean;
}

/** What legacy mode uses of the started server (`AppParts`; tests give these without a durable store). */
export type LegacyParts =
  & Pick<AppParts, "ops" | "logs" | "config" | "clock" | "registry" | "consoleSink" | "consoleShown">
  & { readonly persistence?: AppParts["persistence"] };

/** Attaches legacy mode to a started server. */
export async function attachLegacy(parts: LegacyParts, options: LegacyOptions = {}): Promise<LegacyMode> {
  const { config, ops, persistence } = parts;
  const log = parts.logs.logger({ component: "legacy" });
  const settings: SettingsStore = options.settings ??
    (persistence
      ? { get: (key) => persistence.getSetting(key), set: (key, value) => persistence.setSetting(key, value) }
      : new MemorySettings());
  const ctx = createLegacyContext({
    ops,
    config,
    clock: parts.clock,
    log,
    settings,
    console: (line) =>
      parts.consoleSink.write(line, { seq: 0, time: parts.clock.now(), level: "info", msg: line, fields: {}, line }),
    ...(options.cwd ? { cwd: options.cwd } : {}),
  });
  const undoOps = registerLegacyOps(ctx);
  await importBanFiles(ctx);
  const routes = new PluginRoutes();
  const otp = new OtpService(ctx.clock, ctx.lockouts, ctx.console);
  const auth = new AdminAuth(ctx, otp);
  const roots: PluginRoot[] = options.roots ? [...options.roots] : [
    ...(config.legacy.builtin_plugins ? [{ path: BUILTIN_PLUGINS_DIR, builtin: true }] : []),
    { path: resolve(config.plugins_dir), builtin: false },
  ];
  const host = new LuaPluginHost({
    ctx,
    roots,
    routes,
    limits: {
      instructions: config.legacy.lua_instruction_budget,
      memoryBytes: config.legacy.lua_memory_mb * 1048576,
      stateBytes: config.legacy.lua_state_memory_mb * 1048576,
    },
    maxOverruns: config.legacy.lua_max_overruns,
    admin: (ip, sources) => auth.check(ip, sources),
  });
  const undoPluginOps = installPluginOps(ops, host);
  const watchers = startWatchers(ctx, host);
  await host.load();
  // With the durable store, its telemetry files are the replays (src/persistence/telemetry/): not written twice.
  const recorder = new ReplayRecorder(ctx, persistence ?? null);
  recorder.start();
  const removeStatus = ops.context.addStatusSection("legacy", () => ({
    replay: recorder.status(),
    plugins: host.list().map((p) => ({ id: p.id, state: p.state })),
    dropped_hooks: host.droppedHooks,
    room_bans: Object.keys(ctx.roomBans.all()).length,
    contests: ctx.contests.rooms(),
    admin_api_lockouts: ctx.lockouts.list().length,
  }));
  for (const spec of legacyCommands(ctx)) parts.registry.register(spec);
  const http = createLegacyHttpApp({ ctx, routes, host, auth, otp });
  const service = (options.listen ?? true) && config.http_port !== 0
    ? serveLegacyHttp(ctx, http, {
      hostname: config.http_bind_address,
      port: config.http_port,
      trustedPort: config.trusted_forwarded_http_port,
    })
    : null;
  if (config.cli_enabled) { for (const line of BANNER) ctx.console(line); }
  const base = service
    ? `http://${config.http_bind_address === "0.0.0.0" ? "127.0.0.1" : config.http_bind_address}:${service.port}`
    : null;
  const enabled = host.list().filter((p) => p.state === "enabled").length;
  const summary = [
    base
      ? `  legacy HTTP API: ${base}/room, ${base}/stats, ${base}/admin/\u2026`
      : "  legacy HTTP API: off (http_port: 0)",
    config.admin_token
      ? "  admin API: token required (admin_token)"
      : "  admin API: no admin_token; POST /admin/otp/request prints a one-time code on this console",
    `  Lua plugins: ${enabled} enabled of ${host.list().length}; replay recording ${
      ctx.switches.replay ? "on" : "off"
    }`,
  ];
  let closed = false;
  return {
    ctx,
    host,
    recorder,
    http,
    routes,
    httpPort: service?.port ?? null,
    summary,
    async close() {
      if (closed) return;
      closed = true;
      await service?.close();
      await recorder.close();
      await watchers.close();
      host.close();
      removeStatus();
      undoPluginOps();
      undoOps();
    },
  };
}
