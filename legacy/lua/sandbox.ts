/**
 * The libraries a plugin's state gets (spec 3 §4.8 sandbox; platform notes
 * on fengari): the base library without `dofile`, `loadfile` and a real
 * `collectgarbage`; `load` for text only (a binary chunk -- bytecode -- is
 * refused, so the VM never runs unverified instructions); `table`, `string`
 * (without `dump`), `math`, `utf8`, `coroutine`; an `os` with only `time`,
 * `clock`, `date` and `difftime`; no `io`, `debug` or `package`. `print`
 * writes to the server log with the plugin's id, and `require` loads `.lua`
 * files of the plugin's own folder (text only, names of letters, digits,
 * `_` and dots).
 *
 * String builders that would fill a large buffer before the string exists
 * (`string.rep`, `table.concat`, `string.gsub`, `string.format`) check the
 * size they would build against the string cap first (`fengari.ts`).
 *
 * @module
 */

import { join } from "node:path";
import {
  jsText,
  lauxlib,
  lua,
  luaBytes,
  type LuaFunction,
  lualib,
  type LuaState,
  MAX_LUA_STRING_BYTES,
  pushString,
  raise,
  toText,
} from "./fengari.ts";

/** What the sandbox needs from its plugin. */
export interface SandboxOptions {
  /** Receives `print` lines. */
  print(line: string): void;
  /** The plugin's folder (`require` reads `<dir>/<a/b>.lua` for `require("a.b")`); null = no `require`. */
  readonly moduleDir: string | null;
}

/** Opens the sandboxed libraries on a fresh state. */
export function openSandbox(L: LuaState, options: SandboxOptions): void {
  const libs: [string, LuaFunction][] = [
    ["_G", lualib.luaopen_base],
    ["table", lualib.luaopen_table],
    ["string", lualib.luaopen_string],
    ["math", lualib.luaopen_math],
    ["utf8", lualib.luaopen_utf8],
    ["coroutine", lualib.luaopen_coroutine],
  ];
  for (const [name, open] of libs) {
    lauxlib.luaL_requiref(L, luaBytes(name), open, true);
    lua.lua_pop(L, 1);
  }
  for (const name of ["dofile", "loadfile"]) setGlobal(L, name, null);
  setGlobal(L, "collectgarbage", (L) => (lua.lua_pushinteger(L, 0), 1));
  setGlobal(L, "print", printer(options.print));
  wrapGlobal(L, "load", loadTextOnly);
  openOs(L);
  lua.lua_getglobal(L, luaBytes("string"));
  lua.lua_pushnil(L);
  lua.lua_setfield(L, -2, luaBytes("dump"));
  wrapField(L, "rep", checkedRep);
  wrapField(L, "gsub", checkedGsub);
  wrapField(L, "format", checkedFormat);
  lua.lua_pop(L, 1);
  lua.lua_getglobal(L, luaBytes("table"));
  wrapField(L, "concat", checkedConcat);
  lua.lua_pop(L, 1);
  if (options.moduleDir !== null) setGlobal(L, "require", requirer(options.moduleDir));
}

function setGlobal(L: LuaState, name: string, fn: LuaFunction | null): void {
  if (fn) lua.lua_pushjsfunction(L, fn);
  else lua.lua_pushnil(L);
  lua.lua_setglobal(L, luaBytes(name));
}

/** Replaces global `name` by `make(original)`: the original travels as the closure's first upvalue. */
function wrapGlobal(L: LuaState, name: string, wrapper: LuaFunction): void {
  lua.lua_getglobal(L, luaBytes(name));
  lua.lua_pushjsclosure(L, wrapper, 1);
  lua.lua_setglobal(L, luaBytes(name));
}

/** Same for field `name` of the table on top of the stack. */
function wrapField(L: LuaState, name: string, wrapper: LuaFunction): void {
  lua.lua_getfield(L, -1, luaBytes(name));
  lua.lua_pushjsclosure(L, wrapper, 1);
  lua.lua_setfield(L, -2, luaBytes(name));
}

/** Calls the wrapped original (upvalue 1) with the arguments as they are; returns all its results. */
function callOriginal(L: LuaState): number {
  const n = lua.lua_gettop(L);
  lua.lua_pushvalue(L, lua.lua_upvalueindex(1));
  lua.lua_insert(L, 1);
  lua.lua_call(L, n, lua.LUA_MULTRET);
  return lua.lua_gettop(L);
}

