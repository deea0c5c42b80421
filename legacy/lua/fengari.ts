/**
 * The one door to fengari (Lua 5.3 in JavaScript): a typed facade over the
 * part of its C-style API the host uses.
 *
 * The cap and the meters that patch fengari's own objects are in
 * `fengari_meters.ts`: a Lua string is at most {@link MAX_LUA_STRING_BYTES}.
 *
 * @module
 */

import fengariModule from "fengari";

/** Longest Lua string (bytes): a constant of the process, the same for every plugin. */
export const MAX_LUA_STRING_BYTES = 1024 * 1024;

/** The message of the error raised when a string would exceed the cap. */
export const STRING_TOO_LARGE = `string too large (the limit is ${MAX_LUA_STRING_BYTES} bytes)`;

/** An opaque Lua state or thread. */
export type LuaState = { readonly __luaState: unique symbol };

/** A host function: receives the state, returns how many results it pushed. */
export type LuaFunction = (L: LuaState) => number;

/** The subset of fengari's `lua` namespace the host uses. */
export interface LuaApi {
  readonly LUA_OK: number;
  readonly LUA_ERRRUN: number;
  readonly LUA_ERRSYNTAX: number;
  readonly LUA_MULTRET: number;
  readonly LUA_REGISTRYINDEX: number;
  readonly LUA_MASKCOUNT: number;
  readonly LUA_TNONE: number;
  readonly LUA_TNIL: number;
  readonly LUA_TBOOLEAN: number;
  readonly LUA_TNUMBER: number;
  readonly LUA_TSTRING: number;
  readonly LUA_TTABLE: number;
  readonly LUA_TFUNCTION: number;
  lua_absindex(L: LuaState, idx: number): number;
  lua_atnativeerror(L: LuaState, fn: LuaFunction): void;
  lua_call(L: LuaState, nargs: number, nresults: number): void;
  lua_checkstack(L: LuaState, n: number): boolean;
  lua_createtable(L: LuaState, narr: number, nrec: number): void;
  lua_getfield(L: LuaState, idx: number, k: Uint8Array): number;
  lua_getglobal(L: LuaState, name: Uint8Array): number;
  lua_getmetatable(L: LuaState, idx: number): boolean;
  lua_gettable(L: LuaState, idx: number): number;
  lua_error(L: LuaState): number;
  lua_gettop(L: LuaState): number;
  lua_insert(L: LuaState, idx: number): void;
  lua_isinteger(L: LuaState, idx: number): boolean;
  lua_next(L: LuaState, idx: number): number;
  lua_pcall(L: LuaState, nargs: number, nresults: number, msgh: number): number;
  lua_pop(L: LuaState, n: number): void;
  lua_pushboolean(L: LuaState, b: boolean): void;
  lua_pushinteger(L: LuaState, n: number): void;
  lua_pushjsclosure(L: LuaState, fn: LuaFunction, n: number): void;
  lua_pushjsfunction(L: LuaState, fn: LuaFunction): void;
  lua_pushlightuserdata(L: LuaState, p: unknown): void;
  lua_pushlstring(L: LuaState, s: Uint8Array, len: number): void;
  lua_pushnil(L: LuaState): void;
  lua_pushnumber(L: LuaState, n: number): void;
  lua_pushvalue(L: LuaState, idx: number): void;
  lua_rawequal(L: LuaState, a: number, b: number): boolean;
  lua_rawget(L: LuaState, idx: number): number;
  lua_rawgeti(L: LuaState, idx: number, n: number): number;
  lua_rawlen(L: LuaState, idx: number): number;
  lua_rawset(L: LuaState, idx: number): void;
  lua_rawseti(L: LuaState, idx: number, n: number): void;
  lua_remove(L: LuaState, idx: number): void;
  lua_replace(L: LuaState, idx: number): void;
  lua_setfield(L: LuaState, idx: number, k: Uint8Array): void;
  lua_setglobal(L: LuaState, name: Uint8Array): void;
  lua_sethook(L: LuaState, fn: ((L: LuaState) => void) | null, mask: number, count: number): void;
  lua_setmetatable(L: LuaState, idx: number): void;
  lua_settop(L: LuaState, idx: number): void;
  lua_toboolean(L: LuaState, idx: number): boolean;
  lua_tointeger(L: LuaState, idx: number): number;
  lua_tolstring(L: LuaState, idx: number): Uint8Array | null;
  lua_tonumber(L: LuaState, idx: number): number;
  lua_topointer(L: LuaState, idx: number): unknown;
  lua_touserdata(L: LuaState, idx: number): unknown;
  lua_type(L: LuaState, idx: number): number;
  lua_upvalueindex(n: number): number;
}

