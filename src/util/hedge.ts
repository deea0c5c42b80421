/**
 * Hedged calls: when a call has not settled after a delay, a second copy
 * starts next to it and the first success wins. Under load a single HTTP
 * request to upstream can stall for seconds while its neighbours answer in
 * milliseconds (issue 15: a few of the 2,400 record fetches at the end of
 * 300 rounds); cancelling the slow attempt and retrying would throw away an
 * answer that may be about to arrive, a hedge keeps it and races a fresh
 * request against it.
 *
 * @module
 */

import type { Clock } from "./clock.ts";

/**
 * Runs `call(signal)`; if it is still pending after `delayMs` (clock time),
 * runs it a second time. Resolves with the first success and aborts the other
 * call's signal; rejects only when both calls (or the only one, if the first
 * fails before the delay) have failed, with the error of the last to fail.
 * A first call that fails before the delay starts the second at once.
 */
export function hedged<T>(clock: Clock, delayMs: number, call: (signal: AbortSignal) => Promise<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const controllers: AbortController[] = [];
    let running = 0;
    let settled = false;
    let timer: ReturnType<Clock["setTimeout"]> | undefined;
    const start = () => {
      if (settled || controllers.length === 2) return;
      clock.clearTimeout(timer);
      const ctrl = new AbortController();
      controllers.push(ctrl);
      running++;
      let p: Promise<T>;
      try {
        p = call(ctrl.signal);
      } catch (error) {
        p = Promise.reject(error);
      }
      p.then((value) => {
        running--;
        if (settled) return;
        settled = true;
        clock.clearTimeout(timer);
        for (const c of controllers) if (c !== ctrl) c.abort();
        resolve(value);
      }, (error) => {
        running--;
        if (settled) return;
        if (controllers.length < 2) return start();
        if (running > 0) return;
        settled = true;
        reject(error);
      });
    };
    start();
    if (!settled) timer = clock.setTimeout(start, delayMs);
  });
}
