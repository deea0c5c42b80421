/**
 * One memory-reducing garbage collection once start-up is done (issue 15,
 * "RSS after start"). Start-up leaves garbage (the configuration's parse,
 * migrations, the journal's recovery) and code that never runs again; left
 * alone, V8's memory reducer gives that back only after ~40 s of quiet.
 * Collected at once, the server idles ~6 MiB smaller from its first
 * second (measured: 70 -> 64 MiB with HTTP off, BENCHMARKS.md).
 *
 * V8's `gc` is a global only with `--expose-gc`, which the start task, the
 * systemd units, the container and the binary pass; elsewhere (tests run
 * in-process, other roles) nothing happens.
 *
 * @module
 */

/** V8's `gc` with the options this module uses. */
export type GcFunction = (options: { type: "major"; execution: "sync"; flavor: "last-resort" }) => void;

/** What one collection did, in bytes and milliseconds. */
export interface StartupGc {
  readonly heapBefore: number;
  readonly heapAfter: number;
  readonly ms: number;
}

/** V8's `gc` when the process runs with `--expose-gc`, else null. */
export function exposedGc(scope: object = globalThis): GcFunction | null {
  const gc = (scope as { gc?: unknown }).gc;
  return typeof gc === "function" ? gc as GcFunction : null;
}

/**
 * Runs a full, memory-reducing collection ("last resort": everything
 * unreachable, unused compiled code included) with `gc`; null without one.
 */
export function collectStartupGarbage(
  gc: GcFunction | null,
  heapUsed: () => number = () => Deno.memoryUsage().heapUsed,
  now: () => number = () => performance.now(),
): StartupGc | null {
  if (!gc) return null;
  const heapBefore = heapUsed();
  const started = now();
  gc({ type: "major", execution: "sync", flavor: "last-resort" });
  return { heapBefore, heapAfter: heapUsed(), ms: now() - started };
}
