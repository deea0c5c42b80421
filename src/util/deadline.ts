/**
 * One time budget shared by several steps (graceful shutdown, issue 3
 * "Lifecycle"): each step is raced against what is left of it, so a stuck
 * step is abandoned instead of pushing the whole sequence past its limit.
 *
 * @module
 */

import type { Clock, TimerHandle } from "./clock.ts";

/** A point in time, `budgetMs` after construction, on the injected clock. */
export class Deadline {
  readonly #clock: Clock;
  readonly #at: number;

  constructor(clock: Clock, budgetMs: number) {
    this.#clock = clock;
    this.#at = clock.monotonic() + Math.max(0, budgetMs);
  }

  /** Milliseconds left (0 once passed). */
  remaining(): number {
    return Math.max(0, this.#at - this.#clock.monotonic());
  }

  /**
   * Waits for `step` until the deadline: true when it settled in time
   * (a rejection counts as settled), false when the deadline came first.
   */
  async within(step: Promise<unknown>): Promise<boolean> {
    let timer: TimerHandle | undefined;
    const late = new Promise<false>((
      resolve,
    ) => (timer = this.#clock.setTimeout(() => resolve(false), this.remaining())));
    try {
      return await Promise.race([step.then(() => true, () => true), late]);
    } finally {
      this.#clock.clearTimeout(timer);
    }
  }
}
