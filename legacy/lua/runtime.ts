/**
 * One plugin's Lua state (spec 3 §4.8: one state per plugin) and every call
 * into it, with the limits of the sandbox:
 *
 * - **instructions**: a count hook runs every {@link HOOK_STEP} instructions
 *   on every thread of the state (coroutines inherit it) and stops a call
 *   that used up its budget with a Lua error. From then on the hook fires on
 *   every instruction and raises again, so a plugin that catches the error
 *   with `pcall` cannot keep running: each protected call it unwinds into
 *   fails at its next instruction, up to the host's own call. The state
 *   stays usable and keeps its globals for the next call.
 * - **time**: pattern matching, which runs inside one instruction and can
 *   backtrack for hours, is stopped once the call has run
 *   {@link callTimeMs} of wall time (`fengari_meters.ts`). Lua code itself
 *   is bounded by its instructions alone, which a loaded machine does not
 *   change.
 * - **memory**: the heap may grow by `memoryBytes` during one call, and a
 *   state may hold `stateBytes` between calls (`memory_meter.ts`); a call
 *   over its limit is stopped the same way. Strings are capped at creation
 *   (`fengari.ts`).
 * - **errors**: raised with a traceback, turned into a result (never thrown
 *   at the caller); a JavaScript exception inside the VM becomes a Lua error
 *   (`lua_atnativeerror`), and re-entering a state that is running is refused.
 *
 * @module
 */

import { jsText, lauxlib, lua, luaBytes, type LuaState, raise, STRING_TOO_LARGE } from "./fengari.ts";
import { nativeError, traceback } from "./error_handlers.ts";
import { armPatternCheck, stringCapRefusals } from "./fengari_meters.ts";
import { MemoryMeter } from "./memory_meter.ts";
import {
  type CallLimits,
  type CallOutcome,
  callTimeMs,
  LuaLoadError,
  processHeapBytes,
  type RuntimeOptions,
  timeMessage,
} from "./runtime_types.ts";
import { openSandbox } from "./sandbox.ts";

export {
  type CallLimits,
  type CallOutcome,
  callTimeMs,
  type FailureKind,
  LuaLoadError,
  MIN_CALL_MS,
  processHeapBytes,
  type RuntimeOptions,
} from "./runtime_types.ts";
import { pushValue } from "./values.ts";

/** Instructions between two checks of the hook. */
export const HOOK_STEP = 1000;

/** One Lua state with its limits. */
export class LuaRuntime {
  readonly L: LuaState;
  readonly #limits: CallLimits;
  readonly #meter: MemoryMeter;
  #running = false;
  #ticks = 0;
  #abort: { kind: "budget" | "memory"; message: string } | null = null;
  /** When the running call must have ended (`performance.now()`). */
  #deadline = 0;
  #outerPatternCheck: (() => void) | null = null;
  /** Threads whose hook fires on every instruction (after an abort); restored when the call ends. */
  readonly #tight = new Set<LuaState>();
  #closed = false;
  readonly #names = new Map<string, Uint8Array>();
  /** Fingerprints of the tables cached by {@link pushCached}. */
  readonly #cached = new Map<string, string>();