function tooLarge(L: LuaState, fn: string, bytes: number): number {
  return raise(L, `${fn}: the result would be ${bytes} bytes (the string limit is ${MAX_LUA_STRING_BYTES})`);
}

function printer(print: (line: string) => void): LuaFunction {
  return (L) => {
    const n = lua.lua_gettop(L);
    const parts: string[] = [];
    for (let i = 1; i <= n; i++) {
      parts.push(jsText(lauxlib.luaL_tolstring(L, i)));
      lua.lua_pop(L, 1);
    }
    print(parts.join("\t").slice(0, 4000));
    return 0;
  };
}

/** `load(chunk, name, mode, env)` with the mode forced to text: `load` of bytecode fails like Lua's own refusal. */
const loadTextOnly: LuaFunction = (L) => {
  const n = lua.lua_gettop(L);
  const mode = n >= 3 ? toText(L, 3) : null;
  if (mode !== null && !mode.includes("t")) {
    lua.lua_pushnil(L);
    pushString(L, `attempt to load a binary chunk (mode is '${mode}'); only text chunks are allowed`);
    return 2;
  }
  if (n < 2) lua.lua_settop(L, 2);
  pushString(L, "t");
  if (n >= 3) lua.lua_replace(L, 3);
  // Arguments now: chunk, name, "t" and, only when it was given, env (an absent env means the default one).
  return callOriginal(L);
};

/** `os` with the harmless functions only. */
function openOs(L: LuaState): void {
  lauxlib.luaL_requiref(L, luaBytes("os"), lualib.luaopen_os, false);
  lua.lua_createtable(L, 0, 4);
  for (const name of ["time", "clock", "date", "difftime"]) {
    lua.lua_getfield(L, -2, luaBytes(name));
    lua.lua_setfield(L, -2, luaBytes(name));
  }
  lua.lua_setglobal(L, luaBytes("os"));
  lua.lua_pop(L, 1);
}

const checkedRep: LuaFunction = (L) => {
  const s = lauxlib.luaL_checklstring(L, 1).length;
  const n = lauxlib.luaL_checkinteger(L, 2);
  const sep = lua.lua_type(L, 3) > lua.LUA_TNIL ? lauxlib.luaL_checklstring(L, 3).length : 0;
  const total = n <= 0 ? 0 : s * n + sep * (n - 1);
  if (total > MAX_LUA_STRING_BYTES) return tooLarge(L, "string.rep", total);
  return callOriginal(L);
};

const checkedFormat: LuaFunction = (L) => {
  const n = lua.lua_gettop(L);
  let total = 0;
  for (let i = 1; i <= n; i++) {
    total += lua.lua_type(L, i) === lua.LUA_TSTRING ? lua.lua_rawlen(L, i) : 100;
  }
  if (total > MAX_LUA_STRING_BYTES) return tooLarge(L, "string.format", total);
  return callOriginal(L);
};

const checkedConcat: LuaFunction = (L) => {
  lauxlib.luaL_checktype(L, 1, lua.LUA_TTABLE);
  const sep = lua.lua_type(L, 2) > lua.LUA_TNIL ? lauxlib.luaL_checklstring(L, 2).length : 0;
  const i = lua.lua_type(L, 3) > lua.LUA_TNIL ? lauxlib.luaL_checkinteger(L, 3) : 1;
  const j = lua.lua_type(L, 4) > lua.LUA_TNIL ? lauxlib.luaL_checkinteger(L, 4) : lauxlib.luaL_len(L, 1);
  let total = 0;
  for (let k = i; k <= j; k++) {
    lua.lua_rawgeti(L, 1, k);
    const t = lua.lua_type(L, -1);
    if (t === lua.LUA_TSTRING) total += lua.lua_rawlen(L, -1);
    else if (t === lua.LUA_TNUMBER) total += 24;
    lua.lua_pop(L, 1);
    if (k > i) total += sep;
    if (total > MAX_LUA_STRING_BYTES) return tooLarge(L, "table.concat", total);
  }
  return callOriginal(L);
};

/** Number of `%0`-`%9` captures a replacement string refers to. */
function captureRefs(repl: string): number {
  let n = 0;
  for (let i = 0; i < repl.length - 1; i++) {
    if (repl[i] !== "%") continue;
    if (/[0-9]/.test(repl[i + 1]!)) n++;
    i++;
  }
  return n;
}

