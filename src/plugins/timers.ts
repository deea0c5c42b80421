/**
 * `phira-timer` (spec 3 §4.6): one-shot timers per plugin. A timer fires by
 * queueing `on-api("timer:fired", [timer-id])` behind the plugin's events,
 * so it runs in order with them and under the same limits. Setting an id
 * again replaces that timer; clearing an unknown or fired one does nothing.
 * At most {@link MAX_TIMERS} timers wait per plugin.
 *
 * @module
 */

import type { Clock, TimerHandle } from "../util/clock.ts";

/** Timers one plugin may have waiting. */
export const MAX_TIMERS = 1024;
/** Longest delay (the largest a runtime timer takes, about 24.8 days). */
export const MAX_DELAY_MS = 2 ** 31 - 1;
/** Longest timer id. */
const MAX_ID = 256;

/** One plugin's timers. */
export class PluginTimers {
  readonly #clock: Clock;
  readonly #fire: (id: string) => void;
  readonly #timers = new Map<string, TimerHandle>();

  /** `fire` queues the notification. */
  constructor(clock: Clock, fire: (id: string) => void) {
    this.#clock = clock;
    this.#fire = fire;
  }

  /** Timers waiting. */
  get size(): number {
    return this.#timers.size;
  }

  /** Sets (or replaces) a timer; throws a RangeError for a bad delay or id, or past the limit. */
  set(delayMs: number, id: string): void {
    if (!Number.isFinite(delayMs) || delayMs < 0 || delayMs > MAX_DELAY_MS) {
      throw new RangeError(`delay-ms must be between 0 and ${MAX_DELAY_MS}`);
    }
    if (id.length === 0 || id.length > MAX_ID) throw new RangeError(`timer-id must be 1 to ${MAX_ID} characters`);
    const old = this.#timers.get(id);
    if (!old && this.#timers.size >= MAX_TIMERS) throw new RangeError(`at most ${MAX_TIMERS} timers may wait`);
    this.#clock.clearTimeout(old);
    this.#timers.set(
      id,
      this.#clock.setTimeout(() => {
        this.#timers.delete(id);
        this.#fire(id);
      }, delayMs),
    );
  }

  /** Cancels a timer (nothing for an unknown or fired one). */
  clear(id: string): void {
    this.#clock.clearTimeout(this.#timers.get(id));
    this.#timers.delete(id);
  }

  /** Cancels every timer (the plugin stops). */
  clearAll(): void {
    for (const handle of this.#timers.values()) this.#clock.clearTimeout(handle);
    this.#timers.clear();
  }
}
