/**
 * Per-player round data: touches and judges are cut into batches of 256
 * items or 500 ms, whichever comes first (spec 3 §8 "High-frequency
 * writes"), one batch per player, round and kind, each journaled as one
 * record. Unlike PMP, batches go through the journal like every other write.
 *
 * @module
 */

import type { Clock, TimerHandle } from "../util/clock.ts";
import type { TelemetryEntry } from "./types.ts";

/** Options of {@link TelemetryBatcher}. */
export interface TelemetryBatcherOptions {
  readonly clock: Clock;
  /** Receives each finished batch. */
  readonly emit: (entry: TelemetryEntry) => void;
  readonly maxItems?: number;
  readonly maxDelayMs?: number;
}

interface Open {
  readonly kind: "touches" | "judges";
  readonly room: string;
  readonly round: string | null;
  readonly user: number;
  items: unknown[];
  first_at: number;
  last_at: number;
  timer: TimerHandle | undefined;
}

/** Collects touches and judges into batches. */
export class TelemetryBatcher {
  readonly #o: TelemetryBatcherOptions;
  readonly #open = new Map<string, Open>();

  constructor(o: TelemetryBatcherOptions) {
    this.#o = o;
  }

  /** Batches being filled. */
  get open(): number {
    return this.#open.size;
  }

  /** Adds the items of one `touches` or `judges` event. */
  add(
    kind: "touches" | "judges",
    room: string,
    round: string | null,
    user: number,
    items: readonly unknown[],
    at: number,
  ): void {
    const max = this.#o.maxItems ?? 256;
    const key = `${kind}|${room}|${round ?? ""}|${user}`;
    for (const item of items) {
      let batch = this.#open.get(key);
      if (!batch) {
        batch = { kind, room, round, user, items: [], first_at: at, last_at: at, timer: undefined };
        const opened = batch;
        batch.timer = this.#o.clock.setTimeout(() => this.#flush(key, opened), this.#o.maxDelayMs ?? 500);
        this.#open.set(key, batch);
      }
      batch.items.push(item);
      batch.last_at = at;
      if (batch.items.length >= max) this.#flush(key, batch);
    }
  }

  /** Emits every open batch of `round` (the round ended). */
  flushRound(round: string): void {
    for (const [key, batch] of this.#open) if (batch.round === round) this.#flush(key, batch);
  }

  /** Emits every open batch (shutdown). */
  flushAll(): void {
    for (const [key, batch] of this.#open) this.#flush(key, batch);
  }

  #flush(key: string, batch: Open): void {
    if (this.#open.get(key) !== batch) return;
    this.#open.delete(key);
    this.#o.clock.clearTimeout(batch.timer);
    this.#o.emit({
      t: "telemetry",
      kind: batch.kind,
      room: batch.room,
      round: batch.round,
      user: batch.user,
      items: batch.items,
      first_at: batch.first_at,
      last_at: batch.last_at,
    });
  }
}
