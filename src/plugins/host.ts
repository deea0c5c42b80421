/**
 * The WebAssembly plugin host (spec 3 §3.3, §4.6, §8): finds `<id>.wasm`
 * files in `plugins_dir`, reads their capabilities, compiles them once into
 * the cache, runs each in its own child process and drives its state
 * (Loaded -> Enabled, Disabled, Error). Events come from the bus through one
 * reliable, bounded delivery per plugin (kept across a reload, so events
 * wait instead of being lost). Operators act through the `plugin.*`
 * operations (console, OpenUDS); state and figures are in `plugin
 * list|info`, the `runtime` report and `/health/ready`.
 *
 * This file is the lifecycle: every step (load, enable, disable, reload,
 * remove, stop) works on the same private state of each plugin and runs one
 * at a time per plugin. `host_context.ts` builds what host functions reach,
 * `registrations.ts` the routes, streams and handlers, `host_views.ts` what
 * operators see, `host_scan.ts` finds the files, `host_options.ts` holds
 * the bounds. The operations over it are in `ops_plugins.ts`.
 *
 * @module
 */

import type { Delivery } from "../events/mod.ts";
import type { Logger } from "../util/log.ts";
import { CompileCache } from "./compile/cache.ts";
import { ExtensionStore } from "./ext_store.ts";
import type { PluginSlot } from "./host_context.ts";
import { PluginNotFound, PluginStateError } from "./host_errors.ts";
import { childEnv, COMPILE_TIMEOUT_MS, type PluginHostOptions } from "./host_options.ts";
import { scanPlugins, scanPluginsSync } from "./host_scan.ts";
import { infoOf, type PluginSummary, statusOf, summaryOf } from "./host_views.ts";
import { loadSlot, newSlot } from "./host_load.ts";
import { NodeKey } from "./node_key.ts";
import { Registrations } from "./registrations.ts";
import type { RequestOutcome, StateChange } from "./runtime.ts";
import { Slots } from "./slots.ts";
import { STATE_LABELS } from "./state.ts";
import { programFile } from "../util/program_files.ts";

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
  readonly #runner = programFile("src/plugins/child/runner.ts").pathname;

  constructor(options: PluginHostOptions) {
    this.options = options;
    this.#log = options.log.child({ component: "plugins" });
    this.slots = new Slots(options.limits.max_event_concurrency);
    this.#cache = new CompileCache({
      root: options.cacheDir,
      deno: "deno",
      env: childEnv(this.options.env),
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
    const ids = scanPluginsSync(this.options.pluginsDir);
    if (!ids.length) this.#starting = false;
    return ids;
  }

  /** Ids of the plugin files in `plugins_dir`. */
  #scan(): Promise<string[]> {
    return scanPlugins(this.options.pluginsDir, this.#log);
  }

  #slot(id: string): PluginSlot {
    let slot = this.#plugins.get(id);
    if (!slot) {
      slot = newSlot(
        id,
        this.options,
        this.#log.child({ plugin: id }),
        this.slots,
        (change) => this.#changed(id, change),
      );
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
  #load(slot: PluginSlot): Promise<void> {
    return loadSlot(this, slot, { cache: this.#cache, runner: this.#runner });
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
    return [...this.#plugins.values()].sort((a, b) => a.id.localeCompare(b.id)).map(summaryOf);
  }

  /** One plugin in detail, or null. */
  info(id: string): Record<string, unknown> | null {
    const s = this.#plugins.get(id);
    return s ? infoOf(s, this.registrations) : null;
  }

  /** Figures for `runtime` and `/health/ready`. */
  status(): Record<string, unknown> {
    return statusOf([...this.#plugins.values()], this.#starting, this.slots);
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
      return summaryOf(slot);
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
      return summaryOf(slot);
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
      return summaryOf(slot);
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
      const summary = summaryOf(slot);
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
