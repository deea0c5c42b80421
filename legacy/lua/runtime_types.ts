/**
 * The limits and outcomes of calls into a Lua state (spec 3 §4.8 sandbox).
 *
 * @module
 */

import v8 from "node:v8";
import type { SandboxOptions } from "./sandbox.ts";

/** Limits of one call. */
export interface CallLimits {
  /** Instructions one call may run. */
  readonly instructions: number;
  /** Heap growth one call may cause, in bytes. */
  readonly memoryBytes: number;
  /** What one plugin's state may hold between calls, in bytes (`retained.ts`). */
  readonly stateBytes: number;
}

/** Why a call failed (`oversized`: the state holds more than `stateBytes`; it should be dropped). */
export type FailureKind = "error" | "budget" | "memory" | "oversized" | "busy";

/** Outcome of a call. */
export type CallOutcome<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly kind: FailureKind; readonly message: string };

/** Options of {@link LuaRuntime}. */
export interface RuntimeOptions extends SandboxOptions {
  readonly limits: CallLimits;
  /** Bytes in use now (default: V8 used heap plus external memory). */
  readonly heapBytes?: () => number;
}

/** V8's used heap plus external memory (the backing stores of Lua strings). */
export function processHeapBytes(): number {
  const s = v8.getHeapStatistics();
  return s.used_heap_size + s.external_memory;
}

/** A compiled chunk that failed to load. */
export class LuaLoadError extends Error {
  override readonly name = "LuaLoadError";
}

/** The shortest wall time a call is allowed (`callTimeMs`). */
export const MIN_CALL_MS = 500;

/**
 * The wall time after which a call's pattern matching is stopped: about a
 * microsecond per instruction of its budget, at least {@link MIN_CALL_MS}.
 * Instructions bound the Lua code; this bounds a backtracking pattern,
 * which runs inside one instruction where the count hook cannot see it.
 */
export function callTimeMs(limits: CallLimits): number {
  return Math.max(MIN_CALL_MS, Math.round(limits.instructions / 1000));
}

/** The message of a call stopped for its time. */
export function timeMessage(limits: CallLimits): string {
  return `time limit exceeded (pattern matching after the call ran ${callTimeMs(limits)} ms)`;
}
