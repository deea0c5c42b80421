/**
 * Heartbeats for thousands of clients from one timer. Each client is pinged
 * once per interval, round robin, and never while its previous ping is still
 * unanswered (the official client's loop, protocol.md §5.2). Pings are sent
 * without a per-ping timer: a ping unanswered after the timeout is counted
 * here, and its late Pong still records its round trip.
 *
 * Per-client timers that live for seconds survive young-generation
 * collections in the generator and made its own pauses (tens of ms) show up
 * as server latency; this keeps the generator's heap churn short-lived.
 *
 * @module
 */

import type { PhiraClient } from "../client/mod.ts";
import type { Clock, TimerHandle } from "../util/clock.ts";

interface Entry {
  readonly client: PhiraClient;
  /** Monotonic ms the outstanding ping was sent, or -1. */
  sentAt: number;
  /** Whether the outstanding ping was already counted as timed out. */
  late: boolean;
}

/** Options of a {@link PingDriver}. */
export interface PingOptions {
  /** Time between two pings of one client, ms (official: 3000). */
  readonly intervalMs: number;
  /** A Pong later than this counts as a timeout, ms (official: 2000). */
  readonly timeoutMs: number;
  /** Called with every round trip, ms. */
  readonly onRtt: (ms: number) => void;
  /** Tick period, ms (default 10). */
  readonly tickMs?: number;
}

/** Pings every added client once per interval. */
export class PingDriver {
  /** Pings that got no Pong within the timeout. */
  timeouts = 0;
  /** Pings sent. */
  sent = 0;
  readonly #clock: Clock;
  readonly #o: PingOptions;
  #entries: Entry[] = [];
  #cursor = 0;
  #credit = 0;
  #last = 0;
  #timer: TimerHandle | undefined;
  #running = false;

  constructor(clock: Clock, options: PingOptions) {
    this.#clock = clock;
    this.#o = options;
  }

  /** Clients being pinged. */
  get size(): number {
    return this.#entries.length;
  }

  /** Adds a client; closed clients are dropped on their turn. */
  add(client: PhiraClient): void {
    this.#entries.push({ client, sentAt: -1, late: false });
  }

  /** Starts the tick. */
  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#last = this.#clock.monotonic();
    this.#schedule();
  }

  /** Stops pinging (outstanding pings still settle). */
  stop(): void {
    this.#running = false;
    this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #schedule(): void {
    this.#timer = this.#clock.setTimeout(() => {
      if (!this.#running) return;
      this.#tick();
      this.#schedule();
    }, this.#o.tickMs ?? 10);
  }

  #tick(): void {
    const now = this.#clock.monotonic();
    const n = this.#entries.length;
    // Spread one interval's worth of pings evenly over the ticks.
    // Credit is kept in client·ms so whole-ms steps add up exactly.
    this.#credit += n * (now - this.#last);
    this.#last = now;
    let budget = Math.min(n, Math.floor(this.#credit / this.#o.intervalMs));
    this.#credit = Math.min(this.#credit - budget * this.#o.intervalMs, n * this.#o.intervalMs);
    while (budget-- > 0 && this.#entries.length) {
      if (this.#cursor >= this.#entries.length) this.#cursor = 0;
      const e = this.#entries[this.#cursor]!;
      if (e.client.isClosed) {
        // Swap-remove: order does not matter for a round robin.
        this.#entries[this.#cursor] = this.#entries[this.#entries.length - 1]!;
        this.#entries.pop();
        continue;
      }
      this.#cursor++;
      if (e.sentAt >= 0) {
        if (!e.late && now - e.sentAt > this.#o.timeoutMs) {
          e.late = true;
          this.timeouts++;
        }
        continue;
      }
      this.#ping(e, now);
    }
  }

  #ping(e: Entry, now: number): void {
    e.sentAt = now;
    e.late = false;
    this.sent++;
    e.client.ping(Infinity).then((rtt) => {
      e.sentAt = -1;
      if (!e.late && rtt > this.#o.timeoutMs) this.timeouts++;
      this.#o.onRtt(rtt);
    }, () => {
      e.sentAt = -1;
    });
  }
}
