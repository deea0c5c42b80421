/**
 * Per-player round data: touches and judges are cut into batches of 256
 * items or 500 ms, whichever comes first (spec 3 §8 "High-frequency
 * writes"), one batch per player, kind, room and round.
 *
 * Batches are journaled in bundles, not one record each. One timer (the
 * injected clock's) runs while batches are open; a batch is cut 500 ms
 * after its first item, to the tick, and every batch cut in the same tick
 * goes into one `telemetry.bundle` record (several when the JSON would pass
 * {@link TELEMETRY_LIMITS.recordBytes}). The timer ticks every 500 ms / 8
 * (`slots`): each batch waits in the slot cut a full 500 ms after it opened,
 * so a tick's work — concatenating and journaling ~2 MB at 1,000 rooms — is
 * an eighth of what one 500 ms tick would stall the event loop for (with
 * `slots: 1` every open batch is cut together every 500 ms). A batch that
 * fills up, a round that completes, or pending items passing
 * {@link TELEMETRY_LIMITS.pendingItems} flush at once. The apply worker
 * stores a bundle with one multi-row INSERT. At 1,000 rooms that is at
 * most 16 records per second instead of ~30,000 (BENCHMARKS.md
 * "Persistence / Telemetry").
 *
 * Durability: a bundle is durable once journaled, like any record; what a
 * crash can lose is the telemetry not cut yet — at most the last 500 ms.
 * What one player may store per round is capped (`telemetry_cap.ts`).
 *
 * The hot path ({@link TelemetryBatcher.add}) is O(1) map work per event
 * (no string keys, no timer per batch) plus the event's items: one push
 * each, and one `JSON.stringify` of the event's items — the text the record
 * needs anyway, made as events arrive so that a tick only concatenates.
 * (Serializing a tick's ~17 MB at 1,000 rooms in one go took ~70 ms: a
 * stall of the event loop every 500 ms; spread over the events it is
 * ~4 µs per event.) Items are serialized once, into the record.
 *
 * @module
 */

import type { Clock, TimerHandle } from "../../util/clock.ts";
import { RoundTelemetryCap } from "./telemetry_cap.ts";
import type { TelemetryBatch, TelemetryBundleEntry } from "../types.ts";

/** Defaults of {@link TelemetryBatcherOptions}. */
export const TELEMETRY_LIMITS = {
  /** spec 3 §8: a batch holds at most 256 items… */
  maxItems: 256,
  /** …and at most 500 ms of them. */
  tickMs: 500,
  /** Ticks per 500 ms: batches are cut in this many staggered groups. */
  slots: 8,
  /** A bundle record's JSON stays under this (one batch alone may pass it). */
  recordBytes: 1024 * 1024,
  /** Items held in open batches (all players) before everything is cut early. */
  pendingItems: 64 * 1024,
} as const;

/** Options of {@link TelemetryBatcher}. */
export interface TelemetryBatcherOptions {
  readonly clock: Clock;
  /** Receives each bundle with its JSON (journaled as is). */
  readonly emit: (entry: TelemetryBundleEntry, body: string) => void;
  readonly maxItems?: number;
  readonly tickMs?: number;
  readonly slots?: number;
  readonly recordBytes?: number;
  readonly pendingItems?: number;
  /** What one player may store per round (`telemetry_cap.ts`); default: the cap's default budget. */
  readonly cap?: RoundTelemetryCap;
}

type Kind = "touches" | "judges";

interface Open {
  readonly kind: Kind;
  readonly room: string;
  readonly round: string | null;
  readonly user: number;
  readonly items: unknown[];
  /** JSON of `items` without the brackets. */
  json: string;
  /** The slot whose tick cuts it. */
  readonly slot: number;
  readonly first_at: number;
  last_at: number;
}

const BUNDLE_HEAD = '{"t":"telemetry.bundle","batches":[';
const BUNDLE_TAIL = "]}";

