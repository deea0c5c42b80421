/**
 * What plugins register in the rest of the server (spec 1 §4.3 rules 1-3,
 * spec 3 §4.6): HTTP routes, SSE streams and handlers (operations and
 * console commands). Each registration remembers its plugin and the
 * plugin's load generation: a reload keeps the old ones serving until the
 * new `init` has run, then drops those it did not register again, so routes
 * keep working across a reload; disabling, removing or quarantining a plugin
 * drops all of its. When a plugin's stream at `/api/rooms/listen` goes, the
 * host's own profile R stream comes back.
 *
 * Route requests call `on-api(<path as registered>, [path params..., body?])`
 * (extended.md §2.18): `ok` answers 200 with the JSON value, `error` 500
 * `{"error": ...}`. Streams call `on-api("sse:translate", [{"event_type",
 * "data"}])` once per event however many clients listen, and send the
 * object returned (event name from its `type`, default `event`) or skip the
 * event on null.
 *
 * @module
 */

import {
  BASIC_STREAM_PATH,
  normalizeRoutePath,
  type PluginReply,
  type PluginRequest,
  registerBasicStream,
  type RouteRegistry,
  type SseInput,
  type SseOutput,
  type SseRegistry,
} from "../http/mod.ts";
import { defineOp, OP_NAME, type Operation, type Ops, OpsError } from "../ops/mod.ts";
import * as z from "../util/zod.ts";
import type { HandlerDescriptor } from "./facilities.ts";
import { toJsonValue } from "./json_value.ts";
import { type ConsoleCommands, type PluginCaller, renderLines } from "./registration_types.ts";

interface Registered {
  readonly generation: number;
  readonly remove: () => void;
}

interface PluginRegistrations {
  generation: number;
  readonly routes: Map<string, Registered>;
  readonly streams: Map<string, Registered>;
  readonly handlers: Map<string, Registered & { readonly descriptor: HandlerDescriptor }>;
}

/** Keeps every plugin's routes, streams and handlers. */
export class Registrations {
  readonly #routes: RouteRegistry;
  readonly #streams: SseRegistry;
  readonly #ops: Ops<unknown>;
  readonly #commands: ConsoleCommands | null;
  readonly #call: PluginCaller;
  readonly #byPlugin = new Map<string, PluginRegistrations>();

  constructor(deps: {
    routes: RouteRegistry;
    streams: SseRegistry;
    ops: Ops<unknown>;
    commands: ConsoleCommands | null;
    call: PluginCaller;
  }) {
    this.#routes = deps.routes;
    this.#streams = deps.streams;
    this.#ops = deps.ops;
    this.#commands = deps.commands;
    this.#call = deps.call;
  }

