/**
 * How errors inside a Lua state become messages (spec 3 §4.8: an error in
 * a plugin is logged with a traceback and never reaches the game).
 *
 * @module
 */

import { lauxlib, lua, luaBytes, type LuaFunction, type LuaState, pushString } from "./fengari.ts";

/** Message handler: the error with a traceback. */
export const traceback: LuaFunction = (L: LuaState): number => {
  const message = lua.lua_type(L, 1) === lua.LUA_TSTRING ? lua.lua_tolstring(L, 1) : null;
  lauxlib.luaL_traceback(L, L, message ?? luaBytes("(error object is not a string)"), 1);
  return 1;
};

/**
 * A JavaScript exception inside the VM as a Lua error message: a limit's
 * `RangeError` (the string cap, the memory and time checks) says what it
 * is; anything else is a host bug.
 */
export const nativeError: LuaFunction = (L: LuaState): number => {
  const error = lua.lua_touserdata(L, -1);
  const message = error instanceof RangeError
    ? error.message
    : `host error: ${error instanceof Error ? error.message : String(error)}`;
  pushString(L, message);
  return 1;
};