/** Collects touches and judges into batches and journals them in bundles. */
export class TelemetryBatcher {
  readonly #o: TelemetryBatcherOptions;
  readonly #maxItems: number;
  readonly #pendingCap: number;
  /** Open batches by user, one map per kind (a player is in one room and round at a time). */
  readonly #touches = new Map<number, Open>();
  readonly #judges = new Map<number, Open>();
  /** Open batches by round, so a completed round is flushed without scanning every player. */
  readonly #byRound = new Map<string, Set<Open>>();
  /** Open batches by the tick that cuts them; `#phase` is cut by the next tick. */
  readonly #slots: Set<Open>[];
  #phase = 0;
  /** Batches cut and waiting for the next bundle. */
  #ready: Open[] = [];
  #pending = 0;
  #timer: TimerHandle | undefined;
  /** Counters (exposed by tests and benchmarks). */
  readonly counters = { batches: 0, flushes: 0, records: 0, early_flushes: 0 };
  /** The per-round budget of each player. */
  readonly cap: RoundTelemetryCap;

  constructor(o: TelemetryBatcherOptions) {
    this.#o = o;
    this.#maxItems = o.maxItems ?? TELEMETRY_LIMITS.maxItems;
    this.#pendingCap = o.pendingItems ?? TELEMETRY_LIMITS.pendingItems;
    this.#slots = Array.from({ length: Math.max(1, o.slots ?? TELEMETRY_LIMITS.slots) }, () => new Set<Open>());
    this.cap = o.cap ?? new RoundTelemetryCap();
  }

  /** Batches being filled. */
  get open(): number {
    return this.#touches.size + this.#judges.size;
  }

  /** Items held in memory (open and cut batches not journaled yet). */
  get pendingItems(): number {
    return this.#pending;
  }

  /** Adds the items of one `touches` or `judges` event. */
  add(kind: Kind, room: string, round: string | null, user: number, items: readonly unknown[], at: number): void {
    if (items.length === 0) return;
    // The text the record needs anyway, made once here; its size is what the round's budget counts.
    const json = JSON.stringify(items);
    if (!this.cap.admit(room, round, user, items.length, json.length)) return;
    const map = kind === "touches" ? this.#touches : this.#judges;
    let batch = map.get(user);
    if (batch && (batch.room !== room || batch.round !== round)) {
      this.#cut(batch); // Another room or round: the old batch goes with the next bundle.
      batch = undefined;
    }
    let full = false;
    const max = this.#maxItems;
    if ((batch?.items.length ?? 0) + items.length < max) {
      // The common case: the whole event fits in one batch (and does not fill it).
      batch ??= this.#openBatch(map, kind, room, round, user, at);
      for (let i = 0; i < items.length; i++) batch.items.push(items[i]);
      append(batch, json, at);
    } else {
      for (let i = 0; i < items.length;) {
        batch ??= this.#openBatch(map, kind, room, round, user, at);
        const n = Math.min(items.length - i, max - batch.items.length);
        const part = items.slice(i, i + n);
        for (const item of part) batch.items.push(item);
        append(batch, JSON.stringify(part), at);
        i += n;
        if (batch.items.length >= max) {
          this.#cut(batch);
          batch = undefined;
          full = true;
        }
      }
    }
    this.#pending += items.length;
    if (this.#pending >= this.#pendingCap) {
      this.counters.early_flushes++;
      this.flushAll();
    } else if (full) this.#emitReady(); // A full batch goes at once.
  }

  /** Journals every batch of `round` now (the round ended: its data gets sequences before its completion). */
  flushRound(round: string): void {
    this.cap.roundDone(round);
    const open = this.#byRound.get(round);
    if (!open) return;
    for (const batch of open) this.#cut(batch);
    this.#emitReady();
  }

