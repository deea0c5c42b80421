/**
 * Room snapshots of persistent empty rooms (spec 3 §2.1: "its snapshot is
 * saved after a 500 ms debounce"): each save restarts the room's 500 ms
 * timer and only the last payload is journaled; a room that keeps changing
 * is still saved at least every 5 s. Deleting a room's snapshot cancels a
 * pending save.
 *
 * @module
 */

import type { Clock, TimerHandle } from "../../util/clock.ts";

/** Options of {@link SnapshotDebouncer}. */
export interface SnapshotDebouncerOptions {
  readonly clock: Clock;
  /** Journals a snapshot; `payload: null` deletes it. */
  readonly emit: (room: string, payload: unknown) => void;
  readonly delayMs?: number;
  readonly maxDelayMs?: number;
}

interface Pending {
  payload: unknown;
  since: number;
  timer: TimerHandle | undefined;
}

/** Debounces room snapshot saves. */
export class SnapshotDebouncer {
  readonly #o: SnapshotDebouncerOptions;
  readonly #pending = new Map<string, Pending>();

  constructor(o: SnapshotDebouncerOptions) {
    this.#o = o;
  }

  /** Saves waiting for their debounce. */
  get pending(): number {
    return this.#pending.size;
  }

  /** Schedules a save of `payload` for `room`. */
  save(room: string, payload: unknown): void {
    const { clock } = this.#o;
    const now = clock.monotonic();
    const p = this.#pending.get(room) ?? { payload, since: now, timer: undefined };
    p.payload = payload;
    clock.clearTimeout(p.timer);
    const delay = this.#o.delayMs ?? 500;
    const left = Math.max(0, (this.#o.maxDelayMs ?? 5000) - (now - p.since));
    p.timer = clock.setTimeout(() => this.#flush(room), Math.min(delay, left));
    this.#pending.set(room, p);
  }

  /** Deletes `room`'s snapshot now, dropping a pending save. */
  delete(room: string): void {
    const p = this.#pending.get(room);
    if (p) {
      this.#o.clock.clearTimeout(p.timer);
      this.#pending.delete(room);
    }
    this.#o.emit(room, null);
  }

  /** Journals every pending save now (shutdown). */
  flushAll(): void {
    for (const room of [...this.#pending.keys()]) this.#flush(room);
  }

  #flush(room: string): void {
    const p = this.#pending.get(room);
    if (!p) return;
    this.#o.clock.clearTimeout(p.timer);
    this.#pending.delete(room);
    this.#o.emit(room, p.payload ?? {});
  }
}
