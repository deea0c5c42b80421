/**
 * In-process event bus. Each subscriber has its own bounded buffer: when a
 * consumer falls behind, the oldest events are dropped and it receives one
 * `lagged` item with the number skipped before the next event, then goes on.
 * Publishing never waits for a subscriber, so a slow consumer never slows the
 * game (issue 3 "Events"; spec 1 §2.3 `stream_lagged`).
 *
 * @module
 */

import type { Logger } from "../util/log.ts";
import type { DomainEvent, DomainEventInput, DomainEventKind } from "./types.ts";
import { TELEMETRY_KINDS } from "./types.ts";

/** What a subscriber reads: an event, or a note that events were skipped. */
export type BusItem = { readonly type: "event"; readonly event: DomainEvent } | {
  readonly type: "lagged";
  readonly skipped: number;
};

/** Options of {@link EventBus.subscribe}. */
export interface SubscribeOptions {
  /** Kinds wanted; omitted = every kind except telemetry (touches/judges). */
  kinds?: Iterable<DomainEventKind>;
  /** Buffered events before the oldest is dropped (default 1024). */
  capacity?: number;
  /** Extra filter applied at publish time (e.g. skip hidden rooms). */
  filter?: (event: DomainEvent) => boolean;
}

/** One subscriber's bounded view of the bus. */
export class Subscription implements AsyncIterable<BusItem> {
  readonly capacity: number;
  #buffer: (DomainEvent | undefined)[];
  #head = 0;
  #size = 0;
  #skipped = 0;
  #totalSkipped = 0;
  #waiter: ((item: BusItem | null) => void) | null = null;
  #closed = false;
  #detach: () => void;
  readonly filter: ((event: DomainEvent) => boolean) | undefined;

  constructor(capacity: number, detach: () => void, filter?: (event: DomainEvent) => boolean) {
    this.capacity = Math.max(1, capacity);
    this.#buffer = new Array(this.capacity);
    this.#detach = detach;
    this.filter = filter;
  }

  /** Events dropped over this subscription's life. */
  get totalSkipped(): number {
    return this.#totalSkipped;
  }

  /** Events waiting to be read. */
  get size(): number {
    return this.#size;
  }

  /** True once {@link close} was called. */
  get closed(): boolean {
    return this.#closed;
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
    if (this.#size === this.capacity) {
      this.#head = (this.#head + 1) % this.capacity;
      this.#size--;
      this.#skipped++;
      this.#totalSkipped++;
    }
    this.#buffer[(this.#head + this.#size) % this.capacity] = event;
    this.#size++;
  }

  /** The next item without waiting, or undefined when none is buffered. */
  tryNext(): BusItem | undefined {
    if (this.#skipped > 0) {
      const skipped = this.#skipped;
      this.#skipped = 0;
      return { type: "lagged", skipped };
    }
    if (this.#size === 0) return undefined;
    const event = this.#buffer[this.#head]!;
    this.#buffer[this.#head] = undefined;
    this.#head = (this.#head + 1) % this.capacity;
    this.#size--;
    return { type: "event", event };
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
    this.#buffer = [];
    this.#size = 0;
    const waiter = this.#waiter;
    this.#waiter = null;
    waiter?.(null);
  }

  async *[Symbol.asyncIterator](): AsyncIterator<BusItem> {
    for (let item = await this.next(); item; item = await this.next()) yield item;
  }
}

/** Publish/subscribe hub for domain events with one global sequence. */
export class EventBus {
  #seq = 0;
  #now: () => number;
  #byKind = new Map<DomainEventKind, Set<Subscription>>();
  #defaults = new Set<Subscription>();
  #listeners = new Set<(event: DomainEvent) => void>();
  #telemetryListeners = new Set<(event: DomainEvent) => void>();
  #published = 0;
  #listenerFailures = 0;
  /** Event kinds whose listener failure was logged already (bounded by the number of kinds). */
  #failureLogged = new Set<DomainEventKind>();
  #log: Logger | null;

