/**
 * `/rooms/listen` fan-out (spec 1 §3, §6, profile P): every subscriber first
 * gets one `create_room` per existing room, then the live events, with a
 * `: keep-alive` comment every 15 s (spec 1 §8).
 *
 * Each event is framed and encoded once for all subscribers. Every
 * subscriber has its own bounded queue and a pull-driven body: bytes move
 * only as fast as that client reads, and publishing never waits for anyone.
 * A subscriber whose queue overflows gets `stream_lagged {skipped}` and its
 * stream ends; `EventSource` reconnects (after the `retry` the stream set)
 * and starts again from a fresh snapshot, so a slow client never sees a
 * picture with holes and never slows the others. An ended stream that is not
 * read within a grace time is cut, so a client that never reads cannot hold
 * its slot.
 *
 * @module
 */

import { sseComment, sseEvent } from "../http/sse.ts";
import { concatBytes } from "../util/bytes.ts";
import type { Clock, TimerHandle } from "../util/clock.ts";
import type { RoomStreamEvent } from "./room_cache.ts";

/** Response headers of the stream (unbuffered through reverse proxies, spec 1 §2.4 rule 3). */
export { SSE_HEADERS } from "../http/sse.ts";

/** Options of {@link Fanout}. */
export interface FanoutOptions {
  readonly clock: Clock;
  /** Events queued per subscriber before it is cut off as lagging (default 1024). */
  readonly capacity?: number;
  /** Open streams at most (default 4096). */
  readonly maxSubscribers?: number;
  /** Keep-alive interval, ms (default 15 s). */
  readonly keepAliveMs?: number;
  /** Reconnection delay the stream asks `EventSource` for, ms (default 2000). */
  readonly retryMs?: number;
  /** Time an ended stream has to read what is queued before it is cut, ms (default 10 s). */
  readonly graceMs?: number;
}

const encoder = new TextEncoder();
const KEEP_ALIVE = encoder.encode(sseComment("keep-alive"));

/** One SSE frame, encoded (spec 1 §6: an `event:` line and one `data:` line of JSON). */
export function frame(name: string, data: unknown): Uint8Array {
  return encoder.encode(sseEvent(name, data));
}

function frameOf(event: RoomStreamEvent): Uint8Array {
  return frame(event.name, event.data);
}

/** One subscriber's bounded queue and its response body. */
class Subscriber {
  readonly body: ReadableStream<Uint8Array>;
  #queue: Uint8Array[] = [];
  #wake: (() => void) | null = null;
  #controller: ReadableStreamDefaultController<Uint8Array> | null = null;
  #ending = false;
  #closed = false;
  #deadline: TimerHandle | undefined;
  readonly #capacity: number;
  readonly #clock: Clock;
  readonly #graceMs: number;
  readonly #onClose: (s: Subscriber) => void;

