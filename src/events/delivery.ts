/**
 * Push delivery for extensions (spec 3 §4.6: plugin events are delivered
 * reliably through a bounded queue): a {@link Delivery} reads a reliable
 * subscription and calls one handler per item, strictly in order and one
 * at a time -- an asynchronous handler (a plugin in another thread or
 * process) is awaited before the next item. The game never waits for it:
 * while the handler is slow, events queue up to the capacity; beyond it
 * they are refused, counted and reported (a `lagged` item at the gap, the
 * `overflowed` figure in the bus status, `onOverflow` once per episode).
 *
 * @module
 */

import type { Logger } from "../util/log.ts";
import type { BusItem, Subscription } from "./subscription.ts";

/** Receives one item; a rejection or throw is counted and logged, and delivery goes on with the next. */
export type DeliveryHandler = (item: BusItem) => void | Promise<void>;

/** Figures of a delivery, as the bus status shows them. */
export interface DeliveryStatus {
  readonly name: string;
  readonly capacity: number;
  /** Events waiting for the handler. */
  readonly queued: number;
  /** Items handed to the handler. */
  readonly delivered: number;
  /** Events refused because the queue was full (spec: back-pressure counted, never silent). */
  readonly overflowed: number;
  /** Handler calls that threw or rejected. */
  readonly failures: number;
}

/** A running push delivery. */
export class Delivery {
  readonly name: string;
  readonly #sub: Subscription;
  readonly #handler: DeliveryHandler;
  readonly #log: Logger | null;
  #delivered = 0;
  #failures = 0;
  #running: Promise<void>;
  #idle: (() => void) | null = null;
  #busy = false;
  /** The loop waits in `next()`: an event pushed meanwhile goes to it directly (not counted as queued). */
  #awaiting = false;
  readonly #onClose: () => void;

  /** Starts delivering `subscription` (reliable mode) to `handler`; `onClose` runs once when it is closed. */
  constructor(
    subscription: Subscription,
    handler: DeliveryHandler,
    log: Logger | null,
    onClose: () => void = () => {},
  ) {
    this.name = subscription.name;
    this.#onClose = onClose;
    this.#sub = subscription;
    this.#handler = handler;
    this.#log = log;
    this.#running = this.#loop();
  }

  /** The current figures. */
  status(): DeliveryStatus {
    return {
      name: this.name,
      capacity: this.#sub.capacity,
      queued: this.#sub.size,
      delivered: this.#delivered,
      overflowed: this.#sub.totalSkipped,
      failures: this.#failures,
    };
  }

  /** Resolves once every queued item (gap notices included) was handled, or the delivery closed. */
  idle(): Promise<void> {
    const handedOver = this.#awaiting && !this.#sub.reading;
    if ((!this.#busy && !handedOver && this.#sub.pending === 0) || this.#sub.closed) return Promise.resolve();
    return new Promise((resolve) => {
      const before = this.#idle;
      this.#idle = () => {
        before?.();
        resolve();
      };
    });
  }

  /** Stops: nothing more is delivered; resolves once a handler call in progress has finished. */
  close(): Promise<void> {
    if (!this.#sub.closed) {
      this.#sub.close();
      this.#onClose();
    }
    return this.#running;
  }

  async #loop(): Promise<void> {
    for (let item = await this.#read(); item; item = await this.#read()) {
      this.#busy = true;
      try {
        await this.#handler(item);
      } catch (error) {
        this.#failed(error);
      }
      this.#delivered++;
      this.#busy = false;
      if (this.#sub.pending === 0) this.#wakeIdle();
    }
    this.#wakeIdle();
  }

  async #read(): Promise<BusItem | null> {
    this.#awaiting = true;
    const item = await this.#sub.next();
    this.#awaiting = false;
    return item;
  }

  #wakeIdle(): void {
    const wake = this.#idle;
    this.#idle = null;
    wake?.();
  }

  #failed(error: unknown): void {
    // Logged on the first failure and every 1000th: a handler that always fails must not flood the log.
    if (this.#failures++ % 1000 === 0) {
      this.#log?.error("event delivery handler failed; delivery goes on", {
        delivery: this.name,
        failures: this.#failures,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }
}
