/**
 * The WebAssembly plugin host (spec 3 §3.3, §4.6, §8): finds `<id>.wasm`
 * files in `plugins_dir`, reads their capabilities, compiles them once into
 * the cache, runs each in its own child process and drives its state
 * (Loaded → Enabled, Disabled, Error). Events come from the bus through one
 * reliable, bounded delivery per plugin (kept across a reload, so events
 * wait instead of being lost). Operators act through the `plugin.*`
 * operations (console, OpenUDS); state and figures are in `plugin
 * list|info`, the `runtime` report and `/health/ready`.
 *
 * This file is the lifecycle; `host_context.ts` builds what host functions
 * reach, `registrations.ts` the routes, streams and handlers.
 *
 * Over 300 lines on purpose: every lifecycle step (load, enable, disable,
 * reload, remove, stop) works on the same private state of each plugin and
 * must run one at a time per plugin; split apart they would need that state
 * exposed. The operations over it are in `ops_plugins.ts`.
 *
 * @module
 */

import type { Config } from "../config/mod.ts";
import type { Delivery, EventBus } from "../events/mod.ts";
import type { RouteRegistry, SseRegistry } from "../http/mod.ts";
import type { Capability, ServerOps } from "../ops/mod.ts";
import type { ServerCore } from "../server/mod.ts";
import type { Clock } from "../util/clock.ts";
import type { Logger } from "../util/log.ts";
import { CompileCache } from "./compile/cache.ts";
import { DOMAIN_KIND_OF, toPluginEvent } from "./events.ts";
import { ExtensionStore } from "./ext_store.ts";
import { buildContext, type PluginSlot } from "./host_context.ts";
import { dispatch, missingImports } from "./host/dispatch.ts";
import { PLUGIN_ID, readManifest } from "./manifest.ts";
import { NodeKey } from "./node_key.ts";
import { PluginProcess, type ProcessSpec } from "./process.ts";
import { type ConsoleCommands, Registrations } from "./registrations.ts";
import { InitTimeout, PluginRuntime, type RequestOutcome, type StateChange } from "./runtime.ts";
import { Slots } from "./slots.ts";
import { STATE_LABELS } from "./state.ts";

/** How long loading a plugin (process start, instantiation) may take; not counted against `init_timeout_ms`. */
export const LOAD_TIMEOUT_MS = 30_000;
/** Longest compile of one component. */
export const COMPILE_TIMEOUT_MS = 120_000;
/** V8 heap of a plugin child (MiB): the generated glue and message buffers; guest memory is `max_memory_mb`. */
export const CHILD_HEAP_MB = 128;
/** Wall-clock time a call may spend in host functions on top of its own budget. */
export const HOST_TIME_MS = 30_000;

/** What the host is built from. */
export interface PluginHostOptions {
  readonly pluginsDir: string;
  /** `<data_dir>/plugins`: configurations, files, extension data. */
  readonly dataDir: string;
  /** Compile cache root (`wasm_runtime.cache_dir`, default `<data_dir>/plugin-cache`). */
  readonly cacheDir: string;
  readonly limits: Config["wasm_runtime"];
  /** `service_secret_key` (the node key); null = crypto signing unavailable. */
  readonly secret: string | null;
  readonly ops: ServerOps;
  readonly bus: EventBus;
  readonly core: ServerCore;
  readonly routes: RouteRegistry;
  readonly streams: SseRegistry;
  /** Where handlers become console commands; null = operations only. */
  readonly commands?: ConsoleCommands | null;
  readonly clock: Clock;
  readonly log: Logger;
  /** Environment of child processes (PATH, HOME, DENO_DIR); default: those of this process. */
  readonly env?: Readonly<Record<string, string>>;
  /** Called when a plugin stops running (disabled, failed, removed): what it declared elsewhere goes. */
  readonly onPluginStopped?: (id: string) => void;
}

/** A plugin as `plugin list` shows it. */
export interface PluginSummary {
  readonly id: string;
  readonly name: string | null;
  readonly version: string | null;
  readonly state: string;
  readonly reason: string | null;
  readonly since: number;
  readonly capabilities: readonly Capability[];
}

