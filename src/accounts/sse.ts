/**
 * Server-Sent Events for the account backend: one bounded queue per client.
 * Text is queued pre-rendered; the response body pulls it only when the
 * HTTP layer wants more bytes, so a client that reads slowly fills its own
 * queue, where the oldest frames are dropped and one `stream_lagged
 * {"skipped": N}` is sent before it goes on (as the game server's streams
 * do). A broadcast never waits for a client. Keep-alives run on the
 * injected clock; closing or cancelling releases the timer at once.
 *
 * @module
 */

import { laggedEvent, type StreamRefusal, StreamTracker } from "../http/sse.ts";
import type { Clock, TimerHandle } from "../util/clock.ts";

export { SSE_HEADERS, sseComment, sseEvent as sseJson } from "../http/sse.ts";

/** An event whose data is a plain text line (spec 2 §6 `validating`, `error`); line breaks become spaces. */
export function sseText(name: string, text: string): string {
  return `event: ${name}\ndata: ${text.replace(/[\r\n]+/g, " ")}\n\n`;
}

/** Options of {@link SseChannel}. */
export interface SseChannelOptions {
  readonly clock: Clock;
  /** Frames queued at most (default 256). */
  readonly capacity?: number;
  /** Frame sent every `keepAliveMs` (null: none). */
  readonly keepAlive: string | null;
  readonly keepAliveMs: number;
  /** Called once when the stream ends for any reason (client gone included). */
  readonly onClose?: () => void;
}

const encoder = new TextEncoder();

/** One SSE response body with its own bounded queue. */
export class SseChannel {
  readonly body: ReadableStream<Uint8Array>;
  readonly #o: SseChannelOptions;
  readonly #capacity: number;
  #queue: string[] = [];
  #skipped = 0;
  #wake: (() => void) | null = null;
  #timer: TimerHandle | undefined;
  #closed = false;
  #ending = false;

  constructor(o: SseChannelOptions) {
    this.#o = o;
    this.#capacity = Math.max(1, o.capacity ?? 256);
    this.body = new ReadableStream<Uint8Array>({
      start: () => this.#arm(),
      pull: (controller) => this.#pull(controller),
      cancel: () => this.#finish(),
    }, { highWaterMark: 0 });
  }

  /** True once ended. */
  get closed(): boolean {
    return this.#closed || this.#ending;
  }

  /** Frames waiting. */
  get queued(): number {
    return this.#queue.length;
  }

  /** Queues a frame; false once the stream has ended. O(1) apart from dropping the oldest. */
  push(text: string): boolean {
    if (this.closed) return false;
    if (this.#queue.length >= this.#capacity) {
      this.#queue.shift();
      this.#skipped++;
    }
    this.#queue.push(text);
    this.#wakeUp();
    return true;
  }

  /** Sends what is queued, then ends the body (after a final event such as `success`). */
  end(): void {
    if (this.closed) return;
    this.#ending = true;
    this.#o.clock.clearTimeout(this.#timer);
    this.#wakeUp();
  }

  /** Ends at once, dropping what is queued. */
  close(): void {
    this.#queue = [];
    this.#skipped = 0;
    this.end();
  }

  #arm(): void {
    if (this.#o.keepAlive === null || this.closed) return;
    this.#timer = this.#o.clock.setTimeout(() => {
      this.#timer = undefined;
      if (this.closed) return;
      // Only an idle stream needs a keep-alive; a backlog would only grow by it.
      if (this.#queue.length === 0) this.push(this.#o.keepAlive!);
      this.#arm();
    }, this.#o.keepAliveMs);
  }

  #wakeUp(): void {
    const wake = this.#wake;
    this.#wake = null;
    wake?.();
  }

  async #pull(controller: ReadableStreamDefaultController<Uint8Array>): Promise<void> {
    while (!this.#closed) {
      if (this.#skipped > 0) {
        const skipped = this.#skipped;
        this.#skipped = 0;
        controller.enqueue(encoder.encode(laggedEvent(skipped)));
        return;
      }
      const text = this.#queue.shift();
      if (text !== undefined) {
        controller.enqueue(encoder.encode(text));
        return;
      }
      if (this.#ending) {
        this.#finish();
        try {
          controller.close();
        } catch {
          // cancelled meanwhile
        }
        return;
      }
      await new Promise<void>((resolve) => (this.#wake = resolve));
    }
  }

  #finish(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#ending = true;
    this.#queue = [];
    this.#o.clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#wakeUp();
    this.#o.onClose?.();
  }
}

/**
 * The open streams of one service: bounded in number and per client
 * address (each its share, as the game server's streams: one client cannot
 * take every slot, issue 14), broadcast to, ended at shutdown.
 */
export class SseHub {
  readonly limit: number;
  readonly #open = new Set<SseChannel>();
  readonly #tracker: StreamTracker;

  constructor(limit: number) {
    this.limit = limit;
    this.#tracker = new StreamTracker(limit);
  }

  /** Streams open now. */
  get size(): number {
    return this.#open.size;
  }

  /** Streams one client address may have open (IPv6: per /64; loopback: only the total counts). */
  get perClient(): number {
    return this.#tracker.perClient;
  }

  /** Why a stream of `ip` could not open now (every slot taken, or the client has its share), or null. */
  refusal(ip: string): StreamRefusal | null {
    return this.#tracker.refusal(ip);
  }

  /** Registers a stream of client `ip`; false when the limit or the client's share is reached. */
  tryAdd(channel: SseChannel, ip: string): boolean {
    if (!this.#tracker.tryAdd(channel, ip)) return false;
    this.#open.add(channel);
    return true;
  }

  /** Forgets an ended stream. */
  delete(channel: SseChannel): void {
    this.#open.delete(channel);
    this.#tracker.delete(channel);
  }

  /** Queues `text` on every open stream of `members` (default: all). */
  broadcast(text: string, members: Iterable<SseChannel> = this.#open): void {
    for (const c of members) c.push(text);
  }

  /** Ends every open stream. */
  closeAll(): void {
    for (const c of [...this.#open]) {
      c.close();
      this.delete(c);
    }
  }
}
