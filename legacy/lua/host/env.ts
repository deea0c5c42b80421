/**
 * What every host function (the `phira` / `game` table) is built with, and
 * the helpers they share: argument readers with messages that name the
 * function, the wrapper that turns a JavaScript exception into a Lua error
 * (a raw JavaScript throw never produces a usable Lua error; platform notes
 * on fengari), and calls of operations as the plugin's actor.
 *
 * @module
 */

import type { Actor } from "../../../src/ops/mod.ts";
import type { LogFields } from "../../../src/util/log.ts";
import type { LegacyContext } from "../../context.ts";
import { lua, type LuaFunction, type LuaState, raise, toText } from "../fengari.ts";

/** How a plugin route handler is answered: body, content type, status. */
export interface RouteAnswer {
  readonly body: string;
  readonly contentType: string;
  readonly status: number;
}

/** Registers plugin routes (the legacy HTTP server's table). */
export interface RouteRegistrar {
  /** False when the method and path are taken (by the server or another plugin) or invalid. */
  register(pluginId: string, method: string, path: string, key: string): boolean;
}

/** The environment of one plugin's host functions. */
export interface HostEnv {
  readonly pluginId: string;
  readonly ctx: LegacyContext;
  /** The plugin as the operations layer sees it. */
  readonly actor: Actor;
  /** Writes a log line with the plugin's id. */
  log(level: "info" | "warn" | "error", message: string, fields?: LogFields): void;
  readonly routes: RouteRegistrar;
  /** Reloads every plugin once the current call has returned. */
  reloadSoon(): void;
  /** Checks an admin request the way the admin API does (token, temporary token of the address, lockouts). */
  admin(ip: string, sources: AdminSources): { ok: true } | { ok: false; status: number; error: string };
  /** Enabled plugins now. */
  enabledPlugins(): number;
}

/** Where a plugin route's request may carry the admin token. */
export interface AdminSources {
  readonly header: (name: string) => string | undefined | null;
  readonly query: (name: string) => string | undefined | null;
  readonly body: unknown;
}

/** A failure a host function reports as a Lua error. */
export class HostError extends Error {
  override readonly name = "HostError";
}

/** Wraps a host function: JavaScript errors become Lua errors naming the function; Lua errors pass through. */
export function hostFn(name: string, impl: LuaFunction): LuaFunction {
  return (L) => {
    try {
      return impl(L);
    } catch (error) {
      // fengari raises Lua errors by throwing a non-Error object; those must unwind as they are.
      if (!(error instanceof Error)) throw error;
      return raise(L, `${name}: ${error.message}`);
    }
  };
}

/** Argument `i` as an integer; a HostError names the argument. */
export function argInt(L: LuaState, i: number, what: string): number {
  if (lua.lua_type(L, i) === lua.LUA_TNUMBER && lua.lua_isinteger(L, i)) return lua.lua_tointeger(L, i);
  if (lua.lua_type(L, i) === lua.LUA_TNUMBER) {
    const n = lua.lua_tonumber(L, i);
    if (Number.isInteger(n)) return n;
  }
  if (lua.lua_type(L, i) === lua.LUA_TSTRING) {
    const text = toText(L, i)!;
    if (/^-?\d{1,10}$/.test(text)) return Number(text);
  }
  throw new HostError(`argument ${i} (${what}) must be an integer`);
}

/** Argument `i` as a string (numbers converted). */
export function argStr(L: LuaState, i: number, what: string): string {
  const text = toText(L, i);
  if (text === null) throw new HostError(`argument ${i} (${what}) must be a string`);
  return text;
}

/** Optional argument `i` as a string, or undefined when nil or absent. */
export function optStr(L: LuaState, i: number, what: string): string | undefined {
  return lua.lua_type(L, i) <= lua.LUA_TNIL ? undefined : argStr(L, i, what);
}

/** Optional argument `i` as a boolean (`fallback` when nil or absent). */
export function optBool(L: LuaState, i: number, fallback: boolean): boolean {
  return lua.lua_type(L, i) <= lua.LUA_TNIL ? fallback : lua.lua_toboolean(L, i);
}

/** A room id argument: a string, or a room table (its `id`). */
export function argRoomId(L: LuaState, i: number): string {
  if (lua.lua_type(L, i) === lua.LUA_TTABLE) {
    lua.lua_getfield(L, i, new TextEncoder().encode("id"));
    const id = toText(L, -1);
    lua.lua_pop(L, 1);
    if (id !== null) return id;
  }
  return argStr(L, i, "room id");
}

/** The result of an operation call now. */
export type OpResult = { readonly ok: true; readonly value: unknown } | {
  readonly ok: false;
  readonly code: string;
  readonly message: string;
};

/**
 * Calls an operation as the plugin. One that runs synchronously answers at
 * once; one that has to wait finishes in the background (its failure is
 * logged with the plugin's id) and answers `{ok: true, value: undefined}`.
 */
export function callOp(env: HostEnv, name: string, args: unknown): OpResult {
  const outcome = env.ctx.ops.tryCallNow(name, args, env.actor);
  if (outcome instanceof Promise) {
    outcome.then((o) => {
      if (!o.ok) env.log("warn", `${name} failed: ${o.error.message}`, { op: name, code: o.error.code });
    });
    return { ok: true, value: undefined };
  }
  return outcome.ok
    ? { ok: true, value: outcome.value }
    : { ok: false, code: outcome.error.code, message: outcome.error.message };
}

/** Pushes `false, message` (the convention of a host function's expected failure); returns 2. */
export function pushFailure(L: LuaState, message: string): number {
  lua.lua_pushboolean(L, false);
  const bytes = new TextEncoder().encode(message);
  lua.lua_pushlstring(L, bytes, bytes.length);
  return 2;
}
