/**
 * What fengari is patched with, once per JavaScript realm, to bound what a
 * plugin can do inside one VM instruction (spec 3 §4.8 sandbox):
 *
 * - **the string cap**: fengari has no allocator hook (`lua_gc` does
 *   nothing, `collectgarbage("count")` is 0), and the concatenation operator
 *   builds strings inside the VM where no host function sees them -- a loop
 *   of `s = s .. s` reaches gigabytes in a few dozen instructions, between
 *   two instruction-count checks. Every Lua string is a `TString` whose
 *   constructor assigns its bytes to `realstring`; an accessor on the
 *   prototype refuses bytes over {@link MAX_LUA_STRING_BYTES} at that
 *   moment, whatever made them (the VM, the string library, the host). The
 *   refusal is a JavaScript `RangeError`, which `lua_atnativeerror` (set on
 *   every state by the runtime) turns into an ordinary Lua error. Library
 *   functions that would build a big buffer *before* making the string
 *   (`string.rep`, `table.concat`, `string.gsub`) are also checked up front
 *   (`sandbox.ts`), so the largest transient buffer stays near the cap.
 * - **the allocation meter**: the same accessor, and one on the hash part of
 *   every table, count the bytes of strings and table entries made, so the
 *   runtime can check a call's heap growth as it allocates
 *   (`memory_meter.ts`).
 * - **the pattern meter**: the matcher's steps are counted, so a
 *   backtracking pattern is stopped at the call's time limit.
 *
 * @module
 */

import lstringModule from "fengari/src/lstring.js";
import ltableModule from "fengari/src/ltable.js";
import { lauxlib, lua, luaBytes, lualib, MAX_LUA_STRING_BYTES, pushString, STRING_TOO_LARGE } from "./fengari.ts";

// --- the string cap (see the module comment) ----------------------------------------------------------------------

interface TStringClass {
  readonly prototype: object;
}

const CAP_MARK = Symbol.for("chorus.lua.stringCap");

/**
 * How many strings the cap refused in this realm. fengari can turn a
 * JavaScript exception inside the VM into a Lua error only when the frame
 * has two free stack slots (`lua_atnativeerror` pushes a function); a
 * refusal in the middle of a concatenation meets a full frame, and the call
 * then fails with a status but no message. The runtime compares this count
 * before and after a call to name the cause. State of the patch itself, kept
 * with it.
 */
const refusals = { count: 0 };

/** What one table entry is counted as (a Map slot, the entry object, key and value `TValue`s). */
export const TABLE_ENTRY_BYTES = 96;
/** What one string is counted as on top of its bytes (the `TString` and its array's header). */
const STRING_OVERHEAD_BYTES = 64;

/**
 * Bytes of Lua strings and table entries made in this realm so far, and the
 * mark past which the running call's check runs (`onMark`; `mayThrow` is
 * false where an exception would leave fengari's structures half-changed,
 * so the check only records the overrun for the count hook to raise). Like
 * the cap's count, state of the patch itself: fengari has no allocator hook
 * (see the module comment), so every string and table entry is counted
 * where fengari makes it. Lua runs one call at a time, so what a call makes
 * is the difference of two readings.
 */
const made: { bytes: number; mark: number; onMark: ((mayThrow: boolean) => void) | null } = {
  bytes: 0,
  mark: Infinity,
  onMark: null,
};

/** Strings refused by the cap so far. */
export function stringCapRefusals(): number {
  return refusals.count;
}

/** Installs the string cap on fengari's `TString` once per JavaScript realm; idempotent. */
function installStringCap(): void {
  const TString = (lstringModule as unknown as { TString: TStringClass }).TString;
  const proto = TString.prototype as Record<symbol, unknown>;
  if (proto[CAP_MARK]) return;
  Object.defineProperty(proto, "realstring", {
    configurable: true,
    set(this: object, bytes: Uint8Array) {
      if (bytes.length > MAX_LUA_STRING_BYTES) {
        refusals.count++;
        throw new RangeError(STRING_TOO_LARGE);
      }
      made.bytes += bytes.length + STRING_OVERHEAD_BYTES;
      // The running call's check (it may refuse this string: a RangeError, as the cap's).
      if (made.bytes > made.mark) made.onMark?.(true);
      // From now on an own data property: reads stay as fast as before.
      Object.defineProperty(this, "realstring", { value: bytes, writable: true, enumerable: true, configurable: true });
    },
  });
  Object.defineProperty(proto, CAP_MARK, { value: true });
}

installStringCap();

// --- the allocation meter -----------------------------------------------------------------------------------------

/** Bytes of Lua strings and table entries made so far (an approximation of what Lua allocated). */
export function allocatedBytes(): number {
  return made.bytes;
}

