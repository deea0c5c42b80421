/**
 * Values between JavaScript and Lua: plain JSON-like data both ways (what
 * hooks receive, what host functions return, what route handlers answer),
 * and the JSON helpers plugins get as `phira.json_encode` / `json_decode`.
 *
 * Lua tables become arrays when their keys are exactly 1..n (n > 0), else
 * objects (number keys written as strings; other key types skipped); an
 * empty table is an empty object unless it carries the array mark
 * (`phira.array(t)`; lists from the host carry it). Depth and size are bounded, and a table
 * that contains itself is an error, so a plugin cannot make the host loop.
 *
 * @module
 */

import { jsText, lua, type LuaState, pushString } from "./fengari.ts";

/** A value that crosses the boundary. */
export type LuaData = null | boolean | number | string | LuaData[] | { [key: string]: LuaData };

/** Nesting limit of converted values. */
export const MAX_DEPTH = 32;
/** Entries limit of one converted table (a bomb of a table must not stall the host). */
export const MAX_ENTRIES = 100_000;

const I32_MAX = 2147483647;
const I32_MIN = -2147483648;

const ARRAY_MARK = new TextEncoder().encode("__jsontype");
const ARRAY_META = new TextEncoder().encode("chorus.array");

/**
 * Marks the table on top of the stack as an array, so that it converts to
 * `[]` when empty (`phira.array(t)`; arrays from the host carry the mark).
 */
export function markArray(L: LuaState): void {
  if (lua.lua_getfield(L, lua.LUA_REGISTRYINDEX, ARRAY_META) !== lua.LUA_TTABLE) {
    lua.lua_pop(L, 1);
    lua.lua_createtable(L, 0, 1);
    pushString(L, "array");
    lua.lua_setfield(L, -2, ARRAY_MARK);
    lua.lua_pushvalue(L, -1);
    lua.lua_setfield(L, lua.LUA_REGISTRYINDEX, ARRAY_META);
  }
  lua.lua_setmetatable(L, -2);
}

/** True when the table at `idx` carries the array mark. */
function isMarkedArray(L: LuaState, idx: number): boolean {
  if (!lua.lua_getmetatable(L, idx)) return false;
  lua.lua_getfield(L, -1, ARRAY_MARK);
  const marked = lua.lua_type(L, -1) === lua.LUA_TSTRING;
  lua.lua_pop(L, 2);
  return marked;
}

/** A value that cannot be converted. */
export class LuaValueError extends Error {
  override readonly name = "LuaValueError";
}

/** Pushes a JavaScript value (see the module comment); functions and symbols become nil. */
export function pushValue(L: LuaState, value: unknown, depth = 0): void {
  if (depth > MAX_DEPTH) throw new LuaValueError(`value nested deeper than ${MAX_DEPTH} levels`);
  if (value === null || value === undefined) return lua.lua_pushnil(L);
  switch (typeof value) {
    case "boolean":
      return lua.lua_pushboolean(L, value);
    case "number":
      // fengari's integers are 32-bit: larger integers (millisecond times) travel as floats, exactly below 2^53.
      if (Number.isInteger(value) && value >= I32_MIN && value <= I32_MAX) return lua.lua_pushinteger(L, value);
      return lua.lua_pushnumber(L, value);
    case "bigint":
      return lua.lua_pushnumber(L, Number(value));
    case "string":
      return pushString(L, value);
    case "object":
      break;
    default:
      return lua.lua_pushnil(L);
  }
  lua.lua_checkstack(L, 4);
  if (value instanceof Uint8Array) return lua.lua_pushlstring(L, value, value.length);
  if (Array.isArray(value)) {
    lua.lua_createtable(L, value.length, 0);
    for (let i = 0; i < value.length; i++) {
      pushValue(L, value[i], depth + 1);
      lua.lua_rawseti(L, -2, i + 1);
    }
    markArray(L);
    return;
  }
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
  lua.lua_createtable(L, 0, entries.length);
  for (const [k, v] of entries) {
    pushString(L, k);
    pushValue(L, v, depth + 1);
    lua.lua_rawset(L, -3);
  }
}

/** Reads the value at `idx`; functions, userdata and threads read as null. */
export function readValue(L: LuaState, idx: number): LuaData {
  return read(L, lua.lua_absindex(L, idx), 0, new Set());
}

function read(L: LuaState, idx: number, depth: number, seen: Set<unknown>): LuaData {
  const t = lua.lua_type(L, idx);
  if (t === lua.LUA_TNIL || t === lua.LUA_TNONE) return null;
  if (t === lua.LUA_TBOOLEAN) return lua.lua_toboolean(L, idx);
  if (t === lua.LUA_TNUMBER) {
    return lua.lua_isinteger(L, idx) ? lua.lua_tointeger(L, idx) : lua.lua_tonumber(L, idx);
  }
  if (t === lua.LUA_TSTRING) return jsText(lua.lua_tolstring(L, idx)!);
  if (t !== lua.LUA_TTABLE) return null;
  if (depth >= MAX_DEPTH) throw new LuaValueError(`table nested deeper than ${MAX_DEPTH} levels`);
  const self = lua.lua_topointer(L, idx);
  if (seen.has(self)) throw new LuaValueError("table contains itself");
  seen.add(self);
  lua.lua_checkstack(L, 4);
  const keys: (string | number)[] = [];
  const values: LuaData[] = [];
  lua.lua_pushnil(L);
  while (lua.lua_next(L, idx) !== 0) {
    if (keys.length >= MAX_ENTRIES) {
      lua.lua_pop(L, 2);
      throw new LuaValueError(`table has more than ${MAX_ENTRIES} entries`);
    }
    const kt = lua.lua_type(L, -2);
    if (kt === lua.LUA_TSTRING) keys.push(jsText(lua.lua_tolstring(L, -2)!));
    else if (kt === lua.LUA_TNUMBER) keys.push(lua.lua_tonumber(L, -2));
    else {
      lua.lua_pop(L, 1);
      continue;
    }
    try {
      values.push(read(L, lua.lua_gettop(L), depth + 1, seen));
    } catch (error) {
      lua.lua_pop(L, 2);
      throw error;
    }
    lua.lua_pop(L, 1);
  }
  seen.delete(self);
  const n = keys.length;
  if (n > 0 && keys.every((k) => typeof k === "number" && Number.isInteger(k) && k >= 1 && k <= n)) {
    const out: LuaData[] = new Array(n);
    keys.forEach((k, i) => (out[(k as number) - 1] = values[i]!));
    return out;
  }
  if (n === 0 && isMarkedArray(L, idx)) return [];
  const out: Record<string, LuaData> = {};
  keys.forEach((k, i) => (out[String(k)] = values[i]!));
  return out;
}

/** JSON text of a Lua value (NaN and infinities become null). */
export function toJson(L: LuaState, idx: number): string {
  return JSON.stringify(readValue(L, idx));
}
