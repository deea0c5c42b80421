/**
 * Time as an injected dependency: every timer in the server goes through a
 * {@link Clock}, so tests drive time with {@link ManualClock} instead of sleeping.
 *
 * @module
 */

/** Opaque handle returned by {@link Clock.setTimeout}. */
export type TimerHandle = { readonly id: number };

/** Source of time and one-shot timers. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
  /** Monotonic milliseconds, for measuring durations. */
  monotonic(): number;
  /** Runs `fn` once after `ms` milliseconds. */
  setTimeout(fn: () => void, ms: number): TimerHandle;
  /** Cancels a timer; unknown or fired handles are ignored. */
  clearTimeout(handle: TimerHandle | undefined): void;
}

/** The wall clock backed by the runtime's timers. */
export class SystemClock implements Clock {
  #handles = new Map<number, ReturnType<typeof setTimeout>>();
  #next = 1;

  now(): number {
    return Date.now();
  }

  monotonic(): number {
    return performance.now();
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const id = this.#next++;
    const raw = setTimeout(() => {
      this.#handles.delete(id);
      fn();
    }, Math.max(0, ms));
    this.#handles.set(id, raw);
    return { id };
  }

  clearTimeout(handle: TimerHandle | undefined): void {
    if (!handle) return;
    const raw = this.#handles.get(handle.id);
    if (raw !== undefined) {
      clearTimeout(raw);
      this.#handles.delete(handle.id);
    }
  }
}

type PendingTimer = { id: number; at: number; seq: number; fn: () => void };

/**
 * A clock that only moves when told to. Timers fire in due order (ties in
 * creation order) during {@link ManualClock.advance}.
 */
export class ManualClock implements Clock {
  #now: number;
  #mono = 0;
  #timers = new Map<number, PendingTimer>();
  #next = 1;
  #seq = 0;

  /** Starts at `start` epoch milliseconds (default 2026-01-01T00:00:00Z). */
  constructor(start = Date.UTC(2026, 0, 1)) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  monotonic(): number {
    return this.#mono;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const id = this.#next++;
    this.#timers.set(id, { id, at: this.#mono + Math.max(0, ms), seq: this.#seq++, fn });
    return { id };
  }

  clearTimeout(handle: TimerHandle | undefined): void {
    if (handle) this.#timers.delete(handle.id);
  }

  /** Number of timers that have not fired yet. */
  get pending(): number {
    return this.#timers.size;
  }

  /** Moves time forward by `ms`, firing every timer that falls due on the way. */
  advance(ms: number): void {
    const target = this.#mono + ms;
    for (;;) {
      let due: PendingTimer | undefined;
      for (const t of this.#timers.values()) {
        if (t.at <= target && (!due || t.at < due.at || (t.at === due.at && t.seq < due.seq))) due = t;
      }
      if (!due) break;
      this.#timers.delete(due.id);
      this.#now += due.at - this.#mono;
      this.#mono = due.at;
      due.fn();
    }
    this.#now += target - this.#mono;
    this.#mono = target;
  }
}
