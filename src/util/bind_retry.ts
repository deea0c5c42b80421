/**
 * Binding a port that the previous process may still hold (spec 3 §5.4: the
 * new process binds its ports with a 3-second retry window): an
 * `AddrInUse` (Deno) or `EADDRINUSE` (a `node:net`/`node:http` listener) is
 * retried every 100 ms on the injected clock until the window has passed,
 * then thrown. Any other error is thrown at once. `bind` may be asynchronous.
 *
 * @module
 */

import type { Clock } from "./clock.ts";

/** The retry window of spec 3 §5.4. */
export const BIND_RETRY_MS = 3000;
/** Pause between attempts. */
const STEP_MS = 100;

/** Calls `bind` until it does not fail with `AddrInUse` or `windowMs` has passed. */
export async function bindWithRetry<T>(
  bind: () => T | Promise<T>,
  clock: Clock,
  windowMs = BIND_RETRY_MS,
): Promise<T> {
  const until = clock.monotonic() + windowMs;
  for (;;) {
    try {
      return await bind();
    } catch (error) {
      if (!addrInUse(error) || clock.monotonic() >= until) throw error;
    }
    await new Promise<void>((resolve) => clock.setTimeout(resolve, Math.min(STEP_MS, until - clock.monotonic())));
  }
}

/** True for "address in use" from Deno's listeners and from node's. */
function addrInUse(error: unknown): boolean {
  return error instanceof Deno.errors.AddrInUse || (error as { code?: unknown } | null)?.code === "EADDRINUSE";
}