  /** Journals every batch now (memory cap, shutdown). */
  flushAll(): void {
    for (const batch of this.#touches.values()) this.#cut(batch);
    for (const batch of this.#judges.values()) this.#cut(batch);
    this.#emitReady();
  }

  /** Stops the tick without journaling (persistence closed). */
  stop(): void {
    this.#o.clock.clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #openBatch(map: Map<number, Open>, kind: Kind, room: string, round: string | null, user: number, at: number): Open {
    // The slot just cut is cut again `slots` ticks from now: 500 ms (less up to one tick if the timer runs).
    const slots = this.#slots.length;
    const slot = (this.#phase + slots - 1) % slots;
    const batch: Open = { kind, room, round, user, items: [], json: "", slot, first_at: at, last_at: at };
    map.set(user, batch);
    this.#slots[slot]!.add(batch);
    if (round !== null) {
      let set = this.#byRound.get(round);
      if (!set) this.#byRound.set(round, set = new Set());
      set.add(batch);
    }
    this.#arm();
    return batch;
  }

  /** One timer for all players, while batches are open. */
  #arm(): void {
    const period = (this.#o.tickMs ?? TELEMETRY_LIMITS.tickMs) / this.#slots.length;
    this.#timer ??= this.#o.clock.setTimeout(() => {
      this.#timer = undefined;
      const slot = this.#slots[this.#phase]!;
      this.#phase = (this.#phase + 1) % this.#slots.length;
      for (const batch of slot) this.#cut(batch);
      this.#emitReady();
      if (this.open > 0) this.#arm();
    }, period);
  }

  /** Closes an open batch; it waits in `#ready` for the next bundle. */
  #cut(batch: Open): void {
    const map = batch.kind === "touches" ? this.#touches : this.#judges;
    if (map.get(batch.user) !== batch) return;
    map.delete(batch.user);
    this.#slots[batch.slot]!.delete(batch);
    if (batch.round !== null) {
      const set = this.#byRound.get(batch.round);
      if (set?.delete(batch) && set.size === 0) this.#byRound.delete(batch.round);
    }
    this.#ready.push(batch);
  }

  /** Journals the cut batches as bundles of at most `recordBytes` characters of JSON each. */
  #emitReady(): void {
    const ready = this.#ready;
    if (ready.length === 0) return;
    this.#ready = [];
    if (this.open === 0) this.stop();
    const limit = this.#o.recordBytes ?? TELEMETRY_LIMITS.recordBytes;
    let batches: TelemetryBatch[] = [];
    let parts: string[] = [];
    let bytes = BUNDLE_HEAD.length + BUNDLE_TAIL.length;
    for (const b of ready) {
      const batch: TelemetryBatch = {
        kind: b.kind,
        room: b.room,
        round: b.round,
        user: b.user,
        items: b.items,
        first_at: b.first_at,
        last_at: b.last_at,
      };
      // Key for key what JSON.stringify(batch) gives, from the items' text made in `add`.
      const json = `{"kind":"${b.kind}","room":${JSON.stringify(b.room)},"round":${JSON.stringify(b.round)},` +
        `"user":${b.user},"items":[${b.json}],"first_at":${b.first_at},"last_at":${b.last_at}}`;
      if (parts.length && bytes + json.length + 1 > limit) {
        this.#emitBundle(batches, parts);
        batches = [];
        parts = [];
        bytes = BUNDLE_HEAD.length + BUNDLE_TAIL.length;
      }
      batches.push(batch);
      parts.push(json);
      bytes += json.length + 1;
      this.#pending -= b.items.length;
    }
    this.#emitBundle(batches, parts);
    this.counters.flushes++;
  }

  #emitBundle(batches: TelemetryBatch[], parts: string[]): void {
    this.counters.batches += batches.length;
    this.counters.records++;
    this.#o.emit({ t: "telemetry.bundle", batches }, BUNDLE_HEAD + parts.join(",") + BUNDLE_TAIL);
  }
}

/** Adds the JSON of an array of items (with its brackets) to a batch's text. */
function append(batch: Open, array: string, at: number): void {
  const inner = array.slice(1, -1);
  batch.json = batch.json.length === 0 ? inner : `${batch.json},${inner}`;
  batch.last_at = at;
}