  /**
   * `now` stamps event times (inject the server clock); `log` reports the
   * first listener failure of each event kind.
   */
  constructor(now: () => number = Date.now, options: { log?: Logger } = {}) {
    this.#now = now;
    this.#log = options.log ?? null;
  }

  /** Listener calls that threw since start (contained by {@link publish}; shown in the runtime report). */
  get listenerFailures(): number {
    return this.#listenerFailures;
  }

  /** Last sequence number assigned. */
  get seq(): number {
    return this.#seq;
  }

  /** Number of live subscriptions (each counted once). */
  get subscriberCount(): number {
    const all = new Set(this.#defaults);
    for (const set of this.#byKind.values()) for (const s of set) all.add(s);
    return all.size;
  }

  /** Events published so far. */
  get published(): number {
    return this.#published;
  }

  /** True when someone listens for `kind`; lets hot paths skip building events nobody reads. */
  wants(kind: DomainEventKind): boolean {
    if ((this.#byKind.get(kind)?.size ?? 0) > 0) return true;
    return TELEMETRY_KINDS.has(kind)
      ? this.#telemetryListeners.size > 0
      : this.#defaults.size > 0 || this.#listeners.size > 0;
  }

  /** Stamps and delivers an event. Cost is proportional to the subscribers of its kind only. */
  publish(input: DomainEventInput): DomainEvent {
    const event = { ...input, seq: ++this.#seq, time: this.#now() } as DomainEvent;
    this.#published++;
    const specific = this.#byKind.get(event.kind);
    if (specific) { for (const sub of specific) if (!sub.filter || sub.filter(event)) sub.push(event); }
    const telemetry = TELEMETRY_KINDS.has(event.kind);
    if (!telemetry) { for (const sub of this.#defaults) if (!sub.filter || sub.filter(event)) sub.push(event); }
    for (const listener of telemetry ? this.#telemetryListeners : this.#listeners) {
      // Publishing happens in the middle of applying a room transition: a
      // throwing listener must not abort the command that published.
      try {
        listener(event);
      } catch (error) {
        this.#listenerFailed(event.kind, error);
      }
    }
    return event;
  }

  #listenerFailed(kind: DomainEventKind, error: unknown): void {
    this.#listenerFailures++;
    // Once per kind: a listener that always throws would otherwise log on every event.
    if (this.#failureLogged.has(kind)) return;
    this.#failureLogged.add(kind);
    this.#log?.error("event listener failed; later failures for this event type are only counted", {
      event: kind,
      error: error instanceof Error ? error.message : String(error),
    });
  }

  /** A pull subscription with a bounded buffer. */
  subscribe(options: SubscribeOptions = {}): Subscription {
    const kinds = options.kinds ? [...new Set(options.kinds)] : null;
    const sub: Subscription = new Subscription(options.capacity ?? 1024, () => {
      if (kinds) { for (const k of kinds) this.#byKind.get(k)?.delete(sub); }
      else this.#defaults.delete(sub);
    }, options.filter);
    if (kinds) {
      for (const k of kinds) {
        let set = this.#byKind.get(k);
        if (!set) this.#byKind.set(k, set = new Set());
        set.add(sub);
      }
    } else this.#defaults.add(sub);
    return sub;
  }

  /**
   * A synchronous listener called for every event, telemetry (touches,
   * judges) included only when asked for: it is by far the busiest traffic,
   * and `wants()` lets the relay skip building events nobody reads. The
   * listener must be quick; an error it throws is counted and logged, never
   * passed to the publisher. For in-process bookkeeping only.
   */
  listen(fn: (event: DomainEvent) => void, options: { telemetry?: boolean } = {}): () => void {
    this.#listeners.add(fn);
    if (options.telemetry) this.#telemetryListeners.add(fn);
    return () => {
      this.#listeners.delete(fn);
      this.#telemetryListeners.delete(fn);
    };
  }
}
