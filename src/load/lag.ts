/**
 * Event-loop lag of the load generator itself: how late a 50 ms timer fires.
 * A busy generator delays the receipt of replies and relayed frames, so the
 * report shows this next to every latency it measured.
 *
 * @module
 */

import { Histogram } from "./stats.ts";

/** Samples timer lateness while running. */
export class LagMonitor {
  readonly lag = new Histogram();
  readonly #periodMs: number;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #expected = 0;

  constructor(periodMs = 50) {
    this.#periodMs = periodMs;
  }

  /** Starts sampling. */
  start(): void {
    if (this.#timer !== undefined) return;
    this.#arm();
  }

  /** Stops sampling. */
  stop(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #arm(): void {
    this.#expected = performance.now() + this.#periodMs;
    this.#timer = setTimeout(() => {
      this.lag.record(Math.max(0, performance.now() - this.#expected));
      this.#arm();
    }, this.#periodMs);
  }
}
