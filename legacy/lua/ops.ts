/**
 * The `plugin.*` operations (spec 3 §4.5; the placeholders of the
 * operations layer) over the Lua plugin host: list, info, enable, disable,
 * reload, remove (unload until the next reload) and call (a plugin's global
 * function with JSON arguments). Operator-only, as the placeholders were.
 *
 * @module
 */

import * as z from "../../src/util/zod.ts";
import { OpsError, p, type ServerOp, serverOp, type ServerOps } from "../../src/ops/mod.ts";
import type { LuaPluginHost } from "./host.ts";

/** The operations. */
export function pluginOps(host: LuaPluginHost): ServerOp[] {
  const known = (id: string) =>
    host.info(id) ?? (() => {
      throw new OpsError("NOT_FOUND", `no plugin with id ${id}`);
    })();
  return [
    serverOp({
      name: "plugin.list",
      summary: "Lua plugins in load order: manifest, state, hooks, routes",
      permission: "operator",
      run: () => ({
        plugins: host.list(),
        problems: host.problems().map((p) => ({ dir: p.dir, id: p.id, message: p.message })),
      }),
    }),
    serverOp({
      name: "plugin.info",
      summary: "one Lua plugin",
      permission: "operator",
      params: { name: p.text(128) },
      run: (a) => known(a.name),
    }),
    serverOp({
      name: "plugin.enable",
      summary: "start a Lua plugin (remembered across restarts)",
      permission: "operator",
      mutates: true,
      params: { name: p.text(128) },
      run: async (a) => {
        known(a.name);
        const failure = await host.enable(a.name);
        if (failure) throw new OpsError("INVALID_STATE", `plugin ${a.name} did not start: ${failure}`);
        return known(a.name);
      },
    }),
    serverOp({
      name: "plugin.disable",
      summary: "stop a Lua plugin and those depending on it (remembered across restarts)",
      permission: "operator",
      mutates: true,
      params: { name: p.text(128) },
      run: (a) => {
        known(a.name);
        return { disabled: host.disable(a.name) };
      },
    }),
    serverOp({
      name: "plugin.remove",
      summary: "stop a Lua plugin until the next reload (not remembered)",
      permission: "operator",
      mutates: true,
      params: { name: p.text(128) },
      run: (a) => {
        known(a.name);
        return { removed: host.disable(a.name, "removed until the next reload", false) };
      },
    }),
    serverOp({
      name: "plugin.reload",
      summary: "stop every Lua plugin and load them all again",
      permission: "operator",
      mutates: true,
      run: async () => {
        await host.reload();
        return { plugins: host.list() };
      },
    }),
    serverOp({
      name: "plugin.call",
      summary: "call a Lua plugin's global function with JSON arguments",
      permission: "operator",
      mutates: true,
      params: { name: p.text(128), method: p.text(128), args: z.optional(z.array(z.unknown()).check(z.maxLength(32))) },
      run: (a) => {
        known(a.name);
        const outcome = host.callFunction(a.name, a.method, a.args ?? []);
        if (!outcome.ok) throw new OpsError("INVALID_STATE", `${a.name}.${a.method} failed: ${outcome.message}`);
        return { result: outcome.value ?? null };
      },
    }),
  ];
}

/** Puts the plugin operations in place of the placeholders; returns the undo. */
export function installPluginOps(ops: ServerOps, host: LuaPluginHost): () => void {
  const mine = pluginOps(host);
  const before = mine.map((op) => ops.get(op.name)).filter((op) => op !== undefined);
  for (const op of mine) ops.replace(op, "legacy");
  return () => {
    for (const op of mine) ops.unregister(op.name);
    for (const op of before) ops.replace(op, "builtin");
  };
}
