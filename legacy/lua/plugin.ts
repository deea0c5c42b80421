/**
 * One Lua plugin: its manifest, its own Lua state while it runs, and its
 * state in the sense of spec 3 §3.3 -- `loaded` (found, not started),
 * `enabled` (its script ran and `on_enable` succeeded), `disabled` (by its
 * manifest or an operator), `error` (it failed to start, a dependency is
 * missing, or it overran its limits too often: quarantined until enabled
 * again). Every call into it goes through {@link LuaPlugin.call}, which
 * counts overruns of the instruction budget and memory limit; the host
 * decides what repeated overruns mean.
 *
 * @module
 */

import type { FoundPlugin } from "./discover.ts";
import { lua, luaBytes, type LuaState } from "./fengari.ts";
import { installHostTable } from "./host/table.ts";
import type { HostEnv } from "./host/env.ts";
import { ROUTES_KEY } from "./host/server.ts";
import { type CallLimits, type CallOutcome, LuaLoadError, LuaRuntime } from "./runtime.ts";
import { pushValue, readValue } from "./values.ts";

/** A plugin's state (spec 3 §3.3). */
export type PluginState = "loaded" | "enabled" | "disabled" | "error";

/** The hooks a plugin may define (spec 3 §4.8; peers note §2.4). */
export const HOOKS = [
  "on_enable",
  "on_disable",
  "on_user_join",
  "on_user_leave",
  "on_before_command",
  "on_user_kick",
  "on_user_ban",
  "on_user_unban",
  "on_room_create",
  "on_room_destroy",
] as const;

/** A hook name. */
export type HookName = (typeof HOOKS)[number];

/** A request to a plugin route. */
export interface RouteRequest {
  readonly method: string;
  readonly path: string;
  /** The query string without `?` (what the original handed over). */
  readonly query: string;
  readonly body: string;
  readonly contentType: string;
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string>>;
  readonly ip: string;
}

/** What a plugin route answered. */
export interface RouteResult {
  readonly body: string;
  readonly contentType: string;
  readonly status: number;
}

/** One plugin. */
export class LuaPlugin {
  readonly found: FoundPlugin;
  state: PluginState = "loaded";
  /** Why it is disabled or in error. */
  reason: string | null = null;
  #runtime: LuaRuntime | null = null;
  /** Times of recent overruns (budget, memory). */
  overruns: number[] = [];

  constructor(found: FoundPlugin) {
    this.found = found;
  }

  get id(): string {
    return this.found.manifest.id;
  }

  /** True while its state exists (enabled). */
  get running(): boolean {
    return this.#runtime !== null;
  }

  /** The hooks its script defines now. */
  definedHooks(): HookName[] {
    const rt = this.#runtime;
    return rt ? HOOKS.filter((h) => rt.hasFunction(h)) : [];
  }

  /** True when the running script defines `hook`. */
  has(hook: HookName): boolean {
    return this.#runtime?.hasFunction(hook) ?? false;
  }

  /**
   * Starts: a fresh state with the host table, the script run, then
   * `on_enable`. Resolves with null on success, else the failure.
   */
  async start(env: HostEnv, limits: CallLimits, print: (line: string) => void): Promise<string | null> {
    let source: string;
    try {
      source = await Deno.readTextFile(this.found.entry);
    } catch (error) {
      return `cannot read ${this.found.entry}: ${error instanceof Error ? error.message : error}`;
    }
    const rt = new LuaRuntime({ print, moduleDir: this.found.dir, limits });
    installHostTable(rt.L, env);
    const chunkName = this.found.entry.slice(this.found.dir.length + 1) || "init.lua";
    try {
      rt.compile(source, `${this.id}/${chunkName}`);
    } catch (error) {
      rt.close();
      return error instanceof LuaLoadError ? `syntax error: ${error.message}` : String(error);
    }
    this.#runtime = rt;
    const chunk = lua.lua_gettop(rt.L);
    const ran = rt.call(
      (L) => {
        lua.lua_pushvalue(L, chunk);
        return 0;
      },
      0,
      () => null,
    );
    lua.lua_settop(rt.L, chunk - 1);
    if (!ran.ok) {
      this.stop(false);
      return `the script failed (${ran.kind}): ${ran.message}`;
    }
    const enabled = this.callHook("on_enable", () => 0);
    if (!enabled.ok) {
      this.stop(false);
      return `on_enable failed (${enabled.kind}): ${enabled.message}`;
    }
    return null;
  }

