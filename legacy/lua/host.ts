/**
 * The Lua plugin host (spec 3 §4.8; issue 17): finds plugins, starts them
 * in dependency order (one Lua state each), delivers hooks, answers their
 * HTTP routes, lets operators enable, disable and reload them at run time,
 * and keeps misbehaving ones from harming the game:
 *
 * - every call runs within the instruction budget and memory limit
 *   (`runtime.ts`); an error is logged with plugin id and hook and never
 *   reaches the game;
 * - overrunning the limits `lua_max_overruns` times within an hour puts a
 *   plugin in state `error` (quarantined) until an operator enables it;
 * - hooks of events (joins, kicks, room changes) are queued (bounded) and
 *   delivered after the moment that caused them, never inside another Lua
 *   call; `on_before_command` is the one synchronous hook (the command
 *   pipeline's veto seam): returning `false` refuses the command with the
 *   protocol's error reply and a localized reason (`false, "text"` gives
 *   the text), telemetry is dropped;
 * - disabling a plugin disables those that depend on it; operator choices
 *   survive a restart (the set of disabled plugins is kept durably).
 *
 * Around it: the hook queue (`hook_queue.ts`), the veto hook
 * (`before_command.ts`), each plugin's environment (`host_env_of.ts`), its
 * routes and failure counts (`host_books.ts`), the options and operator
 * views (`host_types.ts`), the remembered choices (`disabled_plugins.ts`).
 *
 * @module
 */

import type { CommandView } from "../../src/server/mod.ts";
import { beforeCommand } from "./before_command.ts";
import { disabledPlugins, rememberDisabled } from "./disabled_plugins.ts";
import { discoverPlugins, type FoundProblem, loadOrder } from "./discover.ts";
import { FailureLog, OwnedRoutes, stopReason } from "./host_books.ts";
import { HookQueue } from "./hook_queue.ts";
import { hostEnvOf } from "./host_env_of.ts";
import { infoOf, type PluginHostOptions, type PluginInfo } from "./host_types.ts";
import { type HookName, LuaPlugin, type RouteRequest, type RouteResult } from "./plugin.ts";
import type { CallOutcome } from "./runtime.ts";
import { pushValue } from "./values.ts";

/** The Lua plugin host. */
export class LuaPluginHost {
  readonly #o: PluginHostOptions;
  #plugins: LuaPlugin[] = [];
  #problems: FoundProblem[] = [];
  readonly #routes: OwnedRoutes;
  readonly #hooks: HookQueue;
  #removeVeto: (() => void) | null = null;
  /** Failures logged per plugin and hook (a failing telemetry hook must not flood the log). */
  readonly #failures: FailureLog;
  #reloading: Promise<void> | null = null;
  #closed = false;

  constructor(options: PluginHostOptions) {
    this.#o = options;
    this.#routes = new OwnedRoutes(options.routes);
    this.#failures = new FailureLog(options.ctx.log);
    this.#hooks = new HookQueue({ log: options.ctx.log, deliver: (hook, args) => this.#deliver(hook, args) });
  }

