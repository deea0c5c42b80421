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
 * Longer than most modules: the plugin lifecycle, hook delivery, the veto
 * hook and route calls all work on the same plugin list and overrun policy.
 *
 * @module
 */

import { type Actor, CAPABILITIES } from "../../src/ops/mod.ts";
import { translate } from "../../src/l10n/mod.ts";
import type { CommandView } from "../../src/server/mod.ts";
import type { LogFields } from "../../src/util/log.ts";
import type { LegacyContext } from "../context.ts";
import { luaUser } from "../views.ts";
import { hookCommand } from "./commands.ts";
import { discoverPlugins, type FoundProblem, loadOrder, type PluginRoot } from "./discover.ts";
import type { HostEnv } from "./host/env.ts";
import { type HookName, LuaPlugin, type RouteRequest, type RouteResult } from "./plugin.ts";
import type { CallLimits, CallOutcome } from "./runtime.ts";
import { pushString } from "./fengari.ts";
import { pushValue } from "./values.ts";

/** What a Lua plugin may do through the operations layer: everything but operator-only operations. */
export const LUA_CAPABILITIES = CAPABILITIES;

/** Hook calls waiting at most; beyond, new ones are dropped and counted. */
export const HOOK_QUEUE_CAPACITY = 4096;
/** Hooks delivered in one turn of the event loop at most. */
const DRAIN_BATCH = 64;
/** Time one turn may spend delivering hooks before yielding. */
const DRAIN_SLICE_MS = 20;

const DISABLED_KEY = "legacy.disabled_plugins";
const HOUR_MS = 3_600_000;

/** The route table the host registers plugin routes in (the legacy HTTP server's). */
export interface PluginRouteTable {
  register(pluginId: string, method: string, path: string, key: string): boolean;
  removeOwner(pluginId: string): void;
}

/** Options of {@link LuaPluginHost}. */
export interface PluginHostOptions {
  readonly ctx: LegacyContext;
  readonly roots: readonly PluginRoot[];
  readonly routes: PluginRouteTable;
  readonly limits: CallLimits;
  /** Overruns within an hour that quarantine a plugin. */
  readonly maxOverruns: number;
  /** The admin API's check, for `phira.is_admin(request)` (refuses everything when absent). */
  readonly admin?: HostEnv["admin"];
}

/** A plugin as operators see it (`plugin.list`, `plugin.info`, `/admin/plugins`). */
export interface PluginInfo {
  readonly id: string;
  readonly name: string;
  readonly version: string;
  readonly description: string;
  readonly author: string;
  readonly dependencies: readonly string[];
  readonly builtin: boolean;
  readonly dir: string;
  readonly state: string;
  readonly reason: string | null;
  readonly hooks: readonly string[];
  readonly routes: readonly string[];
  readonly overruns: number;
}

interface QueuedHook {
  readonly hook: HookName;
  readonly args: readonly unknown[];
}

/** The Lua plugin host. */
export class LuaPluginHost {
  readonly #o: PluginHostOptions;
  #plugins: LuaPlugin[] = [];
  #problems: FoundProblem[] = [];
  readonly #routes = new Map<string, Set<string>>();
  #queue: QueuedHook[] = [];
  #draining = false;
  #dropped = 0;
  #removeVeto: (() => void) | null = null;
  /** Failures logged per plugin and hook (a failing telemetry hook must not flood the log). */
  readonly #failures = new Map<string, number>();
  #reloading: Promise<void> | null = null;
  #closed = false;

  constructor(options: PluginHostOptions) {
    this.#o = options;
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
    const disabled = this.#disabledSet();
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
    return this.#plugins.map((p) => this.#info(p));
  }

  /** Folders that could not be loaded as plugins. */
  problems(): readonly FoundProblem[] {
    return this.#problems;
  }

  /** One plugin, or undefined. */
  info(id: string): PluginInfo | undefined {
    const p = this.#find(id);
    return p ? this.#info(p) : undefined;
  }

  /** Hooks dropped because the queue was full. */
  get droppedHooks(): number {
    return this.#dropped;
  }

