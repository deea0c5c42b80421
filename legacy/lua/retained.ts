/**
 * What one Lua state holds (spec 3 §4.8 "bounded memory"): a walk over
 * everything reachable from its registry (globals, loaded modules, the
 * host's caches), the metatables of its types and its main thread's stack --
 * tables with their keys, values and metatables, strings, closures with
 * their upvalues and prototypes, coroutines with their stacks, userdata.
 * fengari keeps every Lua value as a JavaScript object and has no allocator
 * hook (`fengari.ts`), so this is the only way to know what a plugin keeps
 * between calls: a per-call limit alone lets a plugin keep a little more
 * with every call until the server runs out of memory.
 *
 * Sizes are estimates in the allocation meter's units (a table entry is
 * {@link TABLE_ENTRY_BYTES}, a string its bytes plus a header). The walk
 * stops as soon as the count passes `cap`, so its cost is bounded by the
 * limit, not by what a plugin piled up.
 *
 * @module
 */

import lobjectModule from "fengari/src/lobject.js";
import lstateModule from "fengari/src/lstate.js";
import lstringModule from "fengari/src/lstring.js";
import ltableModule from "fengari/src/ltable.js";
import lfuncModule from "fengari/src/lfunc.js";
import type { LuaState } from "./fengari.ts";
import { TABLE_ENTRY_BYTES } from "./fengari_meters.ts";

/** fengari's value cell: a type tag and a value. */
interface TValue {
  readonly type: number;
  readonly value: unknown;
}

interface Entry {
  readonly key: TValue;
  readonly value: TValue;
}

interface TableObject {
  readonly strong: Map<unknown, Entry>;
  readonly metatable: TableObject | null;
}

interface ProtoObject {
  readonly k: readonly TValue[];
  readonly p: readonly ProtoObject[];
  readonly code: readonly unknown[];
}

interface ThreadObject {
  readonly stack: readonly (TValue | undefined)[] | null;
  readonly top: number;
  readonly l_G: { readonly l_registry: TValue; readonly mt: readonly (TableObject | undefined)[] };
}

type Ctor = abstract new (...args: never[]) => unknown;
const { Table } = ltableModule as unknown as { Table: Ctor };
const { TString } = lstringModule as unknown as { TString: Ctor };
const { LClosure, CClosure, Udata } = lobjectModule as unknown as { LClosure: Ctor; CClosure: Ctor; Udata: Ctor };
const { lua_State } = lstateModule as unknown as { lua_State: Ctor };
const { Proto } = lfuncModule as unknown as { Proto?: Ctor };

/** What one object is counted as besides its contents. */
const OBJECT_BYTES = 64;
/** What one instruction or constant of a function prototype is counted as. */
const CODE_BYTES = 8;

/** Estimated bytes held by the state of `L`; a figure above `cap` means "more than `cap`" (the walk stopped). */
export function retainedBytes(L: LuaState, cap: number): number {
  const thread = L as unknown as ThreadObject;
  const seen = new Set<unknown>();
  const pending: unknown[] = [thread.l_G.l_registry.value, thread];
  for (const mt of thread.l_G.mt) if (mt) pending.push(mt);
  let bytes = 0;
  const cell = (tv: TValue | undefined) => {
    const v = tv?.value;
    if (v !== null && typeof v === "object" && !seen.has(v)) pending.push(v);
  };
  while (pending.length && bytes <= cap) {
    const o = pending.pop();
    if (seen.has(o)) continue;
    seen.add(o);
    bytes += OBJECT_BYTES;
    if (o instanceof TString) {
      bytes += (o as unknown as { realstring: Uint8Array }).realstring.length;
    } else if (o instanceof Table) {
      const t = o as unknown as TableObject;
      bytes += t.strong.size * TABLE_ENTRY_BYTES;
      for (const e of t.strong.values()) {
        cell(e.key);
        cell(e.value);
        if (bytes > cap) break;
      }
      if (t.metatable) pending.push(t.metatable);
    } else if (o instanceof LClosure) {
      const c = o as unknown as { p: ProtoObject | null; upvals: readonly (TValue | undefined)[] };
      if (c.p) pending.push(c.p);
      for (const uv of c.upvals) cell(uv);
    } else if (o instanceof CClosure) {
      for (const uv of (o as unknown as { upvalue: readonly (TValue | undefined)[] }).upvalue) cell(uv);
    } else if (o instanceof Udata) {
      const u = o as unknown as { metatable: TableObject | null; uservalue: TValue };
      if (u.metatable) pending.push(u.metatable);
      cell(u.uservalue);
    } else if (o instanceof lua_State) {
      const t = o as unknown as ThreadObject;
      for (let i = 0; t.stack && i < t.top; i++) cell(t.stack[i]);
    } else if (Proto && o instanceof Proto) {
      const p = o as unknown as ProtoObject;
      bytes += (p.code.length + p.k.length) * CODE_BYTES;
      for (const k of p.k) cell(k);
      for (const child of p.p) pending.push(child);
    }
  }
  return bytes;
}