const checkedGsub: LuaFunction = (L) => {
  const subject = lauxlib.luaL_checklstring(L, 1).length;
  lauxlib.luaL_checklstring(L, 2);
  const rt = lua.lua_type(L, 3);
  if (rt === lua.LUA_TTABLE || rt === lua.LUA_TFUNCTION) {
    // The replacement may return anything: count what it returns as it goes.
    let produced = subject;
    const user = lua.lua_absindex(L, 3);
    lua.lua_pushvalue(L, user);
    lua.lua_pushjsclosure(L, (L) => {
      const n = lua.lua_gettop(L);
      lua.lua_pushvalue(L, lua.lua_upvalueindex(1));
      if (lua.lua_type(L, -1) === lua.LUA_TTABLE) {
        lua.lua_pushvalue(L, 1);
        lua.lua_gettable(L, -2);
      } else {
        lua.lua_insert(L, 1);
        lua.lua_call(L, n, 1);
      }
      const t = lua.lua_type(L, -1);
      if (t === lua.LUA_TSTRING || t === lua.LUA_TNUMBER) produced += lua.lua_tolstring(L, -1)!.length;
      if (produced > MAX_LUA_STRING_BYTES) return tooLarge(L, "string.gsub", produced);
      return 1;
    }, 1);
    lua.lua_replace(L, user);
    return callOriginal(L);
  }
  const repl = rt === lua.LUA_TSTRING || rt === lua.LUA_TNUMBER ? toText(L, 3) ?? "" : "";
  const per = luaBytes(repl).length + captureRefs(repl) * subject;
  if (subject + (subject + 1) * per <= MAX_LUA_STRING_BYTES) return callOriginal(L);
  // A replacement long enough to matter: count the matches first (no replacement made), then bound the result.
  const n = lua.lua_gettop(L);
  lua.lua_pushvalue(L, lua.lua_upvalueindex(1));
  lua.lua_pushvalue(L, 1);
  lua.lua_pushvalue(L, 2);
  lua.lua_pushjsfunction(L, () => 0);
  if (n >= 4) lua.lua_pushvalue(L, 4);
  lua.lua_call(L, n >= 4 ? 4 : 3, 2);
  const matches = lua.lua_tointeger(L, -1);
  lua.lua_pop(L, 2);
  const bound = subject + matches * per;
  if (bound > MAX_LUA_STRING_BYTES) return tooLarge(L, "string.gsub", bound);
  return callOriginal(L);
};

/** `require(name)`: the plugin's own modules, loaded once each. */
function requirer(dir: string): LuaFunction {
  const loaded = new Map<string, "loading" | "done">();
  return (L) => {
    const name = toText(L, 1);
    if (name === null || !/^[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)*$/.test(name)) {
      return raise(L, "require: expected a module name of letters, digits, _ and dots");
    }
    const key = luaBytes(`chorus.module.${name}`);
    if (loaded.get(name) === "done") {
      lua.lua_getfield(L, lua.LUA_REGISTRYINDEX, key);
      return 1;
    }
    if (loaded.get(name) === "loading") return raise(L, `require: module '${name}' requires itself`);
    let source: string;
    try {
      source = Deno.readTextFileSync(join(dir, ...name.split(".")) + ".lua");
    } catch {
      return raise(L, `module '${name}' not found in the plugin's folder`);
    }
    const bytes = luaBytes(source);
    if (lauxlib.luaL_loadbufferx(L, bytes, bytes.length, luaBytes(`@${name}.lua`), luaBytes("t")) !== lua.LUA_OK) {
      return lua.lua_error(L);
    }
    loaded.set(name, "loading");
    pushString(L, name);
    try {
      lua.lua_call(L, 1, 1);
    } finally {
      if (loaded.get(name) === "loading") loaded.delete(name);
    }
    if (lua.lua_type(L, -1) === lua.LUA_TNIL) {
      lua.lua_pop(L, 1);
      lua.lua_pushboolean(L, true);
    }
    lua.lua_pushvalue(L, -1);
    lua.lua_setfield(L, lua.LUA_REGISTRYINDEX, key);
    loaded.set(name, "done");
    return 1;
  };
}