/** The subset of fengari's `lauxlib`. */
export interface LauxApi {
  luaL_newstate(): LuaState;
  luaL_requiref(L: LuaState, name: Uint8Array, open: LuaFunction, global: boolean): void;
  luaL_error(L: LuaState, message: Uint8Array): number;
  luaL_traceback(L: LuaState, L1: LuaState, msg: Uint8Array | null, level: number): void;
  luaL_loadbufferx(L: LuaState, buff: Uint8Array, size: number, name: Uint8Array, mode: Uint8Array | null): number;
  luaL_checkinteger(L: LuaState, arg: number): number;
  luaL_checknumber(L: LuaState, arg: number): number;
  luaL_checklstring(L: LuaState, arg: number): Uint8Array;
  luaL_checktype(L: LuaState, arg: number, t: number): void;
  luaL_checkany(L: LuaState, arg: number): void;
  luaL_argerror(L: LuaState, arg: number, extramsg: Uint8Array): number;
  luaL_len(L: LuaState, idx: number): number;
  luaL_tolstring(L: LuaState, idx: number): Uint8Array;
}

/** The subset of fengari's `lualib`. */
export interface LualibApi {
  luaopen_base: LuaFunction;
  luaopen_table: LuaFunction;
  luaopen_string: LuaFunction;
  luaopen_math: LuaFunction;
  luaopen_utf8: LuaFunction;
  luaopen_coroutine: LuaFunction;
  luaopen_os: LuaFunction;
}

interface FengariModule {
  readonly lua: LuaApi;
  readonly lauxlib: LauxApi;
  readonly lualib: LualibApi;
}

const fengari = fengariModule as unknown as FengariModule;
/** fengari's `lua` namespace. */
export const lua: LuaApi = fengari.lua;
/** fengari's `lauxlib` namespace. */
export const lauxlib: LauxApi = fengari.lauxlib;
/** fengari's `lualib` namespace. */
export const lualib: LualibApi = fengari.lualib;

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: false });

/** A JavaScript string as Lua bytes (UTF-8). */
export function luaBytes(text: string): Uint8Array {
  return encoder.encode(text);
}

/** Lua bytes as a JavaScript string (invalid UTF-8 becomes U+FFFD). */
export function jsText(bytes: Uint8Array): string {
  return decoder.decode(bytes);
}

/**
 * Encoded short strings (table keys, hook and type names): encoded once,
 * pushed many times. A bounded memo of a pure function, holding no server
 * state; `lua_pushlstring` copies the bytes, so Lua never shares an array.
 */
const keyCache = new Map<string, Uint8Array>();
const KEY_CACHE_LIMIT = 1024;

/** Pushes a JavaScript string. */
export function pushString(L: LuaState, text: string): void {
  let bytes = text.length <= 32 ? keyCache.get(text) : undefined;
  if (!bytes) {
    bytes = encoder.encode(text);
    if (text.length <= 32 && keyCache.size < KEY_CACHE_LIMIT) keyCache.set(text, bytes);
  }
  lua.lua_pushlstring(L, bytes, bytes.length);
}

/** The string at `idx` (numbers converted), or null for other types. */
export function toText(L: LuaState, idx: number): string | null {
  const t = lua.lua_type(L, idx);
  if (t !== lua.LUA_TSTRING && t !== lua.LUA_TNUMBER) return null;
  const bytes = lua.lua_tolstring(L, idx);
  return bytes ? decoder.decode(bytes) : null;
}

/** Raises a Lua error with `message` (use as `return raise(L, "...")` in a host function). */
export function raise(L: LuaState, message: string): number {
  return lauxlib.luaL_error(L, luaBytes(message.replaceAll("%", "%%")));
}