  /** Finds and starts every plugin. */
  async load(): Promise<void> {
    const { ctx, roots } = this.#o;
    const found = await discoverPlugins(roots);
    this.#problems = found.problems;
    for (const p of found.problems) {
      ctx.log.warn(`plugin folder skipped: ${p.message}`, { plugin: p.id ?? undefined, dir: p.dir });
    }
    for (const id of found.overridden) ctx.log.info("plugin replaces the built-in one of the same id", { plugin: id });
    const { order, refused } = loadOrder(found.plugins);
    const disabled = disabledPlugins(this.#o.ctx.settings);
    const plugins = found.plugins.map((f) => new LuaPlugin(f));
    const byId = new Map(plugins.map((p) => [p.id, p]));
    this.#plugins = [...order.map((f) => byId.get(f.manifest.id)!), ...plugins.filter((p) => refused.has(p.id))];
    for (const [id, why] of refused) this.#fail(byId.get(id)!, why);
    for (const plugin of this.#plugins) {
      if (refused.has(plugin.id)) continue;
      if (!plugin.found.manifest.enabled) this.#set(plugin, "disabled", "disabled in plugin.json");
      else if (disabled.has(plugin.id)) this.#set(plugin, "disabled", "disabled by an operator");
      else {
        const off = plugin.found.manifest.dependencies.filter((d) => byId.get(d)?.state !== "enabled");
        if (off.length) this.#fail(plugin, `dependency ${off.map((d) => `"${d}"`).join(", ")} is not enabled`);
        else await this.#start(plugin);
      }
    }
    this.#refreshVeto();
    const enabled = this.#plugins.filter((p) => p.state === "enabled").length;
    ctx.log.info(`Loaded ${enabled} plugin(s)`, { plugins: this.#plugins.length, enabled });
  }

  /** Every plugin, in load order. */
  list(): PluginInfo[] {
    return this.#plugins.map((p) => infoOf(p, this.#routes.keys(p.id)));
  }

  /** Folders that could not be loaded as plugins. */
  problems(): readonly FoundProblem[] {
    return this.#problems;
  }

  /** One plugin, or undefined. */
  info(id: string): PluginInfo | undefined {
    const p = this.#find(id);
    return p ? infoOf(p, this.#routes.keys(p.id)) : undefined;
  }

  /** Hooks dropped because the queue was full. */
  get droppedHooks(): number {
    return this.#hooks.dropped;
  }

  /** Enables a plugin (and remembers it): starts it if its dependencies run. Resolves with null or why not. */
  async enable(id: string): Promise<string | null> {
    const plugin = this.#find(id);
    if (!plugin) return `no plugin with id ${id}`;
    rememberDisabled(this.#o.ctx.settings, id, false);
    if (plugin.state === "enabled") return null;
    const missing = plugin.found.manifest.dependencies.filter((d) => this.#find(d)?.state !== "enabled");
    if (missing.length) {
      this.#fail(plugin, `dependency ${missing.map((d) => `"${d}"`).join(", ")} is not enabled`);
      return plugin.reason;
    }
    plugin.overruns = [];
    const started = await this.#start(plugin);
    this.#refreshVeto();
    return started ? null : plugin.reason;
  }

  /** Disables a plugin and those depending on it (and remembers it); resolves with the ids disabled. */
  disable(id: string, why = "disabled by an operator", remember = true): string[] {
    const plugin = this.#find(id);
    if (!plugin) return [];
    if (remember) rememberDisabled(this.#o.ctx.settings, id, true);
    const out: string[] = [];
    for (const dependent of this.#plugins) {
      if (dependent !== plugin && dependent.found.manifest.dependencies.includes(id) && dependent.running) {
        out.push(...this.disable(dependent.id, `its dependency "${id}" was disabled`, false));
      }
    }
    this.#stop(plugin, true);
    this.#set(plugin, "disabled", why);
    this.#refreshVeto();
    return [id, ...out];
  }

  /** Stops every plugin and loads them all again (after the current call, when asked from Lua). */
  reload(): Promise<void> {
    if (this.#reloading) return this.#reloading;
    this.#reloading = (async () => {
      try {
        for (const p of [...this.#plugins].reverse()) this.#stop(p, true);
        this.#plugins = [];
        if (!this.#closed) await this.load();
      } finally {
        this.#reloading = null;
      }
    })();
    return this.#reloading;
  }

  /** Calls a plugin's global function with JSON arguments. */
  callFunction(id: string, name: string, args: readonly unknown[]): CallOutcome<unknown> {
    const plugin = this.#find(id);
    if (!plugin?.running) return { ok: false, kind: "error", message: `plugin ${id} is not enabled` };
    const outcome = plugin.callFunction(name, args);
    this.#after(plugin, name, outcome);
    return outcome;
  }

  /** Queues a hook for every enabled plugin that defines it. */
  dispatch(hook: HookName, args: readonly unknown[]): void {
    if (!this.#closed) this.#hooks.push(hook, args);
  }

  /** Resolves once every queued hook was delivered. */
  async idle(): Promise<void> {
    while (this.#hooks.busy || this.#reloading) {
      await (this.#reloading ?? new Promise((r) => setTimeout(r, 0)));
    }
  }

  /** Answers a plugin route. */
  route(pluginId: string, key: string, request: RouteRequest): CallOutcome<RouteResult> {
    const plugin = this.#find(pluginId);
    if (!plugin?.running) return { ok: false, kind: "error", message: `plugin ${pluginId} is not enabled` };
    const outcome = plugin.callRoute(key, request);
    this.#after(plugin, `route ${key}`, outcome);
    return outcome;
  }

  /** Stops every plugin (`on_disable` runs). */
  close(): void {
    this.#closed = true;
    this.#removeVeto?.();
    this.#removeVeto = null;
    for (const p of [...this.#plugins].reverse()) this.#stop(p, true);
    this.#hooks.close();
  }

  // --- internals -------------------------------------------------------------------------------------------------

  #find(id: string): LuaPlugin | undefined {
    return this.#plugins.find((p) => p.id === id);
  }

  #set(plugin: LuaPlugin, state: "disabled" | "enabled", reason: string | null): void {
    plugin.state = state;
    plugin.reason = reason;
  }

  #fail(plugin: LuaPlugin, reason: string): void {
    plugin.state = "error";
    plugin.reason = reason;
    this.#o.ctx.log.error(`Failed to load plugin ${plugin.id}: ${reason}`, { plugin: plugin.id });
  }

  async #start(plugin: LuaPlugin): Promise<boolean> {
    const log = this.#o.ctx.log.child({ plugin: plugin.id });
    const failure = await plugin.start(
      hostEnvOf(this.#o, plugin, {
        register: (id, method, path, key) => this.#routes.register(id, method, path, key),
        reload: () => void this.reload(),
        enabled: () => this.#plugins.filter((p) => p.running).length,
      }),
      this.#o.limits,
      (line) => log.info(line),
    );
    if (failure) {
      this.#routes.drop(plugin.id);
      this.#fail(plugin, failure);
      return false;
    }
    this.#set(plugin, "enabled", null);
    log.info(`Loaded plugin ${plugin.id}`, { version: plugin.found.manifest.version });
    return true;
  }

  #stop(plugin: LuaPlugin, callDisable: boolean): void {
    const outcome = plugin.stop(callDisable);
    if (outcome && !outcome.ok) this.#failures.log(plugin.id, "on_disable", outcome.message);
    this.#routes.drop(plugin.id);
  }

  /** Logs a failed call; stops a plugin holding too much or overrunning its limits too often (`stopReason`). */
  #after(plugin: LuaPlugin, what: string, outcome: CallOutcome<unknown>): void {
    if (outcome.ok) return;
    this.#failures.log(plugin.id, what, outcome.message);
    const reason = stopReason(plugin, outcome, this.#o.ctx.clock.now(), this.#o.maxOverruns);
    if (reason === null || !plugin.running) return;
    // No on_disable: the plugin is stopped for what its Lua did.
    this.#stop(plugin, false);
    this.#fail(plugin, reason);
    this.#refreshVeto();
  }

  /** Delivers one queued hook to every running plugin. */
  #deliver(hook: HookName, args: readonly unknown[]): void {
    for (const plugin of this.#plugins) {
      if (!plugin.running) continue;
      const outcome = plugin.callHook(hook, (L) => {
        for (const a of args) pushValue(L, a);
        return args.length;
      });
      this.#after(plugin, hook, outcome);
    }
  }

  /** The command pipeline veto hook is registered only while some plugin defines `on_before_command`. */
  #refreshVeto(): void {
    const wanted = !this.#closed && this.#plugins.some((p) => p.running && p.has("on_before_command"));
    if (wanted && !this.#removeVeto) {
      this.#removeVeto = this.#o.ctx.ops.context.deps.server.commands.beforeCommand(
        (view) => this.beforeCommand(view),
        "lua on_before_command",
      );
    } else if (!wanted && this.#removeVeto) {
      this.#removeVeto();
      this.#removeVeto = null;
    }
  }

  /**
   * `on_before_command(user, type, data)` of every plugin that defines it,
   * in load order; the first `false` refuses the command. Synchronous: it
   * runs inside the command pipeline.
   */
  beforeCommand(view: CommandView): string | null {
    return beforeCommand(
      this.#o.ctx.core,
      this.#plugins,
      view,
      (plugin, outcome) => this.#after(plugin, "on_before_command", outcome),
    );
  }
}
