/**
 * One wake-up timer per room for its next deadline (ready countdown, playing
 * deadline, progress notice; see `nextWake`). The time-driven transitions
 * themselves stay in the pure room machine (`tick`); only the wake-up lives here.
 *
 * @module
 */

import { nextWake, type Room } from "../room/mod.ts";
import type { Clock, TimerHandle } from "../util/clock.ts";

/** Keeps each room's timer armed for its earliest deadline. */
export class RoomTimers {
  readonly #clock: () => Clock;
  readonly #fire: (roomId: string) => void;
  readonly #wakes = new Map<string, { at: number; timer: TimerHandle }>();

  /** `fire` runs when a room's deadline is due. */
  constructor(clock: () => Clock, fire: (roomId: string) => void) {
    this.#clock = clock;
    this.#fire = fire;
  }

  /** Re-arms (or cancels) the timer of a room after it changed; `room` null = deleted. */
  schedule(roomId: string, room: Room | null): void {
    const at = room ? nextWake(room) : null;
    const current = this.#wakes.get(roomId);
    if (current && current.at === at) return;
    const clock = this.#clock();
    if (current) clock.clearTimeout(current.timer);
    if (at === null) {
      this.#wakes.delete(roomId);
      return;
    }
    const timer = clock.setTimeout(() => {
      this.#wakes.delete(roomId);
      this.#fire(roomId);
    }, Math.max(0, at - clock.now()));
    this.#wakes.set(roomId, { at, timer });
  }

  /** Cancels every timer. */
  clear(): void {
    const clock = this.#clock();
    for (const { timer } of this.#wakes.values()) clock.clearTimeout(timer);
    this.#wakes.clear();
  }
}