  /** Enables a plugin (and remembers it): starts it if its dependencies run. Resolves with null or why not. */
  async enable(id: string): Promise<string | null> {
    const plugin = this.#find(id);
    if (!plugin) return `no plugin with id ${id}`;
    this.#remember(id, false);
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
    if (remember) this.#remember(id, true);
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
    if (this.#closed) return;
    if (this.#queue.length >= HOOK_QUEUE_CAPACITY) {
      if (this.#dropped++ % 1000 === 0) {
        this.#o.ctx.log.warn("Lua hook queue full; hooks are dropped", { hook, dropped: this.#dropped });
      }
      return;
    }
    this.#queue.push({ hook, args });
    if (!this.#draining) {
      this.#draining = true;
      queueMicrotask(() => this.#drain());
    }
  }

  /** Resolves once every queued hook was delivered. */
  async idle(): Promise<void> {
    while (this.#queue.length || this.#draining || this.#reloading) {
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
    this.#queue = [];
  }

  // --- internals -------------------------------------------------------------------------------------------------

  #find(id: string): LuaPlugin | undefined {
    return this.#plugins.find((p) => p.id === id);
  }

  #info(p: LuaPlugin): PluginInfo {
    const m = p.found.manifest;
    return {
      id: m.id,
      name: m.name,
      version: m.version,
      description: m.description,
      author: m.author,
      dependencies: m.dependencies,
      builtin: p.found.builtin,
      dir: p.found.dir,
      state: p.state,
      reason: p.reason,
      hooks: p.definedHooks(),
      routes: [...(this.#routes.get(p.id) ?? [])].sort(),
      overruns: p.overruns.length,
    };
  }

  #disabledSet(): Set<string> {
    const saved = this.#o.ctx.settings.get(DISABLED_KEY);
    return new Set(Array.isArray(saved) ? saved.filter((v) => typeof v === "string") : []);
  }

  #remember(id: string, disabled: boolean): void {
    const set = this.#disabledSet();
    if (disabled === set.has(id)) return;
    if (disabled) set.add(id);
    else set.delete(id);
    this.#o.ctx.settings.set(DISABLED_KEY, set.size ? [...set].sort() : null);
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

  #env(plugin: LuaPlugin): HostEnv {
    const ctx = this.#o.ctx;
    const log = ctx.log.child({ plugin: plugin.id });
    const actor: Actor = { kind: "plugin", id: `lua:${plugin.id}`, capabilities: LUA_CAPABILITIES };
    return {
      pluginId: plugin.id,
      ctx,
      actor,
      log: (level, message, fields?: LogFields) => log[level](message, fields),
      routes: {
        register: (id, method, path, key) => {
          if (!this.#o.routes.register(id, method, path, key)) return false;
          let set = this.#routes.get(id);
          if (!set) this.#routes.set(id, set = new Set());
          set.add(key);
          return true;
        },
      },
      reloadSoon: () => void queueMicrotask(() => void this.reload()),
      admin: this.#o.admin ?? (() => ({ ok: false, status: 403, error: "admin-disabled" })),
      enabledPlugins: () => this.#plugins.filter((p) => p.running).length,
    };
  }

  async #start(plugin: LuaPlugin): Promise<boolean> {
    const log = this.#o.ctx.log.child({ plugin: plugin.id });
    const failure = await plugin.start(this.#env(plugin), this.#o.limits, (line) => log.info(line));
    if (failure) {
      this.#dropRoutes(plugin.id);
      this.#fail(plugin, failure);
      return false;
    }
    this.#set(plugin, "enabled", null);
    log.info(`Loaded plugin ${plugin.id}`, { version: plugin.found.manifest.version });
    return true;
  }

  #stop(plugin: LuaPlugin, callDisable: boolean): void {
    const outcome = plugin.stop(callDisable);
    if (outcome && !outcome.ok) this.#logFailure(plugin, "on_disable", outcome.message);
    this.#dropRoutes(plugin.id);
  }

  #dropRoutes(id: string): void {
    this.#o.routes.removeOwner(id);
    this.#routes.delete(id);
  }

  /** Logs a failed call; counts overruns and quarantines a plugin that overran too often. */
  #after(plugin: LuaPlugin, what: string, outcome: CallOutcome<unknown>): void {
    if (outcome.ok) return;
    this.#logFailure(plugin, what, outcome.message);
    if (outcome.kind !== "budget" && outcome.kind !== "memory") return;
    const now = this.#o.ctx.clock.now();
    plugin.overruns = [...plugin.overruns.filter((t) => t > now - HOUR_MS), now];
    if (plugin.overruns.length >= this.#o.maxOverruns && plugin.running) {
      this.#stop(plugin, false);
      this.#fail(
        plugin,
        `quarantined after ${plugin.overruns.length} overruns of its limits within an hour (last: ${outcome.message})`,
      );
      this.#refreshVeto();
    }
  }

  #logFailure(plugin: LuaPlugin, what: string, message: string): void {
    const key = `${plugin.id}\u0000${what}`;
    const n = this.#failures.get(key) ?? 0;
    this.#failures.set(key, n + 1);
    if (n % 100 !== 0) return;
    this.#o.ctx.log.error(`Plugin ${plugin.id} ${what} error: ${message}`, {
      plugin: plugin.id,
      hook: what,
      ...(n ? { repeated: n } : {}),
    });
  }

  /**
   * Delivers queued hooks. A turn delivers at most {@link DRAIN_BATCH} of
   * them or runs {@link DRAIN_SLICE_MS}, then yields to I/O (a macrotask,
   * not a timer of the server's clock) so a long queue never holds up the
   * game.
   */
  #drain(): void {
    const started = performance.now();
    let delivered = 0;
    while (this.#queue.length && !this.#closed) {
      if (delivered >= DRAIN_BATCH || performance.now() - started > DRAIN_SLICE_MS) {
        setTimeout(() => this.#drain(), 0);
        return;
      }
      const { hook, args } = this.#queue.shift()!;
      delivered++;
      for (const plugin of this.#plugins) {
        if (!plugin.running) continue;
        const outcome = plugin.callHook(hook, (L) => {
          for (const a of args) pushValue(L, a);
          return args.length;
        });
        this.#after(plugin, hook, outcome);
      }
    }
    this.#draining = false;
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
    const core = this.#o.ctx.core;
    if (view.userId === null) return null;
    const user = core.users.get(view.userId);
    const command = hookCommand(view.cmd);
    if (!user || !command) return null;
    let userTable: ReturnType<typeof luaUser> | null = null;
    let fingerprint = "";
    for (const plugin of this.#plugins) {
      const rt = plugin.runtime;
      if (!rt) continue;
      if (!userTable) {
        userTable = luaUser(core, user);
        fingerprint = Object.values(userTable).join("\u0000");
      }
      const u = userTable;
      const outcome = plugin.callHook("on_before_command", (L) => {
        rt.pushCached(`user:${u.id}`, fingerprint, u);
        pushString(L, command.type);
        pushValue(L, command.data);
        return 3;
      }, 2);
      this.#after(plugin, "on_before_command", outcome);
      if (!outcome.ok || !outcome.value || outcome.value[0] !== false) continue;
      const reason = outcome.value[1];
      if (typeof reason === "string" && reason.trim()) return reason.slice(0, 200);
      return translate(user.locale, "plugin-refused");
    }
    return null;
  }
}
