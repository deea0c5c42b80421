/**
 * The apply worker's intake (issue 5 "Write-ahead journal"): what the worker
 * holds in memory between a record's append and its apply.
 *
 * Records arrive in a bounded queue (`persistence_queue_capacity` records,
 * and {@link ApplyIntakeOptions.maxQueueBytes} of JSON, since a telemetry
 * bundle may hold a megabyte). When the queue is full a record is held up to
 * 100 ms for room; if the queue stays full the intake goes journal-only:
 * later records are not kept in memory but read back from the segment files
 * by the worker, which returns the intake to memory mode once it has caught
 * up (spec 3 §8 "when full for 100 ms the item stays journal-only"; counted,
 * never dropped). A record whose append failed has no copy on disk, so it is
 * kept in memory whatever the mode until its turn comes.
 *
 * @module
 */

import type { Clock, TimerHandle } from "../../util/clock.ts";
import type { Logger } from "../../util/log.ts";
import { type Item, itemBytes } from "./backlog.ts";

/** Default of {@link ApplyIntakeOptions.maxQueueBytes}. */
const MAX_QUEUE_BYTES = 64 * 1024 * 1024;

/** Counters the intake keeps (part of the worker's `ApplyCounters`). */
export interface IntakeCounters {
  journal_only: number;
  held: number;
  unjournaled: number;
}

/** Options of {@link ApplyIntake}. */
export interface ApplyIntakeOptions {
  readonly clock: Clock;
  readonly log: Logger;
  /** Queue capacity (`persistence_queue_capacity`). */
  readonly capacity: number;
  /** Bytes of record JSON the queue holds at most (default 64 MiB; small records count 256). */
  readonly maxQueueBytes?: number | undefined;
  /** How long a record waits for room in a full queue (default 100 ms). */
  readonly holdMs?: number | undefined;
  /** Where the intake counts; the worker passes its own counters. */
  readonly counters: IntakeCounters;
}

/** The bounded in-memory queue in front of the apply loop, and its journal-only fallback; see the module doc. */
export class ApplyIntake {
  readonly #o: ApplyIntakeOptions;
  readonly #maxQueueBytes: number;
  #queue: Item[] = [];
  #held: Item[] = [];
  /** Bytes of the records in `#queue` and `#held` (see {@link itemBytes}). */
  #queueBytes = 0;
  #heldBytes = 0;
  #holdTimer: TimerHandle | undefined;
  /** Records whose append failed, admitted in journal mode: the read-back cannot find them on disk. */
  #unjournaled = new Map<number, Item>();
  // Journal mode first: the worker reads back unapplied records at start.
  #mode: "memory" | "journal" = "journal";

  constructor(o: ApplyIntakeOptions) {
    this.#o = o;
    this.#maxQueueBytes = o.maxQueueBytes ?? MAX_QUEUE_BYTES;
  }

  /** Records held in memory waiting to be applied (queued and held, not unjournaled ones in journal mode). */
  get depth(): number {
    return this.#queue.length + this.#held.length;
  }

  /** `memory` while the queue keeps up; `journal` while records are read back from the files. */
  get mode(): "memory" | "journal" {
    return this.#mode;
  }

  /** Takes in a record just appended (`journaled`) or one whose append failed; see the module doc. */
  admit(item: Item): void {
    const { counters } = this.#o;
    if (!item.journaled) {
      counters.unjournaled++;
      if (this.#mode === "memory") this.#held.length ? this.#hold(item) : this.#enqueue(item);
      else this.#unjournaled.set(item.seq, item);
    } else if (this.#mode === "journal") {
      counters.journal_only++;
    } else if (
      this.#held.length === 0 && this.#queue.length < this.#o.capacity && this.#queueBytes < this.#maxQueueBytes
    ) {
      this.#enqueue(item);
    } else if (this.#held.length >= this.#o.capacity || this.#heldBytes >= this.#maxQueueBytes) {
      this.#toJournalMode();
      counters.journal_only++;
    } else {
      this.#hold(item);
      counters.held++;
      // spec 3 §8: a queue still full after the hold time sends records journal-only.
      this.#holdTimer ??= this.#o.clock.setTimeout(() => {
        this.#holdTimer = undefined;
        if (this.#held.length) this.#toJournalMode();
      }, this.#o.holdMs ?? 100);
    }
  }

  /**
   * The next batch from the queue -- at most `maxItems` records, ending with
   * the one whose JSON reaches `maxBytes` -- refilling the queue from the held
   * records; null when the queue is empty.
   */
  take(maxItems: number, maxBytes: number): Item[] | null {
    if (!this.#queue.length) return null;
    const max = Math.min(this.#queue.length, maxItems);
    let n = 0;
    for (let bytes = 0; n < max && bytes < maxBytes; n++) bytes += itemBytes(this.#queue[n]!);
    const batch = this.#queue.splice(0, n);
    for (const item of batch) this.#queueBytes -= itemBytes(item);
    while (this.#held.length && this.#queue.length < this.#o.capacity && this.#queueBytes < this.#maxQueueBytes) {
      const item = this.#held.shift()!;
      this.#heldBytes -= itemBytes(item);
      this.#enqueue(item);
    }
    if (!this.#held.length) this.#clearHoldTimer();
    return batch;
  }

  /** Removes and returns the unjournaled records with `from <= seq < below`, to join a batch read back. */
  takeUnjournaled(from: number, below: number): Item[] {
    const out: Item[] = [];
    for (const [seq, item] of this.#unjournaled) {
      if (seq >= from && seq < below) {
        out.push(item);
        this.#unjournaled.delete(seq);
      }
    }
    return out;
  }

  /**
   * Back to memory mode once the read-back has caught up with the files: the
   * unjournaled records left are queued in sequence order. False when the
   * queue stays empty.
   */
  toMemoryMode(): boolean {
    this.#mode = "memory";
    for (const item of [...this.#unjournaled.values()].sort((a, b) => a.seq - b.seq)) this.#enqueue(item);
    this.#unjournaled.clear();
    return this.#queue.length > 0;
  }

  /** Cancels the hold timer (the worker is stopping). */
  close(): void {
    this.#clearHoldTimer();
  }

  #enqueue(item: Item): void {
    this.#queue.push(item);
    this.#queueBytes += itemBytes(item);
  }

  #hold(item: Item): void {
    this.#held.push(item);
    this.#heldBytes += itemBytes(item);
  }

  #clearHoldTimer(): void {
    this.#o.clock.clearTimeout(this.#holdTimer);
    this.#holdTimer = undefined;
  }

  #toJournalMode(): void {
    this.#clearHoldTimer();
    this.#o.counters.journal_only += this.#held.filter((i) => i.journaled).length;
    if (this.#mode === "memory") {
      this.#o.log.warn("persistence queue full for too long: records stay journal-only until the store catches up", {
        queue: this.#queue.length,
        capacity: this.#o.capacity,
      });
    }
    for (const item of this.#held) if (!item.journaled) this.#unjournaled.set(item.seq, item);
    this.#held = [];
    this.#heldBytes = 0;
    this.#mode = "journal";
  }
}
