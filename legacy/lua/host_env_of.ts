/**
 * What one Lua plugin's host functions reach (`host/env.ts`): the legacy
 * context, its actor for the operations layer (every capability but the
 * operator-only ones), its logger, its routes, a deferred reload and the
 * admin check of `phira.is_admin(request)`.
 *
 * @module
 */

import { type Actor, CAPABILITIES } from "../../src/ops/mod.ts";
import type { LogFields } from "../../src/util/log.ts";
import type { HostEnv } from "./host/env.ts";
import type { PluginHostOptions } from "./host_types.ts";
import type { LuaPlugin } from "./plugin.ts";

/** What a Lua plugin may do through the operations layer: everything but operator-only operations. */
export const LUA_CAPABILITIES = CAPABILITIES;

/** What the host lends each plugin's environment. */
export interface EnvHooks {
  /** Registers a route of the plugin; false when refused. */
  register(id: string, method: string, path: string, key: string): boolean;
  /** Stops and loads every plugin again. */
  reload(): void;
  /** Plugins running now. */
  enabled(): number;
}

/** The host environment of `plugin`. */
export function hostEnvOf(o: PluginHostOptions, plugin: LuaPlugin, hooks: EnvHooks): HostEnv {
  const ctx = o.ctx;
  const log = ctx.log.child({ plugin: plugin.id });
  const actor: Actor = { kind: "plugin", id: `lua:${plugin.id}`, capabilities: LUA_CAPABILITIES };
  return {
    pluginId: plugin.id,
    ctx,
    actor,
    log: (level, message, fields?: LogFields) => log[level](message, fields),
    routes: { register: hooks.register },
    reloadSoon: () => void queueMicrotask(() => hooks.reload()),
    admin: o.admin ?? (() => ({ ok: false, status: 403, error: "admin-disabled" })),
    enabledPlugins: hooks.enabled,
  };
}
