/**
 * One subscriber's bounded view of the bus, in one of two modes. Pushing
 * is O(1) and never waits: the publisher (the game) is never slowed.
 *
 * - `latest` (browsers, dashboards): when the buffer is full the oldest
 *   event is dropped; the reader gets one `lagged {skipped}` before the next
 *   event and goes on with the newest (spec 1 §2.3 `stream_lagged`).
 * - `reliable` (plugins, spec 3 §4.6 "reliable delivery through a bounded
 *   queue"): events are delivered in order and none is dropped while the
 *   reader keeps up. When `capacity` events are waiting, a new event is
 *   refused instead of pushing an older one out: the refusal is counted
 *   (`overflowed`, shown in the bus status), and the reader meets a
 *   `lagged {skipped}` exactly where the gap is, after every event queued
 *   before it. Back-pressure is reported, never silent.
 *
 * @module
 */

import type { DomainEvent, DomainEventKind } from "./types.ts";

/** What a subscriber reads: an event, or a note that events were skipped here. */
export type BusItem = { readonly type: "event"; readonly event: DomainEvent } | {
  readonly type: "lagged";
  readonly skipped: number;
};

/** How a full buffer behaves: drop the oldest (`latest`), or refuse and count the newest (`reliable`). */
export type DeliveryMode = "latest" | "reliable";

/** A subscription as the bus status shows it. */
export interface SubscriptionStatus {
  readonly name: string;
  readonly mode: DeliveryMode;
  /** Kinds subscribed to by name; null = every kind except telemetry. */
  readonly kinds: readonly DomainEventKind[] | null;
  readonly capacity: number;
  /** Events waiting to be read. */
  readonly queued: number;
  /** Events the reader never got: dropped oldest (`latest`) or refused newest (`reliable`). */
  readonly skipped: number;
}

/** A gap marker in a reliable buffer: this many events were refused here. */
class Gap {
  constructor(public skipped: number) {}
}

/** One subscriber's bounded view of the bus. */
export class Subscription implements AsyncIterable<BusItem> {
  readonly capacity: number;
  readonly mode: DeliveryMode;
  readonly name: string;
  readonly kinds: readonly DomainEventKind[] | null;
  readonly filter: ((event: DomainEvent) => boolean) | undefined;
  /** A ring of events (and, in reliable mode, gap markers: at most one after each event, plus one). */
  #ring: (DomainEvent | Gap | undefined)[];
  #head = 0;
  #length = 0;
  /** Events in the ring (markers excluded). */
  #events = 0;
  /** Latest mode: events dropped since the last read, reported before the next event. */
  #skipped = 0;
  #totalSkipped = 0;
  #waiter: ((item: BusItem | null) => void) | null = null;
  #closed = false;
  #detach: () => void;
  #onOverflow: (() => void) | null;
  #overflowing = false;

  constructor(options: {
    capacity: number;
    mode?: DeliveryMode;
    name?: string;
    kinds?: readonly DomainEventKind[] | null;
    detach: () => void;
    filter?: ((event: DomainEvent) => boolean) | undefined;
    /** Reliable mode: called when the buffer starts refusing events (once per episode, until it drains). */
    onOverflow?: () => void;
  }) {
    this.capacity = Math.max(1, options.capacity);
    this.mode = options.mode ?? "latest";
    this.name = options.name ?? "subscriber";
    this.kinds = options.kinds ?? null;
    this.#ring = new Array(this.mode === "reliable" ? 2 * this.capacity + 1 : this.capacity);
    this.#detach = options.detach;
    this.filter = options.filter;
    this.#onOverflow = options.onOverflow ?? null;
  }

  /** Events this subscriber never got over its life (dropped, or refused in reliable mode). */
  get totalSkipped(): number {
    return this.#totalSkipped;
  }

  /** Events waiting to be read. */
  get size(): number {
    return this.#events;
  }

  /** Items waiting to be read: events and gap notices. */
  get pending(): number {
    return this.#length + (this.#skipped > 0 ? 1 : 0);
  }

  /** True while a reader waits in {@link next} (the next event goes straight to it). */
  get reading(): boolean {
    return this.#waiter !== null;
  }

  /** True once {@link close} was called. */
  get closed(): boolean {
    return this.#closed;
  }

  /** What the bus status shows of it. */
  status(): SubscriptionStatus {
    return {
      name: this.name,
      mode: this.mode,
      kinds: this.kinds,
      capacity: this.capacity,
      queued: this.#events,
      skipped: this.#totalSkipped,
    };
  }

  /** Called by the bus; O(1), never blocks. */
  push(event: DomainEvent): void {
    if (this.#closed) return;
    if (this.#waiter) {
      const resolve = this.#waiter;
      this.#waiter = null;
      resolve({ type: "event", event });
      return;
    }
    if (this.#events === this.capacity) {
      this.#totalSkipped++;
      if (this.mode === "reliable") return this.#refuse();
      // Latest: the oldest event goes (the ring holds only events in this mode).
      this.#ring[this.#head] = undefined;
      this.#head = (this.#head + 1) % this.#ring.length;
      this.#length--;
      this.#events--;
      this.#skipped++;
    }
    this.#append(event);
    this.#events++;
  }

  #append(entry: DomainEvent | Gap): void {
    this.#ring[(this.#head + this.#length) % this.#ring.length] = entry;
    this.#length++;
  }

  /** Reliable mode, full: the new event is refused and marked where it would have been. */
  #refuse(): void {
    const tail = this.#ring[(this.#head + this.#length - 1) % this.#ring.length];
    if (this.#length > 0 && tail instanceof Gap) tail.skipped++;
    else this.#append(new Gap(1));
    if (this.#overflowing) return;
    this.#overflowing = true;
    this.#onOverflow?.();
  }

  /** The next item without waiting, or undefined when none is buffered. */
  tryNext(): BusItem | undefined {
    if (this.#skipped > 0) {
      const skipped = this.#skipped;
      this.#skipped = 0;
      return { type: "lagged", skipped };
    }
    if (this.#length === 0) return undefined;
    const entry = this.#ring[this.#head]!;
    this.#ring[this.#head] = undefined;
    this.#head = (this.#head + 1) % this.#ring.length;
    this.#length--;
    if (entry instanceof Gap) return { type: "lagged", skipped: entry.skipped };
    this.#events--;
    // An overflow episode ends once the reader has made room again.
    if (this.#overflowing && this.#events <= this.capacity / 2) this.#overflowing = false;
    return { type: "event", event: entry };
  }

  /** The next item; resolves null once the subscription is closed. */
  next(): Promise<BusItem | null> {
    const item = this.tryNext();
    if (item) return Promise.resolve(item);
    if (this.#closed) return Promise.resolve(null);
    if (this.#waiter) return Promise.reject(new Error("Cannot read subscription: another read is pending"));
    return new Promise((resolve) => (this.#waiter = resolve));
  }

  /** Detaches from the bus and ends any pending read with null. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#detach();
    this.#ring = [];
    this.#length = 0;
    this.#events = 0;
    const waiter = this.#waiter;
    this.#waiter = null;
    waiter?.(null);
  }

  async *[Symbol.asyncIterator](): AsyncIterator<BusItem> {
    for (let item = await this.next(); item; item = await this.next()) yield item;
  }
}