  /** Stops: `on_disable` (when asked and it runs), then the state is dropped. */
  stop(callDisable: boolean): CallOutcome<unknown> | null {
    const rt = this.#runtime;
    if (!rt) return null;
    const result = callDisable ? this.callHook("on_disable", () => 0) : null;
    rt.close();
    this.#runtime = null;
    return result;
  }

  /** The running state (for cached pushes), or null. */
  get runtime(): LuaRuntime | null {
    return this.#runtime;
  }

  /** Calls a hook with arguments pushed by `push`; a hook the script does not define succeeds with undefined. */
  callHook(hook: HookName, push: (L: LuaState) => number, results = 0): CallOutcome<unknown[] | undefined> {
    const rt = this.#runtime;
    if (!rt) return { ok: false, kind: "error", message: "the plugin is not running" };
    return rt.callGlobal(hook, push, results, (L) => {
      const out: unknown[] = [];
      for (let i = results; i > 0; i--) out.push(readValue(L, -i));
      return out;
    });
  }

  /** Calls global function `name` with JSON-like arguments (the `plugin.call` operation). */
  callFunction(name: string, args: readonly unknown[]): CallOutcome<unknown> {
    const rt = this.#runtime;
    if (!rt) return { ok: false, kind: "error", message: "the plugin is not running" };
    if (!rt.hasFunction(name)) return { ok: false, kind: "error", message: `the plugin has no function ${name}` };
    return rt.call(
      (L) => {
        lua.lua_getglobal(L, luaBytes(name));
        for (const a of args) pushValue(L, a);
        return args.length;
      },
      1,
      (L) => readValue(L, -1),
    );
  }

  /** Calls the handler of a route this plugin registered. */
  callRoute(key: string, request: RouteRequest): CallOutcome<RouteResult> {
    const rt = this.#runtime;
    if (!rt) return { ok: false, kind: "error", message: "the plugin is not running" };
    return rt.call(
      (L) => {
        lua.lua_getfield(L, lua.LUA_REGISTRYINDEX, luaBytes(ROUTES_KEY));
        if (lua.lua_type(L, -1) !== lua.LUA_TTABLE) throw new Error(`no handler for ${key}`);
        lua.lua_getfield(L, -1, luaBytes(key));
        lua.lua_remove(L, -2);
        // The original's five arguments, then (new) the request as a table: parsed query, headers, address.
        for (const v of [request.method, request.path, request.query, request.body, request.contentType]) {
          pushValue(L, v);
        }
        pushValue(L, {
          method: request.method,
          path: request.path,
          query: Object.fromEntries(new URLSearchParams(request.query)),
          query_string: request.query,
          body: request.body,
          content_type: request.contentType,
          headers: request.headers,
          ip: request.ip,
        });
        return 6;
      },
      3,
      (L) => routeResult(L),
    );
  }
}

/** Reads `body, content_type, status` (a table body is sent as JSON). */
function routeResult(L: LuaState): RouteResult {
  const t = lua.lua_type(L, -3);
  const body = t === lua.LUA_TTABLE
    ? JSON.stringify(readValue(L, -3))
    : t === lua.LUA_TNIL
    ? ""
    : String(readValue(L, -3));
  const type = readValue(L, -2);
  const status = readValue(L, -1);
  return {
    body,
    contentType: typeof type === "string" && type ? type : "application/json",
    status: typeof status === "number" && Number.isInteger(status) && status >= 100 && status <= 599 ? status : 200,
  };
}
