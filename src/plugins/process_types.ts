/**
 * What a plugin's child process is started from and how its calls end
 * (spec 3 §8: each plugin in its own process, with memory, stack and time
 * limits).
 *
 * @module
 */

/** How to start a plugin's child. */
export interface ProcessSpec {
  /** The deno executable. */
  readonly deno: string;
  /** Path of `child/runner.ts`. */
  readonly runner: string;
  /** The compiled cache entry (the only directory the child may read). */
  readonly entryDir: string;
  /** Linear memory cap in 64 KiB pages. */
  readonly maxPages: number;
  /** V8 heap cap of the child (MiB). */
  readonly heapMb: number;
  /** Stack size (bytes). */
  readonly stackBytes: number;
  /** Environment of the child (a clean one: no secrets of the server). */
  readonly env: Readonly<Record<string, string>>;
}

/** The answer to a host function call: a value, or `e` for the `err` case of a `result`. */
export type HostAnswer = { readonly v?: unknown; readonly e?: string };

/** Answers the host functions a guest calls (interface key as jco names it, camelCase function). */
export type HostCallHandler = (iface: string, fn: string, args: readonly unknown[]) => Promise<HostAnswer>;

/** How a call ended. */
export type CallOutcome =
  | { readonly kind: "ok"; readonly value: unknown }
  /** The export returned its `err` case. */
  | { readonly kind: "error"; readonly message: string }
  /** The guest trapped (its instance cannot be entered again). */
  | { readonly kind: "trap"; readonly message: string }
  /** The call overran its budget; the process was killed. */
  | { readonly kind: "timeout"; readonly message: string }
  /** The process died (out of memory, killed from outside). */
  | { readonly kind: "crash"; readonly message: string };

/** Time limits of one call. */
export interface CallLimits {
  /** The guest's own time (ms). */
  readonly guestMs: number;
  /** The whole call, host functions included (ms). */
  readonly wallMs: number;
}