  constructor(options: RuntimeOptions) {
    this.#limits = options.limits;
    this.#meter = new MemoryMeter(options.limits, options.heapBytes ?? processHeapBytes);
    const L = lauxlib.luaL_newstate();
    this.L = L;
    lua.lua_atnativeerror(L, nativeError);
    openSandbox(L, options);
    lua.lua_sethook(L, this.#hook, lua.LUA_MASKCOUNT, HOOK_STEP);
  }

  /** True while a call runs (host functions use it to refuse re-entry). */
  get running(): boolean {
    return this.#running;
  }

  /** Compiles `source` (text only) and leaves the chunk on the stack; throws {@link LuaLoadError}. */
  compile(source: string, chunkName: string): void {
    const bytes = luaBytes(source);
    const status = lauxlib.luaL_loadbufferx(this.L, bytes, bytes.length, luaBytes(`@${chunkName}`), luaBytes("t"));
    if (status !== lua.LUA_OK) {
      const message = jsText(lua.lua_tolstring(this.L, -1) ?? new Uint8Array());
      lua.lua_pop(this.L, 1);
      throw new LuaLoadError(message);
    }
  }

  /** True when global `name` is a function. */
  hasFunction(name: string): boolean {
    const t = lua.lua_getglobal(this.L, this.#name(name));
    lua.lua_pop(this.L, 1);
    return t === lua.LUA_TFUNCTION;
  }

  /** `name` as Lua bytes, encoded once per state (hook names are looked up on every command). */
  #name(name: string): Uint8Array {
    let bytes = this.#names.get(name);
    if (!bytes) {
      bytes = luaBytes(name);
      if (this.#names.size < 256) this.#names.set(name, bytes);
    }
    return bytes;
  }

  /**
   * Pushes a table for `value`, reusing the one pushed last time under `key`
   * when `fingerprint` is the same (the user table `on_before_command` gets
   * with every command: building it is most of a hook call's cost).
   */
  pushCached(key: string, fingerprint: string, value: unknown): void {
    const L = this.L;
    const cacheKey = this.#name("chorus.cache");
    const full = this.#cached.size >= 1024 && !this.#cached.has(key);
    if (full || lua.lua_getfield(L, lua.LUA_REGISTRYINDEX, cacheKey) !== lua.LUA_TTABLE) {
      // A fresh cache (the first use, or bounded: start over; the cache only saves work).
      if (!full) lua.lua_pop(L, 1);
      lua.lua_createtable(L, 0, 16);
      lua.lua_pushvalue(L, -1);
      lua.lua_setfield(L, lua.LUA_REGISTRYINDEX, cacheKey);
      this.#cached.clear();
    }
    const field = this.#name(key);
    if (this.#cached.get(key) === fingerprint) {
      if (lua.lua_getfield(L, -1, field) === lua.LUA_TTABLE) {
        lua.lua_remove(L, -2);
        return;
      }
      lua.lua_pop(L, 1);
    }
    pushValue(L, value);
    lua.lua_pushvalue(L, -1);
    lua.lua_setfield(L, -3, field);
    lua.lua_remove(L, -2);
    this.#cached.set(key, fingerprint);
  }

  #call<T>(setup: (L: LuaState) => number, results: number, read: (L: LuaState) => T): CallOutcome<T> {
    if (this.#closed) return { ok: false, kind: "error", message: "the plugin is closed" };
    if (this.#running) return { ok: false, kind: "busy", message: "the plugin is already running (re-entry refused)" };
    const L = this.L;
    const base = lua.lua_gettop(L);
    this.#running = true;
    this.#ticks = 0;
    this.#abort = null;
    // Measured at the first memory check, not here: a short call (most hooks) never pays for a measurement.
    this.#meter.begin();
    this.#deadline = performance.now() + callTimeMs(this.#limits);
    this.#outerPatternCheck = armPatternCheck(this.#patternCheck);
    const refusedBefore = stringCapRefusals();
    try {
      lua.lua_pushjsfunction(L, traceback);
      let status: number;
      try {
        const nargs = setup(L);
        status = lua.lua_pcall(L, nargs, results, base + 1);
      } catch (error) {
        return { ok: false, kind: "error", message: `host error: ${error instanceof Error ? error.message : error}` };
      }
      const over = this.#meter.over;
      const abort = (this.#abort ?? (over ? { kind: "memory", message: over } : null)) as
        | { kind: "budget" | "memory"; message: string }
        | null;
      if (abort) return { ok: false, kind: abort.kind, message: abort.message };
      if (status !== lua.LUA_OK && status !== lua.LUA_ERRRUN && stringCapRefusals() > refusedBefore) {
        return { ok: false, kind: "memory", message: STRING_TOO_LARGE };
      }
      if (status !== lua.LUA_OK) {
        const text = lua.lua_type(L, -1) === lua.LUA_TSTRING ? jsText(lua.lua_tolstring(L, -1)!) : "(error object)";
        return { ok: false, kind: "error", message: text };
      }
      try {
        return { ok: true, value: read(L) };
      } catch (error) {
        return { ok: false, kind: "error", message: error instanceof Error ? error.message : String(error) };
      }
    } finally {
      armPatternCheck(this.#outerPatternCheck);
      lua.lua_settop(L, base);
      for (const thread of this.#tight) lua.lua_sethook(thread, this.#hook, lua.LUA_MASKCOUNT, HOOK_STEP);
      this.#tight.clear();
      this.#running = false;
    }
  }

  /**
   * Runs one protected call within the limits. `setup` pushes the function
   * and its arguments and returns the number of arguments; `read` reads the
   * `results` values left on top. Never throws. A state found holding more
   * than `stateBytes` fails the call as `oversized` (the caller should drop
   * it: the memory is freed only then).
   */
  call<T>(setup: (L: LuaState) => number, results: number, read: (L: LuaState) => T): CallOutcome<T> {
    const outcome = this.#call(setup, results, read);
    const oversized = this.#meter.end(this.#closed ? null : this.L);
    return oversized ? { ok: false, kind: "oversized", message: oversized } : outcome;
  }

  /** Calls global function `name` with values pushed by `pushArgs`; a missing function is a success with undefined. */
  callGlobal<T>(
    name: string,
    pushArgs: (L: LuaState) => number,
    results: number,
    read: (L: LuaState) => T,
  ): CallOutcome<T | undefined> {
    if (this.#closed) return { ok: false, kind: "error", message: "the plugin is closed" };
    const L = this.L;
    // One lookup: the function stays below the call's frame and is pushed again as the callee.
    if (lua.lua_getglobal(L, this.#name(name)) !== lua.LUA_TFUNCTION) {
      lua.lua_pop(L, 1);
      return { ok: true, value: undefined };
    }
    const fn = lua.lua_gettop(L);
    try {
      return this.call(
        (L) => {
          lua.lua_pushvalue(L, fn);
          return pushArgs(L);
        },
        results,
        read,
      );
    } finally {
      lua.lua_settop(L, fn - 1);
    }
  }

  /** Drops the state. */
  close(): void {
    this.#closed = true;
    lua.lua_sethook(this.L, null, 0, 0);
  }

  readonly #hook = (L: LuaState): void => {
    if (!this.#running) return;
    if (this.#abort) {
      this.#tighten(L);
      raise(L, this.#abort.message);
      return;
    }
    this.#ticks++;
    if (this.#ticks * HOOK_STEP > this.#limits.instructions) {
      this.#abort = { kind: "budget", message: `instruction budget exceeded (${this.#limits.instructions})` };
    } else {
      const over = this.#meter.tick(this.#ticks);
      if (over) this.#abort = { kind: "memory", message: over };
    }
    if (this.#abort) {
      this.#tighten(L);
      raise(L, this.#abort.message);
    }
  };

  /** The pattern matcher's check (`fengari.ts`): past the call's time, the match is stopped and so is the call. */
  readonly #patternCheck = (): void => {
    if (!this.#abort && performance.now() > this.#deadline) {
      this.#abort = { kind: "budget", message: timeMessage(this.#limits) };
    }
    if (this.#abort) throw new RangeError(this.#abort.message);
  };

  #tighten(L: LuaState): void {
    if (this.#tight.has(L)) return;
    this.#tight.add(L);
    lua.lua_sethook(L, this.#hook, lua.LUA_MASKCOUNT, 1);
  }
}
