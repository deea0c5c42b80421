/**
 * Reply matching as the official client does it (protocol.md §5.2, §5.5):
 * every request waits for the next server command of its reply type, first in
 * first out per type, with a timeout. A request that timed out keeps its place
 * as a tombstone, so its late reply is consumed and dropped harmlessly instead
 * of being handed to the next request or counted as unsolicited.
 *
 * @module
 */

import type { ClientCommand, ServerCommand, ServerCommandType } from "../protocol/mod.ts";
import type { Clock, TimerHandle } from "../util/clock.ts";
import type { ClientError } from "./errors.ts";

/** One request waiting for its reply. */
export interface PendingRequest {
  /** The command sent. */
  readonly request: ClientCommand;
  /** Monotonic time the request was queued, for RTT. */
  readonly sentAt: number;
  /** Sent by the automatic heartbeat (its Pong is not logged). */
  readonly auto: boolean;
  /** `waiting` until answered (`done`), timed out (`timed-out`, a tombstone) or rejected on close (`done`). */
  state: "waiting" | "timed-out" | "done";
  /** The timeout timer while waiting. */
  timer: TimerHandle | undefined;
  /** Called with the reply and the round-trip time in ms. */
  resolve(reply: ServerCommand, rttMs: number): void;
  /** Called on timeout or close (or with an encoding error before sending). */
  reject(error: Error): void;
}

/** Tombstones kept per reply type at most; beyond that the server is not answering at all. */
const MAX_QUEUED_PER_TYPE = 1024;

/** FIFO queues of pending requests, one per reply type. */
export class PendingReplies {
  readonly #clock: Clock;
  #queues: Partial<Record<ServerCommandType, PendingRequest[]>> = {};
  #live = 0;

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** Requests still waiting (tombstones excluded). */
  get size(): number {
    return this.#live;
  }

  /**
   * Queues `entry` for a reply of type `type`; rejects it with `onTimeout()`
   * after `timeoutMs` (no timer when not finite).
   */
  add(type: ServerCommandType, entry: PendingRequest, timeoutMs: number, onTimeout: () => ClientError): void {
    const queue = this.#queues[type] ??= [];
    if (queue.length >= MAX_QUEUED_PER_TYPE && queue[0]?.state === "timed-out") queue.shift();
    queue.push(entry);
    this.#live++;
    if (Number.isFinite(timeoutMs)) {
      entry.timer = this.#clock.setTimeout(() => {
        entry.timer = undefined;
        if (entry.state !== "waiting") return;
        entry.state = "timed-out";
        this.#live--;
        entry.reject(onTimeout());
      }, timeoutMs);
    }
  }

  /**
   * Takes the oldest request waiting for `type`. Returns `undefined` when
   * nothing is queued (an unsolicited reply); a returned entry in state
   * `timed-out` is a tombstone (the reply came after the timeout). A waiting
   * entry becomes `done` and its timer is cleared; the caller resolves it.
   */
  take(type: ServerCommandType): PendingRequest | undefined {
    const queue = this.#queues[type];
    const entry = queue?.shift();
    if (!entry) return undefined;
    if (queue!.length === 0) delete this.#queues[type];
    if (entry.state === "waiting") {
      entry.state = "done";
      this.#live--;
      this.#clock.clearTimeout(entry.timer);
      entry.timer = undefined;
    }
    return entry;
  }

  /** Rejects every live request with `error(entry)` and forgets all entries. */
  rejectAll(error: (entry: PendingRequest) => ClientError): void {
    const queues = this.#queues;
    this.#queues = {};
    this.#live = 0;
    for (const queue of Object.values(queues)) {
      for (const entry of queue) {
        if (entry.state !== "waiting") continue;
        entry.state = "done";
        this.#clock.clearTimeout(entry.timer);
        entry.timer = undefined;
        entry.reject(error(entry));
      }
    }
  }
}
