/**
 * The small books the Lua plugin host keeps: the route keys each plugin
 * registered (so that `plugin.info` lists them and stopping a plugin drops
 * them), how often each plugin's hook failed (a failing telemetry hook
 * must not flood the log: the first failure and every hundredth are
 * logged, with the count), and each plugin's overruns of its limits within
 * the last hour (`lua_max_overruns` of them quarantine it; a state holding
 * more than `lua_state_memory_mb` stops it at once).
 *
 * @module
 */

import type { Logger } from "../../src/util/log.ts";
import type { PluginRouteTable } from "./host_types.ts";
import type { LuaPlugin } from "./plugin.ts";
import type { FailureKind } from "./runtime_types.ts";

const HOUR_MS = 3_600_000;

/** The routes of the legacy HTTP server, with the keys each plugin owns. */
export class OwnedRoutes {
  readonly #table: PluginRouteTable;
  readonly #keys = new Map<string, Set<string>>();

  constructor(table: PluginRouteTable) {
    this.#table = table;
  }

  /** Registers a route of `id`; false when the table refuses it. */
  register(id: string, method: string, path: string, key: string): boolean {
    if (!this.#table.register(id, method, path, key)) return false;
    let set = this.#keys.get(id);
    if (!set) this.#keys.set(id, set = new Set());
    set.add(key);
    return true;
  }

  /** The route keys `id` registered. */
  keys(id: string): ReadonlySet<string> | undefined {
    return this.#keys.get(id);
  }

  /** Removes every route of `id`. */
  drop(id: string): void {
    this.#table.removeOwner(id);
    this.#keys.delete(id);
  }
}

/** Failures logged per plugin and hook: the first, then one in a hundred. */
export class FailureLog {
  readonly #log: Logger;
  readonly #counts = new Map<string, number>();

  constructor(log: Logger) {
    this.#log = log;
  }

  /** Counts a failure of `what` (a hook, a route, a function) of plugin `id`, logging it when due. */
  log(id: string, what: string, message: string): void {
    const key = `${id}\u0000${what}`;
    const n = this.#counts.get(key) ?? 0;
    this.#counts.set(key, n + 1);
    if (n % 100 !== 0) return;
    this.#log.error(`Plugin ${id} ${what} error: ${message}`, {
      plugin: id,
      hook: what,
      ...(n ? { repeated: n } : {}),
    });
  }
}

/**
 * Why a failed call stops its plugin, or null: a state holding too much
 * (`oversized`) is dropped at once, which frees it; an overrun of the
 * instruction or per-call memory limit is counted, and the `maxOverruns`th
 * within an hour quarantines the plugin.
 */
export function stopReason(
  plugin: LuaPlugin,
  outcome: { readonly kind: FailureKind; readonly message: string },
  now: number,
  maxOverruns: number,
): string | null {
  if (outcome.kind === "oversized") return `stopped: ${outcome.message}`;
  if (outcome.kind !== "budget" && outcome.kind !== "memory") return null;
  plugin.overruns = [...plugin.overruns.filter((t) => t > now - HOUR_MS), now];
  const n = plugin.overruns.length;
  return n >= maxOverruns
    ? `quarantined after ${n} overruns of its limits within an hour (last: ${outcome.message})`
    : null;
}
