/**
 * In-process event bus. Each subscriber has its own bounded buffer
 * (`subscription.ts`): in `latest` mode a consumer that falls behind loses
 * the oldest events and receives one `lagged` item with the number skipped
 * before the next event (browsers; spec 1 §2.3 `stream_lagged`); in
 * `reliable` mode events stay in order and the newest are refused, counted
 * and reported when the buffer is full (plugins; spec 3 §4.6), and
 * {@link EventBus.deliver} pushes them to a handler one at a time.
 * Publishing never waits for a subscriber, so a slow consumer never slows
 * the game (issue 3 "Events").
 *
 * @module
 */

import type { Logger } from "../util/log.ts";
import { Delivery, type DeliveryHandler, type DeliveryStatus } from "./delivery.ts";
import { type DeliveryMode, Subscription, type SubscriptionStatus } from "./subscription.ts";
import type { DomainEvent, DomainEventInput, DomainEventKind } from "./types.ts";
import { TELEMETRY_KINDS } from "./types.ts";

export { type BusItem, type DeliveryMode, Subscription, type SubscriptionStatus } from "./subscription.ts";
export { Delivery, type DeliveryHandler, type DeliveryStatus } from "./delivery.ts";

/** The bus as the runtime status shows it. */
export interface BusStatus {
  readonly sequence: number;
  readonly published: number;
  readonly subscribers: number;
  readonly listenerFailures: number;
  /** Reliable subscriptions (plugins and other extensions), with their back-pressure figures. */
  readonly reliable: readonly SubscriptionStatus[];
  /** Push deliveries ({@link EventBus.deliver}). */
  readonly deliveries: readonly DeliveryStatus[];
}

/** Options of {@link EventBus.subscribe}. */
export interface SubscribeOptions {
  /** Kinds wanted; omitted = every kind except telemetry (touches/judges). */
  kinds?: Iterable<DomainEventKind>;
  /** Buffered events (default 1024; 2048 for {@link EventBus.deliver}, spec 3 §8 plugin queue). */
  capacity?: number;
  /** Extra filter applied at publish time (e.g. skip hidden rooms). */
  filter?: (event: DomainEvent) => boolean;
  /** `latest` (default): drop the oldest when full. `reliable`: keep order, refuse and count the newest. */
  mode?: DeliveryMode;
  /** Shown in the bus status (e.g. `plugin:<id>`). */
  name?: string;
  /** Reliable mode: called once when the buffer starts refusing events (until it drains to half). */
  onOverflow?: () => void;
}

/** Publish/subscribe hub for domain events with one global sequence. */
export class EventBus {
  #seq = 0;
  #now: () => number;
  #byKind = new Map<DomainEventKind, Set<Subscription>>();
  #defaults = new Set<Subscription>();
  /** Reliable subscriptions, listed in the status (browsers' `latest` ones are too many and too short-lived). */
  #reliable = new Set<Subscription>();
  #deliveries = new Set<Delivery>();
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
    const telemetry = TELEMETRY_KINDS.has(input.kind);
    // A telemetry input is made per message by the relay and becomes the event itself: no copy per message, and a
    // copy would also decode the lazily decoded frames or judges it carries (protocol/telemetry_view.ts).
    const event = (telemetry ? stamp(input, ++this.#seq, this.#now()) : {
      ...input,
      seq: ++this.#seq,
      time: this.#now(),
    }) as DomainEvent;
    this.#published++;
    const specific = this.#byKind.get(event.kind);
    if (specific) { for (const sub of specific) if (!sub.filter || sub.filter(event)) sub.push(event); }
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
    const sub: Subscription = new Subscription({
      capacity: options.capacity ?? 1024,
      kinds,
      filter: options.filter,
      ...(options.mode ? { mode: options.mode } : {}),
      ...(options.name ? { name: options.name } : {}),
      ...(options.onOverflow ? { onOverflow: options.onOverflow } : {}),
      detach: () => {
        this.#reliable.delete(sub);
        if (kinds) { for (const k of kinds) this.#byKind.get(k)?.delete(sub); }
        else this.#defaults.delete(sub);
      },
    });
    if (sub.mode === "reliable") this.#reliable.add(sub);
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
   * Reliable push delivery (spec 3 §4.6): `handler` gets every event of the
   * wanted kinds in order, one call at a time (an async handler is awaited
   * first), from a bounded queue (default 2048, spec 3 §8) whose overflow is
   * counted, reported in {@link status} and marked by a `lagged` item.
   * `close()` the delivery to stop it.
   */
  deliver(handler: DeliveryHandler, options: Omit<SubscribeOptions, "mode"> & { name: string }): Delivery {
    const sub = this.subscribe({
      capacity: 2048,
      ...options,
      mode: "reliable",
      onOverflow: () => {
        this.#log?.warn("event delivery cannot keep up: its queue is full, new events are refused and counted", {
          delivery: options.name,
          capacity: sub.capacity,
        });
        options.onOverflow?.();
      },
    });
    const delivery: Delivery = new Delivery(sub, handler, this.#log, () => this.#deliveries.delete(delivery));
    this.#deliveries.add(delivery);
    return delivery;
  }

  /** Figures of the bus and of every reliable subscriber (shown by `runtime`). */
  status(): BusStatus {
    return {
      sequence: this.#seq,
      published: this.#published,
      subscribers: this.subscriberCount,
      listenerFailures: this.#listenerFailures,
      reliable: [...this.#reliable].map((s) => s.status()),
      deliveries: [...this.#deliveries].map((d) => d.status()),
    };
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

/** Adds the sequence and time to an input in place (telemetry inputs only: their publisher lets go of them). */
function stamp(input: DomainEventInput, seq: number, time: number): DomainEvent {
  const event = input as { seq?: number; time?: number };
  event.seq = seq;
  event.time = time;
  return input as DomainEvent;
}
