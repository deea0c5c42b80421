/**
 * Loading one plugin (spec 3 §3.3): its capabilities read, the component
 * compiled (or taken from the cache), the child process started with the
 * configured memory and stack, imports checked, `init` called within its
 * budget, then its events subscribed. A failure at any step leaves the
 * plugin in Error with the reason and nothing registered.
 *
 * @module
 */

import type { CompileCache } from "./compile/cache.ts";
import { DOMAIN_KIND_OF, toPluginEvent } from "./events.ts";
import { buildContext, type PluginSlot } from "./host_context.ts";
import { dispatch, missingImports } from "./host/dispatch.ts";
import type { PluginHost } from "./host.ts";
import { CHILD_HEAP_MB, childEnv, HOST_TIME_MS, LOAD_TIMEOUT_MS, type PluginHostOptions } from "./host_options.ts";
import { readManifest } from "./manifest.ts";
import { PluginProcess } from "./process.ts";
import type { ProcessSpec } from "./process_types.ts";
import { InitTimeout, PluginRuntime, type StateChange } from "./runtime.ts";
import type { Slots } from "./slots.ts";
import type { Logger } from "../util/log.ts";

/** What the host lends a load: its compile cache and the child runner's path. */
export interface LoadUsing {
  readonly cache: CompileCache;
  readonly runner: string;
}

/** Reads, compiles, starts and initializes a plugin (its state is Loaded). */
export async function loadSlot(host: PluginHost, slot: PluginSlot, using: LoadUsing): Promise<void> {
  const { runtime, id } = slot;
  if (runtime.state === null) runtime.transition("loaded");
  // Durations reported in `plugin info` and the log are measured, not scheduled: the real clock.
  const started = performance.now();
  const fail = (reason: string) => {
    runtime.transition("load_failed", reason);
  };
  try {
    slot.manifest = await readManifest(host.options.pluginsDir, id);
  } catch (error) {
    return fail((error as Error).message);
  }
  let dir: string;
  try {
    const entry = await using.cache.entryFor(slot.file);
    dir = entry.dir;
    slot.sha256 = entry.sha256;
    slot.compileMs = entry.compileMs;
  } catch (error) {
    return fail(`cannot load ${id}.wasm: ${(error as Error).message}`);
  }
  const loadStarted = performance.now();
  slot.facilities ??= await buildContext.facilities(host, slot);
  host.registrations.begin(id);
  const context = buildContext.hostContext(host, slot);
  let proc: PluginProcess;
  try {
    proc = await PluginProcess.start(
      processSpec(host.options, using.runner, dir),
      (key, name, args) =>
        dispatch(context, key, name, args, () => {
          runtime.counters.capability_refusals++;
        }),
      { clock: host.options.clock, log: slot.log, readyMs: LOAD_TIMEOUT_MS },
    );
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
    host.registrations.dropAll(id);
    runtime.transition(error instanceof InitTimeout ? "init_timeout" : "init_failed", (error as Error).message);
    return;
  }
  slot.loadMs = Math.round(performance.now() - loadStarted);
  runtime.transition("init_ok");
  host.registrations.commit(id);
  subscribeSlot(host.options, slot);
  slot.log.info("plugin ready", {
    name: String(slot.info?.name ?? id),
    version: String(slot.info?.version ?? ""),
    compile_ms: slot.compileMs,
    load_ms: slot.loadMs,
    total_ms: Math.round(performance.now() - started),
  });
}

/** How the child process of a plugin compiled into `dir` is started. */
function processSpec(options: PluginHostOptions, runner: string, dir: string): ProcessSpec {
  return {
    deno: "deno",
    runner,
    entryDir: dir,
    maxPages: options.limits.max_memory_mb * 16,
    heapMb: CHILD_HEAP_MB,
    stackBytes: options.limits.max_stack_bytes,
    env: childEnv(options.env),
  };
}

/** Delivers the bus events the plugin asked for to it (one reliable, bounded delivery, kept across reloads). */
function subscribeSlot(options: PluginHostOptions, slot: PluginSlot): void {
  if (slot.delivery) return;
  const kinds = (slot.manifest?.events ?? []).map((k) => DOMAIN_KIND_OF[k]);
  const addresses = slot.manifest?.capabilities.includes("admin") ?? false;
  const view = { addresses, nameOf: (id: number) => options.core.users.get(id)?.name ?? null };
  slot.delivery = options.bus.deliver(async (item) => {
    if (item.type !== "event") return;
    const event = toPluginEvent(item.event, view);
    if (event) await slot.runtime.deliver(event);
  }, { name: `plugin:${slot.id}`, kinds, capacity: options.limits.event_queue_capacity });
}

/** A new slot for plugin `id`: not loaded yet, its runtime bound to the host's limits and event slots. */
export function newSlot(
  id: string,
  options: PluginHostOptions,
  log: Logger,
  slots: Slots,
  onChange: (change: StateChange) => void,
): PluginSlot {
  return {
    id,
    file: `${options.pluginsDir}/${id}.wasm`,
    log,
    runtime: new PluginRuntime(id, {
      clock: options.clock,
      log,
      slots,
      limits: {
        callMs: options.limits.call_timeout_ms,
        initMs: options.limits.init_timeout_ms,
        hostMs: HOST_TIME_MS,
      },
      onChange,
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
}
