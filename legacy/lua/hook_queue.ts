/**
 * The queue of event hooks (spec 3 §4.8): hooks of joins, kicks and room
 * changes are delivered after the moment that caused them, never inside
 * another Lua call. Bounded: beyond {@link HOOK_QUEUE_CAPACITY} new hooks
 * are dropped and counted (logged once per thousand). Delivery runs in
 * turns of at most {@link DRAIN_BATCH} hooks or {@link DRAIN_SLICE_MS},
 * then yields to I/O (a macrotask, not a timer of the server's clock), so a
 * long queue never holds up the game.
 *
 * @module
 */

import type { Logger } from "../../src/util/log.ts";
import type { HookName } from "./plugin.ts";

/** Hook calls waiting at most; beyond, new ones are dropped and counted. */
export const HOOK_QUEUE_CAPACITY = 4096;
/** Hooks delivered in one turn of the event loop at most. */
const DRAIN_BATCH = 64;
/** Time one turn may spend delivering hooks before yielding. */
const DRAIN_SLICE_MS = 20;

interface QueuedHook {
  readonly hook: HookName;
  readonly args: readonly unknown[];
}

/** Options of {@link HookQueue}. */
export interface HookQueueOptions {
  readonly log: Logger;
  /** Delivers one hook (to every plugin that runs). */
  readonly deliver: (hook: HookName, args: readonly unknown[]) => void;
}

/** A bounded queue of hook calls, drained in slices. */
export class HookQueue {
  readonly #o: HookQueueOptions;
  #queue: QueuedHook[] = [];
  #draining = false;
  #dropped = 0;
  #closed = false;

  constructor(options: HookQueueOptions) {
    this.#o = options;
  }

  /** Hooks dropped because the queue was full. */
  get dropped(): number {
    return this.#dropped;
  }

  /** True while hooks wait or a turn is scheduled. */
  get busy(): boolean {
    return this.#queue.length > 0 || this.#draining;
  }

  /** Queues a hook; dropped (and counted) when the queue is full or closed. */
  push(hook: HookName, args: readonly unknown[]): void {
    if (this.#closed) return;
    if (this.#queue.length >= HOOK_QUEUE_CAPACITY) {
      if (this.#dropped++ % 1000 === 0) {
        this.#o.log.warn("Lua hook queue full; hooks are dropped", { hook, dropped: this.#dropped });
      }
      return;
    }
    this.#queue.push({ hook, args });
    if (!this.#draining) {
      this.#draining = true;
      queueMicrotask(() => this.#drain());
    }
  }

  /** Drops what waits and takes no more. */
  close(): void {
    this.#closed = true;
    this.#queue = [];
  }

  #drain(): void {
    const started = performance.now();
    let delivered = 0;
    while (this.#queue.length && !this.#closed) {
      if (delivered >= DRAIN_BATCH || performance.now() - started > DRAIN_SLICE_MS) {
        setTimeout(() => this.#drain(), 0);
        return;
      }
      const { hook, args } = this.#queue.shift()!;
      delivered++;
      this.#o.deliver(hook, args);
    }
    this.#draining = false;
  }
}
