/**
 * The memory limits of one Lua state (spec 3 §4.8 "bounded memory"):
 *
 * - **per call**: the heap (V8's used heap plus external memory, where
 *   string bytes live) may grow by `memoryBytes` during one call. It is
 *   compared with the call's start at every {@link MEMORY_EVERY}th tick of
 *   the count hook and, through the allocation meter (`fengari.ts`), each
 *   time the call has made another quarter of the limit in strings and
 *   table entries -- a call making a thousand 1 MiB strings in a few
 *   thousand instructions is stopped at its limit, not after them.
 * - **held between calls**: once the state's calls have made a quarter of
 *   `stateBytes` since the last measurement, what the state holds is
 *   measured (`retained.ts`); more than `stateBytes` is an `oversized`
 *   failure, and the host drops the state, which frees it.
 *
 * @module
 */

import type { LuaState } from "./fengari.ts";
import { allocatedBytes, type AllocationCheck, armAllocationCheck } from "./fengari_meters.ts";
import { retainedBytes } from "./retained.ts";
import type { CallLimits } from "./runtime_types.ts";

/** Hook ticks between two heap measurements (a measurement costs about a microsecond). */
export const MEMORY_EVERY = 8;

/** Bytes as MiB with one decimal. */
function mib(n: number): string {
  return (n / 1048576).toFixed(1);
}

/** The memory bookkeeping of one state. */
export class MemoryMeter {
  readonly #limits: CallLimits;
  readonly #heapBytes: () => number;
  /** The heap at the call's start, measured lazily (-1: not yet; a short call never pays for it). */
  #heapAtStart = -1;
  /** The allocation meter's reading when the running call started. */
  #madeAtStart = 0;
  /** What this state's calls made since its holdings were last measured. */
  #madeSinceMeasure = 0;
  /** The running call's overrun, once found. */
  #over: string | null = null;
  /** The check of the call this one runs inside, restored when it ends. */
  #outer: AllocationCheck = { mark: Infinity, onMark: null };

  constructor(limits: CallLimits, heapBytes: () => number) {
    this.#limits = limits;
    this.#heapBytes = heapBytes;
  }

  /** The running call's overrun message, or null. */
  get over(): string | null {
    return this.#over;
  }

  /** Bytes made between two checks of a call's heap growth. */
  get #step(): number {
    return Math.max(1 << 20, this.#limits.memoryBytes / 4);
  }

  /** A call starts: the allocation check is armed for it. */
  begin(): void {
    this.#heapAtStart = -1;
    this.#over = null;
    this.#madeAtStart = allocatedBytes();
    this.#outer = armAllocationCheck(this.#madeAtStart + this.#step, this.#onMark);
  }

  /** The count hook's `ticks`th tick; the overrun message when the call grew the heap past its limit, else null. */
  tick(ticks: number): string | null {
    if (this.#over) return this.#over;
    if (this.#heapAtStart < 0) this.#heapAtStart = this.#heapBytes();
    else if (ticks % MEMORY_EVERY === 0) this.#check(this.#heapBytes());
    return this.#over;
  }

  /** The call ended: the check is disarmed, and what the state holds is measured when due (`oversized`, or null). */
  end(L: LuaState | null): string | null {
    armAllocationCheck(this.#outer.mark, this.#outer.onMark);
    if (!L) return null;
    this.#madeSinceMeasure += allocatedBytes() - this.#madeAtStart;
    if (this.#madeSinceMeasure <= this.#limits.stateBytes / 4) return null;
    this.#madeSinceMeasure = 0;
    if (retainedBytes(L, this.#limits.stateBytes) <= this.#limits.stateBytes) return null;
    return `the plugin holds more than ${mib(this.#limits.stateBytes)} MiB of Lua data (legacy.lua_state_memory_mb)`;
  }

  #check(now: number): void {
    const grown = now - this.#heapAtStart;
    if (grown > this.#limits.memoryBytes) {
      this.#over ??= `memory limit exceeded (the heap grew by ${mib(grown)} MiB; the limit is ${
        mib(this.#limits.memoryBytes)
      } MiB)`;
    }
  }

  /**
   * The allocation meter passed the call's mark: the heap is compared with
   * the call's start. Past the limit the call is stopped -- at once for a
   * string (`mayThrow`: the RangeError becomes a Lua error, and every
   * further string of the call is refused), at the next hook tick for a
   * table entry. Otherwise the check is armed one step further.
   */
  readonly #onMark = (mayThrow: boolean): void => {
    const now = this.#heapBytes();
    // A call measured here first: its growth so far is about what it made.
    if (this.#heapAtStart < 0) this.#heapAtStart = now - (allocatedBytes() - this.#madeAtStart);
    this.#check(now);
    // Past the limit it stays armed at once: every further string of the call is refused.
    armAllocationCheck(allocatedBytes() + (this.#over ? 0 : this.#step), this.#onMark);
    if (!this.#over) return;
    if (mayThrow) throw new RangeError(this.#over);
  };
}
