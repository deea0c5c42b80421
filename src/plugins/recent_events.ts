/**
 * The most recent domain events in brief (`runtime.events`, behind
 * `phira-runtime.events`): a ring of {@link RECENT_EVENTS} entries fed by a
 * synchronous bus listener (telemetry left out). Hidden rooms are included:
 * the operation needs `state.read` and operators see hidden rooms anyway.
 *
 * @module
 */

import type { DomainEvent, EventBus } from "../events/mod.ts";

/** Events kept. */
export const RECENT_EVENTS = 256;

/** One event in brief. */
export interface RecentEvent {
  readonly seq: number;
  readonly time: number;
  readonly kind: string;
  readonly room: string | null;
  readonly user: number | null;
}

/** The ring. */
export class RecentEvents {
  readonly #ring: (RecentEvent | undefined)[] = new Array(RECENT_EVENTS);
  #next = 0;
  #count = 0;
  readonly #stop: () => void;

  constructor(bus: EventBus) {
    this.#stop = bus.listen((event) => this.#add(event));
  }

  #add(event: DomainEvent): void {
    this.#ring[this.#next] = {
      seq: event.seq,
      time: event.time,
      kind: event.kind,
      room: "room" in event ? event.room : null,
      user: "user" in event && typeof event.user === "number" ? event.user : null,
    };
    this.#next = (this.#next + 1) % RECENT_EVENTS;
    this.#count = Math.min(RECENT_EVENTS, this.#count + 1);
  }

  /** The last `n` events, oldest first. */
  latest(n: number): RecentEvent[] {
    const take = Math.min(n, this.#count);
    const out: RecentEvent[] = [];
    for (let i = take; i > 0; i--) out.push(this.#ring[(this.#next - i + RECENT_EVENTS) % RECENT_EVENTS]!);
    return out;
  }

  /** Stops listening. */
  close(): void {
    this.#stop();
  }
}