/** Variables the plugin children inherit; everything else is cleared. */
const CHILD_ENV_KEYS = [
  "PATH",
  "HOME",
  "DENO_DIR",
  "XDG_CACHE_HOME",
  "TMPDIR",
  "DENO_CERT",
  "DENO_TLS_CA_STORE",
  "NODE_EXTRA_CA_CERTS",
  "HTTPS_PROXY",
  "HTTP_PROXY",
  "NO_PROXY",
  "https_proxy",
  "http_proxy",
  "no_proxy",
  "NPM_CONFIG_REGISTRY",
] as const;

/** Every plugin. */
export class PluginHost {
  readonly options: PluginHostOptions;
  readonly slots: Slots;
  readonly registrations: Registrations;
  readonly #cache: CompileCache;
  readonly #plugins = new Map<string, PluginSlot>();
  readonly #log: Logger;
  #ext: ExtensionStore | null = null;
  #nodeKey: Promise<NodeKey | null> | null = null;
  #starting = true;
  #stopping = false;
  readonly #runner = new URL("./child/runner.ts", import.meta.url).pathname;

  constructor(options: PluginHostOptions) {
    this.options = options;
    this.#log = options.log.child({ component: "plugins" });
    this.slots = new Slots(options.limits.max_event_concurrency);
    this.#cache = new CompileCache({
      root: options.cacheDir,
      deno: "deno",
      env: this.#env(),
      timeoutMs: COMPILE_TIMEOUT_MS,
      log: this.#log,
    });
    this.registrations = new Registrations({
      routes: options.routes,
      streams: options.streams,
      ops: options.ops as never,
      commands: options.commands ?? null,
      call: (plugin, method, args, opts) => this.call(plugin, method, args, opts),
    });
  }

  /** The extension data store (open after {@link start}). */
  get ext(): ExtensionStore {
    if (!this.#ext) throw new Error("the plugin host has not started");
    return this.#ext;
  }

  /** True until the plugins found at start-up have all been loaded (or failed). */
  get starting(): boolean {
    return this.#starting;
  }

  #env(): Record<string, string> {
    if (this.options.env) return { ...this.options.env };
    const env: Record<string, string> = {};
    // The TLS and proxy settings too: the compile child fetches npm packages on first use, and behind a
    // proxy with its own certificate authority (NODE_EXTRA_CA_CERTS, DENO_CERT) it could not reach the registry.
    for (const key of CHILD_ENV_KEYS) {
      const v = Deno.env.get(key);
      if (v !== undefined) env[key] = v;
    }
    return env;
  }

  /** Opens the stores and loads the plugins `ids` (default: every plugin in `plugins_dir`). */
  async start(ids?: readonly string[]): Promise<void> {
    await Deno.mkdir(this.options.dataDir, { recursive: true });
    this.#ext = await ExtensionStore.open(`${this.options.dataDir}/extensions.json`);
    const pruned = await this.#cache.prune();
    if (pruned) this.#log.info("old compiled plugins removed from the cache", { entries: pruned });
    try {
      const found = ids ?? await this.#scan();
      await Promise.all(found.map((id) => this.#lifecycle(id, () => this.#load(this.#slot(id)))));
    } finally {
      this.#starting = false;
    }
  }

  /**
   * The plugin files in `plugins_dir`, listed synchronously (a directory
   * listing, once at start): `starting` is false at once when there are none.
   */
  scanSync(): string[] {
    const ids: string[] = [];
    try {
      for (const item of Deno.readDirSync(this.options.pluginsDir)) {
        if (item.isFile && item.name.endsWith(".wasm") && PLUGIN_ID.test(item.name.slice(0, -5))) {
          ids.push(item.name.slice(0, -5));
        }
      }
    } catch {
      // No directory: no plugins (start() logs it).
    }
    if (!ids.length) this.#starting = false;
    return ids.sort();
  }

  /** Ids of the plugin files in `plugins_dir`. */
  async #scan(): Promise<string[]> {
    const ids: string[] = [];
    try {
      for await (const item of Deno.readDir(this.options.pluginsDir)) {
        if (!item.isFile || !item.name.endsWith(".wasm")) continue;
        const id = item.name.slice(0, -5);
        if (PLUGIN_ID.test(id)) ids.push(id);
        else this.#log.warn("plugin file ignored: its name is not a valid plugin id", { file: item.name });
      }
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
      this.#log.info("no plugin directory", { dir: this.options.pluginsDir });
    }
    return ids.sort();
  }

  #slot(id: string): PluginSlot {
    let slot = this.#plugins.get(id);
    if (!slot) {
      const log = this.#log.child({ plugin: id });
      slot = {
        id,
        file: `${this.options.pluginsDir}/${id}.wasm`,
        log,
        runtime: new PluginRuntime(id, {
          clock: this.options.clock,
          log,
          slots: this.slots,
          limits: {
            callMs: this.options.limits.call_timeout_ms,
            initMs: this.options.limits.init_timeout_ms,
            hostMs: HOST_TIME_MS,
          },
          onChange: (change) => this.#changed(id, change),
        }),
        manifest: null,
        info: null,
        sha256: null,
        compileMs: 0,
        loadMs: 0,
        facilities: null,
        delivery: null,
        queue: Promise.resolve(),
      };
      this.#plugins.set(id, slot);
    }
    return slot;
  }

  /** Runs lifecycle work of one plugin after the previous one finished. */
  #lifecycle<T>(id: string, work: () => Promise<T>): Promise<T> {
    const slot = this.#slot(id);
    const run = slot.queue.then(work);
    slot.queue = run.then(() => {}, () => {});
    return run;
  }

  /** Reads, compiles, starts and initializes a plugin (its state is Loaded). */
  async #load(slot: PluginSlot): Promise<void> {
    const { runtime, id } = slot;
    if (runtime.state === null) runtime.transition("loaded");
    // Durations reported in `plugin info` and the log are measured, not scheduled: the real clock.
    const started = performance.now();
    const fail = (reason: string) => {
      runtime.transition("load_failed", reason);
    };
    try {
      slot.manifest = await readManifest(this.options.pluginsDir, id);
    } catch (error) {
      return fail((error as Error).message);
    }
    let dir: string;
    try {
      const entry = await this.#cache.entryFor(slot.file);
      dir = entry.dir;
      slot.sha256 = entry.sha256;
      slot.compileMs = entry.compileMs;
    } catch (error) {
      return fail(`cannot load ${id}.wasm: ${(error as Error).message}`);
    }
    const loadStarted = performance.now();
    slot.facilities ??= await buildContext.facilities(this, slot);
    this.registrations.begin(id);
    const context = buildContext.hostContext(this, slot);
    let proc: PluginProcess;
    try {
      proc = await PluginProcess.start(this.#spec(dir), (key, name, args) =>
        dispatch(context, key, name, args, () => {
          runtime.counters.capability_refusals++;
        }), { clock: this.options.clock, log: slot.log, readyMs: LOAD_TIMEOUT_MS });
    } catch (error) {
      return fail(`cannot start ${id}: ${(error as Error).message}`);
    }
    const missing = missingImports(proc.imports);
    if (missing.length) {
      await proc.kill();
      return fail(`it imports functions this host does not provide: ${missing.slice(0, 5).join(", ")}`);
    }
    runtime.attach(proc);
    try {
      slot.info = await runtime.init();
    } catch (error) {
      await runtime.detach(false);
      slot.facilities.timers.clearAll();
      slot.facilities.tcp.closeAll();
      this.registrations.dropAll(id);
      runtime.transition(error instanceof InitTimeout ? "init_timeout" : "init_failed", (error as Error).message);
      return;
    }
    slot.loadMs = Math.round(performance.now() - loadStarted);
    runtime.transition("init_ok");
    this.registrations.commit(id);
    this.#subscribe(slot);
    slot.log.info("plugin ready", {
      name: String(slot.info?.name ?? id),
      version: String(slot.info?.version ?? ""),
      compile_ms: slot.compileMs,
      load_ms: slot.loadMs,
      total_ms: Math.round(performance.now() - started),
    });
  }

  #spec(dir: string): ProcessSpec {
    return {
      deno: "deno",
      runner: this.#runner,
      entryDir: dir,
      maxPages: this.options.limits.max_memory_mb * 16,
      heapMb: CHILD_HEAP_MB,
      stackBytes: this.options.limits.max_stack_bytes,
      env: this.#env(),
    };
  }

  #subscribe(slot: PluginSlot): void {
    if (slot.delivery) return;
    const kinds = (slot.manifest?.events ?? []).map((k) => DOMAIN_KIND_OF[k]);
    const addresses = slot.manifest?.capabilities.includes("admin") ?? false;
    const view = { addresses, nameOf: (id: number) => this.options.core.users.get(id)?.name ?? null };
    slot.delivery = this.options.bus.deliver(async (item) => {
      if (item.type !== "event") return;
      const event = toPluginEvent(item.event, view);
      if (event) await slot.runtime.deliver(event);
    }, { name: `plugin:${slot.id}`, kinds, capacity: this.options.limits.event_queue_capacity });
  }

  async #unsubscribe(slot: PluginSlot): Promise<void> {
    const delivery: Delivery | null = slot.delivery;
    slot.delivery = null;
    // Not awaited while a handler waits on the plugin that is being stopped: close() resolves after it returns.
    await delivery?.close();
  }

  /** Reacts to a state change: what a plugin that stops running leaves behind goes. */
  #changed(id: string, change: StateChange): void {
    if (change.to !== "error" && change.to !== "disabled" && change.to !== "removed") return;
    const slot = this.#plugins.get(id);
    if (!slot) return;
    this.registrations.dropAll(id);
    this.options.onPluginStopped?.(id);
    slot.facilities?.timers.clearAll();
    slot.facilities?.tcp.closeAll();
    void this.#unsubscribe(slot);
  }

  /** Stops a plugin's process (cleanup first when it was enabled; a call in progress finishes first when `finish`). */
  async #stopProcess(slot: PluginSlot, cleanup: boolean, finish = true): Promise<void> {
    await slot.runtime.detach(cleanup, finish);
    slot.facilities?.timers.clearAll();
    slot.facilities?.tcp.closeAll();
  }

  /** Every plugin. */
  list(): PluginSummary[] {
    return [...this.#plugins.values()].sort((a, b) => a.id.localeCompare(b.id)).map((s) => this.#summary(s));
  }

  #summary(s: PluginSlot): PluginSummary {
    return {
      id: s.id,
      name: typeof s.info?.name === "string" ? s.info.name : null,
      version: typeof s.info?.version === "string" ? s.info.version : null,
      state: s.runtime.state ? STATE_LABELS[s.runtime.state] : "Loaded",
      reason: s.runtime.reason,
      since: s.runtime.since,
      capabilities: s.manifest?.capabilities ?? [],
    };
  }

  /** One plugin in detail, or null. */
  info(id: string): Record<string, unknown> | null {
    const s = this.#plugins.get(id);
    if (!s) return null;
    return {
      ...this.#summary(s),
      author: typeof s.info?.author === "string" ? s.info.author : null,
      description: typeof s.info?.description === "string" ? s.info.description : null,
      file: s.file,
      sha256: s.sha256,
      capabilities_file: s.manifest?.sidecar ?? false,
      events: s.manifest?.events ?? [],
      pid: s.runtime.process?.pid ?? null,
      compile_ms: s.compileMs,
      load_ms: s.loadMs,
      busy: s.runtime.busy,
      waiting: s.runtime.waiting,
      queue: s.delivery?.status() ?? null,
      counters: { ...s.runtime.counters },
      timers: s.facilities?.timers.size ?? 0,
      sockets: s.facilities?.tcp.size ?? 0,
      ...this.registrations.list(s.id),
    };
  }

  /** Figures for `runtime` and `/health/ready`. */
  status(): Record<string, unknown> {
    const counts = { loaded: 0, enabled: 0, disabled: 0, error: 0 };
    let overflowed = 0;
    for (const s of this.#plugins.values()) {
      if (s.runtime.state) counts[s.runtime.state]++;
      overflowed += s.delivery?.status().overflowed ?? 0;
    }
    return {
      starting: this.#starting,
      plugins: this.#plugins.size,
      ...counts,
      busy: this.slots.busy,
      max_event_concurrency: this.slots.capacity,
      events_overflowed: overflowed,
      quarantined: [...this.#plugins.values()].filter((s) => s.runtime.state === "error").map((s) => ({
        id: s.id,
        reason: s.runtime.reason,
      })),
    };
  }

  #known(id: string): PluginSlot {
    const s = this.#plugins.get(id);
    if (!s) throw new PluginNotFound(id);
    return s;
  }

  /** Enables a disabled or quarantined plugin (loads and initializes it again). */
  enable(id: string): Promise<PluginSummary> {
    const slot = this.#known(id);
    return this.#lifecycle(id, async () => {
      if (!slot.runtime.transition("enable")) {
        throw new PluginStateError(
          `plugin ${id} is ${STATE_LABELS[slot.runtime.state!]}; only a disabled or failed plugin can be enabled`,
        );
      }
      await this.#load(slot);
      return this.#summary(slot);
    });
  }

  /** Disables a plugin: `cleanup`, process stopped, routes, streams and handlers removed. */
  disable(id: string): Promise<PluginSummary> {
    const slot = this.#known(id);
    return this.#lifecycle(id, async () => {
      const wasEnabled = slot.runtime.state === "enabled";
      if (!slot.runtime.transition("disable", "disabled by an operator")) {
        throw new PluginStateError(`plugin ${id} is ${STATE_LABELS[slot.runtime.state!]} already`);
      }
      await this.#stopProcess(slot, wasEnabled);
      return this.#summary(slot);
    });
  }

  /** Reloads one plugin: the file is read again (compiled again if it changed); routes keep serving meanwhile. */
  reload(id: string): Promise<PluginSummary> {
    const slot = this.#known(id);
    return this.#lifecycle(id, async () => {
      const wasEnabled = slot.runtime.state === "enabled";
      slot.runtime.transition("reload");
      await this.#stopProcess(slot, wasEnabled);
      await this.#load(slot);
      return this.#summary(slot);
    });
  }

  /** Reloads every plugin; files added since are loaded, files gone are removed. */
  async reloadAll(): Promise<PluginSummary[]> {
    const ids = new Set(await this.#scan());
    const work: Promise<unknown>[] = [];
    for (const id of this.#plugins.keys()) {
      if (!ids.has(id)) work.push(this.#forget(id));
    }
    for (const id of ids) {
      work.push(this.#plugins.has(id) ? this.reload(id) : this.#lifecycle(id, () => this.#load(this.#slot(id))));
    }
    await Promise.allSettled(work);
    return this.list();
  }

  /** Unloads a plugin and sets its files aside (`<id>.wasm.removed`); its data directory stays. */
  remove(id: string): Promise<PluginSummary> {
    const slot = this.#known(id);
    return this.#lifecycle(id, async () => {
      const summary = this.#summary(slot);
      await this.#forgetNow(slot);
      for (const suffix of [".wasm", ".capabilities.json"]) {
        const path = `${this.options.pluginsDir}/${id}${suffix}`;
        await Deno.rename(path, `${path}.removed`).catch(() => {});
      }
      return { ...summary, state: "Removed" };
    });
  }

  #forget(id: string): Promise<void> {
    return this.#lifecycle(id, () => this.#forgetNow(this.#known(id)));
  }

  async #forgetNow(slot: PluginSlot): Promise<void> {
    const wasEnabled = slot.runtime.state === "enabled";
    slot.runtime.transition("remove");
    await this.#stopProcess(slot, wasEnabled);
    this.#plugins.delete(slot.id);
  }

  /** Calls a plugin's `on-api`. */
  call(
    id: string,
    method: string,
    args: readonly unknown[],
    options: { nested?: boolean } = {},
  ): Promise<RequestOutcome> {
    const slot = this.#plugins.get(id);
    if (!slot) return Promise.resolve({ ok: false, error: `no plugin ${id}`, unavailable: true });
    return slot.runtime.request(method, args, options);
  }

  /** Stops every plugin (cleanup, then the processes) and flushes the stores. */
  async stop(): Promise<void> {
    if (this.#stopping) return;
    this.#stopping = true;
    await Promise.allSettled([...this.#plugins.values()].map(async (slot) => {
      // The process first (a busy one is killed: shutdown does not wait on plugins); a handler waiting on it ends.
      await this.#stopProcess(slot, slot.runtime.state === "enabled", false);
      await this.#unsubscribe(slot);
      await slot.facilities?.config.flush();
    }));
    await this.#ext?.flush();
  }

  /** The node key, derived once on first use (null without a service secret). */
  nodeKey(): Promise<NodeKey | null> {
    const secret = this.options.secret;
    this.#nodeKey ??= secret ? NodeKey.fromSecret(secret) : Promise.resolve(null);
    return this.#nodeKey;
  }
}

/** No plugin of that id. */
export class PluginNotFound extends Error {
  constructor(id: string) {
    super(`no plugin ${id}`);
    this.name = "PluginNotFound";
  }
}

/** The plugin's state does not allow the action. */
export class PluginStateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PluginStateError";
  }
}
