import { deepEqual, equal, ok, throws } from "node:assert/strict";
import { lauxlib, lua, luaBytes } from "./fengari.ts";
import { LuaValueError, pushValue, readValue } from "./values.ts";

function roundTrip(value: unknown): unknown {
  const L = lauxlib.luaL_newstate();
  pushValue(L, value);
  return readValue(L, -1);
}

function evalLua(code: string): unknown {
  const L = lauxlib.luaL_newstate();
  const bytes = luaBytes(code);
  equal(lauxlib.luaL_loadbufferx(L, bytes, bytes.length, luaBytes("v"), luaBytes("t")), lua.LUA_OK);
  equal(lua.lua_pcall(L, 0, 1, 0), lua.LUA_OK);
  return readValue(L, -1);
}

Deno.test("lua values: JSON-like data survives the trip both ways", () => {
  const value = {
    id: 7,
    name: "Alice 你好",
    ok: true,
    none: null,
    list: [1, 2.5, "x"],
    nested: { a: [] },
    big: 1.7e12,
  };
  deepEqual(roundTrip(value), {
    id: 7,
    name: "Alice 你好",
    ok: true,
    list: [1, 2.5, "x"],
    nested: { a: [] },
    big: 1.7e12,
  });
  deepEqual(roundTrip([]), [], "an empty array keeps its kind");
  deepEqual(roundTrip({}), {});
});

Deno.test("lua values: tables become arrays only for keys 1..n", () => {
  deepEqual(evalLua("return {10, 20, 30}"), [10, 20, 30]);
  deepEqual(evalLua("return {[1] = 'a', [3] = 'c'}"), { "1": "a", "3": "c" });
  deepEqual(evalLua("return {x = 1, [2] = 'b'}"), { x: 1, "2": "b" });
  deepEqual(evalLua("return {}"), {});
  deepEqual(evalLua("return {f = function() end, n = 1}"), { f: null, n: 1 });
});

Deno.test("lua values: a table that contains itself or nests too deep is refused", () => {
  const L = lauxlib.luaL_newstate();
  const bytes = luaBytes("local t = {} t.self = t return t");
  lauxlib.luaL_loadbufferx(L, bytes, bytes.length, luaBytes("v"), luaBytes("t"));
  lua.lua_pcall(L, 0, 1, 0);
  throws(() => readValue(L, -1), LuaValueError);
  let deep: unknown = 1;
  for (let i = 0; i < 40; i++) deep = [deep];
  throws(() => pushValue(lauxlib.luaL_newstate(), deep), LuaValueError);
  ok(true);
});