  #of(plugin: string): PluginRegistrations {
    let r = this.#byPlugin.get(plugin);
    if (!r) {
      r = { generation: 0, routes: new Map(), streams: new Map(), handlers: new Map() };
      this.#byPlugin.set(plugin, r);
    }
    return r;
  }

  /** Starts a new load generation of `plugin` (before its `init`). */
  begin(plugin: string): void {
    this.#of(plugin).generation++;
  }

  /** After a successful `init`: drops what the previous generation registered and this one did not. */
  commit(plugin: string): void {
    const r = this.#of(plugin);
    for (const table of [r.routes, r.streams, r.handlers] as Map<string, Registered>[]) {
      for (const [key, entry] of table) {
        if (entry.generation < r.generation) {
          entry.remove();
          table.delete(key);
        }
      }
    }
    this.#restoreBasicStream();
  }

  /** Drops everything of `plugin` (disabled, removed, quarantined). */
  dropAll(plugin: string): void {
    const r = this.#byPlugin.get(plugin);
    if (!r) return;
    for (const table of [r.routes, r.streams, r.handlers] as Map<string, Registered>[]) {
      for (const entry of table.values()) entry.remove();
      table.clear();
    }
    this.#restoreBasicStream();
  }

  /** What `plugin` has registered. */
  list(plugin: string): { routes: string[]; streams: string[]; handlers: HandlerDescriptor[] } {
    const r = this.#byPlugin.get(plugin);
    return {
      routes: [...(r?.routes.keys() ?? [])],
      streams: [...(r?.streams.keys() ?? [])],
      handlers: [...(r?.handlers.values() ?? [])].map((h) => h.descriptor),
    };
  }

  /** Registers a route (RangeError when the path is refused); returns the normalized pattern. */
  route(plugin: string, path: string): string {
    const r = this.#of(plugin);
    // The plugin matches on the path as it registered it (with the leading "/" added).
    const method = path.trim().startsWith("/") ? path.trim() : `/${path.trim()}`;
    const pattern = this.#routes.register(path, (req) => this.#serveRoute(plugin, method, req), plugin);
    const remove = () => {
      const current = this.#routes.list().find((x) => x.pattern === pattern);
      if (current?.owner === plugin) this.#routes.unregister(pattern);
    };
    r.routes.set(pattern, { generation: r.generation, remove });
    return pattern;
  }

  async #serveRoute(plugin: string, method: string, req: PluginRequest): Promise<PluginReply> {
    const args: unknown[] = req.params.map((p) => toJsonValue(p));
    if (req.body !== undefined) args.push(toJsonValue(req.body));
    const out = await this.#call(plugin, method, args);
    if (out.ok) return { ok: true, value: out.value };
    return { ok: false, error: out.error, ...(out.unavailable ? { status: 503 } : {}) };
  }

  /** The plugin that registered handler `method`, or null. */
  handlerOwner(method: string): string | null {
    for (const [plugin, r] of this.#byPlugin) if (r.handlers.has(method)) return plugin;
    return null;
  }

  /**
   * Registers a stream (RangeError when refused); returns its path. `ready`
   * (default true) sends `ready` first; `keepAlive` `event` sends
   * `keepalive` events (profile R) instead of comments.
   */
  stream(
    plugin: string,
    path: string,
    eventTypes: readonly string[],
    style: { ready?: boolean; keepAlive?: "comment" | "event" } = {},
  ): string {
    const r = this.#of(plugin);
    // One translation per event however many connections carry it: keyed by the event's payload object.
    const memo = new WeakMap<object, Promise<SseOutput | null>>();
    const translate = (input: SseInput): Promise<SseOutput | null> => {
      let out = memo.get(input.data);
      if (!out) {
        out = this.#translate(plugin, input);
        memo.set(input.data, out);
      }
      return out;
    };
    const registered = this.#streams.register({
      path,
      events: eventTypes,
      translate,
      owner: plugin,
      ...(style.ready !== undefined ? { ready: style.ready } : {}),
      ...(style.keepAlive ? { keepAlive: style.keepAlive } : {}),
    });
    const remove = () => {
      if (this.#streams.get(registered)?.owner === plugin) this.#streams.unregister(registered);
    };
    r.streams.set(registered, { generation: r.generation, remove });
    return registered;
  }

  async #translate(plugin: string, input: SseInput): Promise<SseOutput | null> {
    const arg = toJsonValue({ event_type: input.event_type, data: JSON.stringify(input.data) });
    const out = await this.#call(plugin, "sse:translate", [arg]);
    if (!out.ok) throw new Error(out.error);
    const value = out.value;
    if (value === null || value === undefined) return null;
    if (typeof value !== "object" || Array.isArray(value)) {
      throw new Error("sse:translate must answer null or an object");
    }
    const type = (value as { type?: unknown }).type;
    return { event: typeof type === "string" && type ? type : "event", data: value };
  }

  /** Registers a handler: an operation named after it and, when a console is attached, a console command. */
  handler(plugin: string, descriptor: HandlerDescriptor): void {
    const r = this.#of(plugin);
    const method = descriptor.method;
    if (!OP_NAME.test(method)) {
      throw new RangeError(`handler method "${method}" must be dotted lower-case words (like weather.report)`);
    }
    const existing = r.handlers.get(method);
    if (!existing && this.#ops.has(method)) throw new RangeError(`the operation "${method}" exists already`);
    existing?.remove();
    r.handlers.delete(method);
    const op: Operation<unknown> = defineOp({
      name: method,
      summary: `${descriptor.description || "plugin handler"} (plugin ${plugin})`.slice(0, 200),
      permission: "plugin.call",
      mutates: true,
      params: { args: z._default(z.array(z.unknown()).check(z.maxLength(64)), []) },
      run: async (a, call) => {
        const nested = call.actor.kind === "plugin";
        const out = await this.#call(plugin, method, a.args.map(toJsonValue), { nested });
        if (out.ok) return out.value;
        throw new OpsError(out.unavailable ? "UNAVAILABLE" : "INTERNAL", out.error);
      },
    });
    const removeOp = this.#ops.register(op, plugin);
    let removeCommand = () => {};
    const words = method.split(".");
    if (this.#commands && words.length <= 3) {
      try {
        removeCommand = this.#commands.add({
          name: words.join(" "),
          help: `${descriptor.description || "plugin command"} (plugin ${plugin})`,
          run: async (args) => {
            const out = await this.#call(plugin, method, args.map((w) => toJsonValue(w)));
            if (!out.ok) throw new OpsError(out.unavailable ? "UNAVAILABLE" : "INTERNAL", out.error);
            return renderLines(out.value);
          },
        });
      } catch {
        // A console command of that name exists: the handler stays reachable as `op <method>`.
      }
    }
    r.handlers.set(method, {
      generation: r.generation,
      descriptor,
      remove: () => {
        removeOp();
        removeCommand();
      },
    });
  }

  /** Removes a handler of `plugin`; false when it has none of that name. */
  unhandle(plugin: string, method: string): boolean {
    const r = this.#byPlugin.get(plugin);
    const entry = r?.handlers.get(method);
    if (!entry) return false;
    entry.remove();
    r!.handlers.delete(method);
    return true;
  }

  /** Removes a route or stream of `plugin` by path; false when it has none there. */
  unregisterPath(plugin: string, kind: "route" | "stream", path: string): boolean {
    const r = this.#byPlugin.get(plugin);
    const table = kind === "route" ? r?.routes : r?.streams;
    const key = normalizeRoutePath(path);
    const entry = table?.get(key);
    if (!entry) return false;
    entry.remove();
    table!.delete(key);
    this.#restoreBasicStream();
    return true;
  }

  #restoreBasicStream(): void {
    if (!this.#streams.get(BASIC_STREAM_PATH)) registerBasicStream(this.#streams);
  }
}
