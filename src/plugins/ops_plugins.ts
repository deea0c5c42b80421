/**
 * The operations of the plugin host (spec 3 §4.5 `plugin.*`, §4.6, §4.9):
 * operators manage plugins (`plugin.list|info|enable|disable|remove|reload`),
 * anyone with `plugin.call` calls a plugin's `on-api` (`plugin.call`), and
 * plugins register HTTP routes and SSE streams (`http.register_route`,
 * `sse.register_stream`, capability `plugin.register`: serving on the
 * server's own port is registering an extension point; the `http`
 * capability is for reaching out to the network). They replace the
 * placeholders of the operations layer, so the console and OpenUDS reach
 * them as they are.
 *
 * @module
 */

import * as z from "../util/zod.ts";
import { type Actor, OpsError, p, type ServerOp, serverOp } from "../ops/mod.ts";
import type { PluginHost } from "./host.ts";
import { PluginNotFound, PluginStateError } from "./host_errors.ts";
import { toJsonValue } from "./json_value.ts";

/** Maps the host's errors to operation errors. */
export function asOpsError(error: unknown): never {
  if (error instanceof OpsError) throw error;
  if (error instanceof PluginNotFound) throw new OpsError("NOT_FOUND", error.message);
  if (error instanceof PluginStateError) throw new OpsError("INVALID_STATE", error.message);
  if (error instanceof RangeError) throw new OpsError("INVALID_ARGUMENT", error.message);
  throw error;
}

async function guard<T>(work: () => Promise<T> | T): Promise<T> {
  try {
    return await work();
  } catch (error) {
    return asOpsError(error);
  }
}

/** The plugin a registration is for: a plugin registers for itself; an operator names one. */
export function pluginOf(actor: Actor, named: string | undefined, host: PluginHost): string {
  if (actor.kind === "plugin") {
    if (named !== undefined && named !== actor.id) {
      throw new OpsError("FORBIDDEN", `plugin ${actor.id} may not register for plugin ${named}`);
    }
    return actor.id;
  }
  if (!named) throw new OpsError("INVALID_ARGUMENT", "plugin: required (which plugin serves it)");
  if (!host.list().some((x) => x.id === named)) throw new OpsError("NOT_FOUND", `no plugin ${named}`);
  return named;
}

const name = () => p.text(64);

/** `plugin.*`, `http.register_route`, `sse.register_stream` and their removals. */
export function pluginOps(host: PluginHost): ServerOp[] {
  return [
    serverOp({
      name: "plugin.list",
      summary: "loaded plugins with their state",
      permission: "operator",
      run: () => ({ plugins: host.list() }),
    }),
    serverOp({
      name: "plugin.info",
      summary: "one plugin's manifest, state, queue and registrations",
      permission: "operator",
      params: { name: name() },
      run: (a) => host.info(a.name) ?? asOpsError(new PluginNotFound(a.name)),
    }),
    serverOp({
      name: "plugin.enable",
      summary: "enable a disabled or failed plugin (loads and initializes it)",
      permission: "operator",
      mutates: true,
      params: { name: name() },
      run: (a) => guard(() => host.enable(a.name)),
    }),
    serverOp({
      name: "plugin.disable",
      summary: "disable a plugin: cleanup, process stopped, routes and streams removed",
      permission: "operator",
      mutates: true,
      params: { name: name() },
      run: (a) => guard(() => host.disable(a.name)),
    }),
    serverOp({
      name: "plugin.remove",
      summary: "unload a plugin and set its files aside (<id>.wasm.removed)",
      permission: "operator",
      mutates: true,
      params: { name: name() },
      run: (a) => guard(() => host.remove(a.name)),
    }),
    serverOp({
      name: "plugin.reload",
      summary: "reload one plugin, or every plugin (new files loaded, missing ones removed)",
      permission: "operator",
      mutates: true,
      params: { name: z.optional(name()) },
      run: (a) =>
        guard(async () => a.name ? { plugins: [await host.reload(a.name)] } : { plugins: await host.reloadAll() }),
    }),
    serverOp({
      name: "plugin.call",
      summary: "call a plugin's on-api method",
      permission: "plugin.call",
      mutates: true,
      params: { name: name(), method: p.text(128), args: z._default(z.array(z.unknown()).check(z.maxLength(64)), []) },
      run: async (a, call) => {
        if (!host.list().some((x) => x.id === a.name)) throw new OpsError("NOT_FOUND", `no plugin ${a.name}`);
        const out = await host.call(a.name, a.method, a.args.map(toJsonValue), {
          nested: call.actor.kind === "plugin",
        });
        if (out.ok) return out.value;
        throw new OpsError(out.unavailable ? "UNAVAILABLE" : "INTERNAL", out.error);
      },
    }),
    serverOp({
      name: "http.register_route",
      summary: "serve a path with a plugin's on-api (any method; {p}, <p> or :p parameters)",
      permission: "plugin.register",
      mutates: true,
      params: { path: p.text(256), plugin: z.optional(name()) },
      run: (a, { actor }) => guard(() => ({ path: host.registrations.route(pluginOf(actor, a.plugin, host), a.path) })),
    }),
    serverOp({
      name: "http.unregister_route",
      summary: "stop serving a plugin route",
      permission: "plugin.register",
      mutates: true,
      params: { path: p.text(256), plugin: z.optional(name()) },
      run: (a, { actor }) =>
        guard(() => ({ removed: host.registrations.unregisterPath(pluginOf(actor, a.plugin, host), "route", a.path) })),
    }),
    serverOp({
      name: "sse.register_stream",
      summary: "serve an SSE stream of events translated by a plugin (sse:translate)",
      permission: "plugin.register",
      mutates: true,
      params: {
        path: p.text(256),
        plugin: z.optional(name()),
        event_types: z._default(z.array(z.string().check(z.maxLength(64))).check(z.maxLength(32)), []),
        ready: z._default(z.boolean(), true),
        keepalive: z._default(z.enum(["comment", "event"], { error: "expected comment or event" }), "comment"),
      },
      run: (a, { actor }) =>
        guard(() => ({
          path: host.registrations.stream(pluginOf(actor, a.plugin, host), a.path, a.event_types, {
            ready: a.ready,
            keepAlive: a.keepalive,
          }),
        })),
    }),
    serverOp({
      name: "sse.unregister_stream",
      summary: "stop serving a plugin stream",
      permission: "plugin.register",
      mutates: true,
      params: { path: p.text(256), plugin: z.optional(name()) },
      run: (a, { actor }) =>
        guard(() => ({
          removed: host.registrations.unregisterPath(pluginOf(actor, a.plugin, host), "stream", a.path),
        })),
    }),
  ];
}
