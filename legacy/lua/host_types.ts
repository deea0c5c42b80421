/**
 * What the Lua plugin host is built from and what it shows operators
 * (`plugin.list`, `plugin.info`, `/admin/plugins`).
 *
 * @module
 */

import type { LegacyContext } from "../context.ts";
import type { PluginRoot } from "./discover.ts";
import type { HostEnv } from "./host/env.ts";
import type { LuaPlugin } from "./plugin.ts";
import type { CallLimits } from "./runtime.ts";

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

/** A plugin as operators see it, with the route keys it registered. */
export function infoOf(p: LuaPlugin, routes: ReadonlySet<string> | undefined): PluginInfo {
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
    routes: [...(routes ?? [])].sort(),
    overruns: p.overruns.length,
  };
}