  constructor(
    initial: Uint8Array[],
    o: { capacity: number; clock: Clock; graceMs: number; onClose: (s: Subscriber) => void },
  ) {
    this.#capacity = o.capacity;
    this.#clock = o.clock;
    this.#graceMs = o.graceMs;
    this.#onClose = o.onClose;
    this.#queue = initial;
    this.body = new ReadableStream<Uint8Array>({
      start: (controller) => void (this.#controller = controller),
      pull: (controller) => this.#pull(controller),
      cancel: () => this.#finish(),
    }, { highWaterMark: 1 });
  }

  /** Events waiting for this client. */
  get queued(): number {
    return this.#queue.length;
  }

  /** Queues bytes; O(1). Returns false when this cut the subscriber off (its queue was full). */
  push(bytes: Uint8Array): boolean {
    if (this.#ending) return true;
    if (this.#queue.length >= this.#capacity) {
      // spec 1 §2.3 `stream_lagged`: what was skipped; the client reconnects for a fresh snapshot.
      this.#queue = [frame("stream_lagged", { skipped: this.#queue.length + 1 })];
      this.end();
      return false;
    }
    this.#queue.push(bytes);
    this.#wakeUp();
    return true;
  }

  /**
   * Ends the stream once what is queued has been read; a client that does
   * not read it within the grace time is cut off, so it cannot hold a slot.
   */
  end(): void {
    if (this.#ending) return;
    this.#ending = true;
    this.#deadline = this.#clock.setTimeout(() => this.close(), this.#graceMs);
    this.#wakeUp();
  }

  /** Ends the stream now; whatever is queued is dropped. */
  close(): void {
    if (this.#closed) return;
    this.#finish();
    try {
      this.#controller?.close();
    } catch {
      // Already cancelled by the client.
    }
  }

  #wakeUp(): void {
    const wake = this.#wake;
    this.#wake = null;
    wake?.();
  }

  async #pull(controller: ReadableStreamDefaultController<Uint8Array>): Promise<void> {
    while (this.#queue.length === 0 && !this.#ending && !this.#closed) {
      await new Promise<void>((resolve) => (this.#wake = resolve));
    }
    if (this.#closed) return;
    if (this.#queue.length > 0) {
      const chunks = this.#queue;
      this.#queue = [];
      controller.enqueue(chunks.length === 1 ? chunks[0]! : concatBytes(chunks));
      return;
    }
    // Ending and drained.
    this.close();
  }

  #finish(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#queue = [];
    this.#clock.clearTimeout(this.#deadline);
    this.#wakeUp();
    this.#onClose(this);
  }
}

/** The room stream's subscribers. */
export class Fanout {
  readonly #subscribers = new Set<Subscriber>();
  readonly #clock: Clock;
  readonly #capacity: number;
  readonly #max: number;
  readonly #keepAliveMs: number;
  readonly #retry: Uint8Array;
  readonly #graceMs: number;
  #timer: TimerHandle | undefined;
  #delivered = 0;
  #cutOff = 0;

  constructor(options: FanoutOptions) {
    this.#clock = options.clock;
    this.#capacity = Math.max(1, options.capacity ?? 1024);
    this.#max = options.maxSubscribers ?? 4096;
    this.#keepAliveMs = options.keepAliveMs ?? 15_000;
    this.#retry = encoder.encode(`retry: ${options.retryMs ?? 2000}\n\n`);
    this.#graceMs = options.graceMs ?? 10_000;
  }

  /** Open streams. */
  get size(): number {
    return this.#subscribers.size;
  }

  /** Counters: frames queued to subscribers, subscribers cut off as lagging. */
  get stats(): { readonly subscribers: number; readonly delivered: number; readonly cutOff: number } {
    return { subscribers: this.#subscribers.size, delivered: this.#delivered, cutOff: this.#cutOff };
  }

  /**
   * Opens a stream that starts with `snapshot` (computed by the caller in the
   * same turn, so no event falls between); null when the limit is reached.
   */
  open(snapshot: readonly RoomStreamEvent[]): ReadableStream<Uint8Array> | null {
    if (this.#subscribers.size >= this.#max) return null;
    const initial = [this.#retry, ...snapshot.map(frameOf)];
    const sub = new Subscriber(initial, {
      capacity: this.#capacity + initial.length,
      clock: this.#clock,
      graceMs: this.#graceMs,
      onClose: (s) => {
        this.#subscribers.delete(s);
        if (this.#subscribers.size === 0) this.#stopKeepAlive();
      },
    });
    this.#subscribers.add(sub);
    this.#startKeepAlive();
    return sub.body;
  }

  /** Sends events to every subscriber; each is framed once. */
  publish(events: readonly RoomStreamEvent[]): void {
    if (events.length === 0 || this.#subscribers.size === 0) return;
    const frames = events.map(frameOf);
    for (const sub of this.#subscribers) {
      for (const f of frames) {
        if (!sub.push(f)) this.#cutOff++;
        this.#delivered++;
      }
    }
  }

  /** Ends every stream after what is queued (the game server link was lost). */
  endAll(): void {
    for (const sub of [...this.#subscribers]) sub.end();
  }

  /** Ends every stream now (shutdown). */
  closeAll(): void {
    for (const sub of [...this.#subscribers]) sub.close();
    this.#stopKeepAlive();
  }

  #startKeepAlive(): void {
    if (this.#timer !== undefined) return;
    const beat = () => {
      // One timer for all streams; a keep-alive only where nothing else is waiting to be read.
      for (const sub of this.#subscribers) if (sub.queued === 0) sub.push(KEEP_ALIVE);
      this.#timer = this.#clock.setTimeout(beat, this.#keepAliveMs);
    };
    this.#timer = this.#clock.setTimeout(beat, this.#keepAliveMs);
  }

  #stopKeepAlive(): void {
    this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