/** What {@link armAllocationCheck} arms. */
export interface AllocationCheck {
  readonly mark: number;
  readonly onMark: ((mayThrow: boolean) => void) | null;
}

/**
 * Arms the running call's check: `onMark` runs once the count passes `mark`
 * (Infinity and null disarm it). Returns the check it replaces (a call
 * inside a call restores it when it ends).
 */
export function armAllocationCheck(mark: number, onMark: ((mayThrow: boolean) => void) | null): AllocationCheck {
  const previous = { mark: made.mark, onMark: made.onMark };
  made.mark = mark;
  made.onMark = onMark;
  return previous;
}

interface TableClass {
  readonly prototype: object;
}

const METER_MARK = Symbol.for("chorus.lua.tableMeter");

/** A table's hash part that counts its new entries (fengari calls `set` only to add one). */
class MeteredMap<K, V> extends Map<K, V> {
  override set(key: K, value: V): this {
    made.bytes += TABLE_ENTRY_BYTES;
    super.set(key, value);
    // Never throws here: fengari has linked the entry already; the count hook raises at the next check.
    if (made.bytes > made.mark) made.onMark?.(false);
    return this;
  }
}

/** Installs the table meter on fengari's `Table` once per JavaScript realm; idempotent. */
function installTableMeter(): void {
  const Table = (ltableModule as unknown as { Table: TableClass }).Table;
  const proto = Table.prototype as Record<symbol, unknown>;
  if (proto[METER_MARK]) return;
  Object.defineProperty(proto, "strong", {
    configurable: true,
    set(this: object, map: Map<unknown, unknown>) {
      Object.setPrototypeOf(map, MeteredMap.prototype);
      Object.defineProperty(this, "strong", { value: map, writable: true, enumerable: true, configurable: true });
    },
  });
  Object.defineProperty(proto, METER_MARK, { value: true });
}

installTableMeter();

// --- the pattern meter --------------------------------------------------------------------------------------------

const PATTERN_MARK = Symbol.for("chorus.lua.patternMeter");
const DEPTH = Symbol("matchdepth");

/**
 * The running call's check of pattern matching (`string.find`, `match`,
 * `gmatch`, `gsub`): a matcher runs inside one VM instruction, where the
 * count hook never fires, and a pattern such as `.-.-.-b` backtracks for
 * hours on a few hundred bytes. fengari's matcher reads and writes its
 * `matchdepth` on every step of its recursion; an accessor on that field
 * counts the steps and, every {@link PATTERN_CHECK_EVERY} of them, calls
 * the check, which may throw (the matcher's state is per call, reset by the
 * next match, so an exception leaves nothing half-changed). State of the
 * patch itself, like the cap's count.
 */
const patterns: { steps: number; check: (() => void) | null } = { steps: 0, check: null };

/** Matcher steps between two calls of the pattern check. */
export const PATTERN_CHECK_EVERY = 64;

/** Arms the running call's pattern check (null disarms it); returns the one it replaces (a call inside a call). */
export function armPatternCheck(check: (() => void) | null): (() => void) | null {
  const previous = patterns.check;
  patterns.check = check;
  return previous;
}

/**
 * Installs the pattern meter once per realm; idempotent. fengari does not
 * export its `MatchState` class: its prototype is reached through the state
 * `string.gmatch` keeps in its iterator (a light userdata, upvalue 3).
 */
function installPatternMeter(): void {
  const L = lauxlib.luaL_newstate();
  lauxlib.luaL_requiref(L, luaBytes("string"), lualib.luaopen_string, true);
  lua.lua_getfield(L, -1, luaBytes("gmatch"));
  pushString(L, "a");
  pushString(L, "a");
  lua.lua_call(L, 2, 1);
  const iterator = lua.lua_topointer(L, -1) as { upvalue?: { value?: { ms?: object } }[] } | null;
  const ms = iterator?.upvalue?.[2]?.value?.ms;
  if (!ms) throw new Error("cannot meter Lua patterns: fengari's gmatch state is not where it was (fengari 0.1.5)");
  const proto = Object.getPrototypeOf(ms) as Record<symbol, unknown>;
  if (proto[PATTERN_MARK]) return;
  Object.defineProperty(proto, "matchdepth", {
    configurable: true,
    get(this: Record<symbol, number>) {
      return this[DEPTH];
    },
    set(this: Record<symbol, number>, depth: number) {
      this[DEPTH] = depth;
      if (++patterns.steps % PATTERN_CHECK_EVERY === 0) patterns.check?.();
    },
  });
  Object.defineProperty(proto, PATTERN_MARK, { value: true });
}

installPatternMeter();
