/**
 * Server-Sent Events over a bounded bus subscription (spec 1 §6 framing).
 *
 * The response body is a pull stream: the next event is taken from the
 * subscription only when the HTTP layer wants more bytes. A client that
 * reads slowly therefore leaves events in its own bounded subscription
 * buffer, where the oldest are dropped; it then receives one
 * `stream_lagged {skipped}` and goes on (spec 1 §2.3). Publishing never
 * waits, so a slow client never slows the game. Keep-alives are sent every
 * interval on the injected clock; closing or cancelling frees the
 * subscription and the timer at once.
 *
 * @module
 */

import type { BusItem, DomainEvent, Subscription } from "../events/mod.ts";
import { addressGroup, isLoopbackAddress } from "../net/mod.ts";
import type { Clock, TimerHandle } from "../util/clock.ts";
import { jsonError } from "./errors.ts";

/** Spec 1 §8: keep-alive interval of profiles R and S. */
export const KEEP_ALIVE_MS = 15_000;

/** Response headers of every event stream (spec 1 §4.3: `/rooms/listen` needs the last two). */
export const SSE_HEADERS: Readonly<Record<string, string>> = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache",
  "x-accel-buffering": "no",
};

/** One SSE event: an `event:` line and one `data:` line of JSON (spec 1 §6). */
export function sseEvent(name: string, data: unknown): string {
  // JSON.stringify escapes line breaks inside strings, so the data stays on one line.
  return `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** A comment line; EventSource ignores it (spec 1 §6 `: heartbeat`). */
export function sseComment(text: string): string {
  return `: ${text}\n\n`;
}

/** The lag notice every stream sends before resuming (spec 1 §2.3 `stream_lagged`). */
export function laggedEvent(skipped: number): string {
  return sseEvent("stream_lagged", { skipped });
}

/** Something a {@link StreamTracker} can end; a promise resolves once its resources are released. */
export interface Closable {
  close(): void | Promise<void>;
}

/** The default share of one client: 1/32 of the slots, at least 4 (1,024 streams -> 32 per client). */
export function defaultClientShare(limit: number): number {
  return Math.max(4, Math.floor(limit / 32));
}

/** Why a stream may not open: every slot is taken, or its client has its share. */
export type StreamRefusal = "full" | "client-full";

/**
 * Bounds and ends the open streams of one HTTP service: `limit` in all and
 * `perClient` per client address (IPv6: its /64, `addressGroup`), so one
 * client cannot take every slot and have everyone else refused (issue 14).
 * Loopback clients have no share of their own: they are this host (a
 * reverse proxy not using the trusted port, where every client looks like
 * 127.0.0.1; the load generator), bounded by `limit` only.
 */
export class StreamTracker {
  readonly limit: number;
  readonly perClient: number;
  /** Open streams and the client each counts for. */
  readonly #open = new Map<Closable, string>();
  readonly #byClient = new Map<string, number>();

  constructor(limit: number, perClient = defaultClientShare(limit)) {
    this.limit = limit;
    this.perClient = perClient;
  }

  /** Streams open now. */
  get size(): number {
    return this.#open.size;
  }

  /** Why a stream of `ip` could not open now, or null when it could. */
  refusal(ip: string): StreamRefusal | null {
    if (this.#open.size >= this.limit) return "full";
    if (isLoopbackAddress(ip)) return null;
    return (this.#byClient.get(addressGroup(ip)) ?? 0) >= this.perClient ? "client-full" : null;
  }

  /**
   * Registers a stream of client `ip`; false when the limit or the client's
   * share is reached. Without `ip` only the total counts (callers with no
   * client address, like the monitor proxy's viewers).
   */
  tryAdd(stream: Closable, ip?: string): boolean {
    if (ip === undefined) {
      if (this.#open.size >= this.limit) return false;
      this.#open.set(stream, "");
      return true;
    }
    if (this.refusal(ip) !== null) return false;
    const key = addressGroup(ip);
    this.#open.set(stream, key);
    this.#byClient.set(key, (this.#byClient.get(key) ?? 0) + 1);
    return true;
  }

  /** Forgets a closed stream. */
  delete(stream: Closable): void {
    const key = this.#open.get(stream);
    if (key === undefined) return;
    this.#open.delete(stream);
    if (key === "") return;
    const n = (this.#byClient.get(key) ?? 1) - 1;
    if (n > 0) this.#byClient.set(key, n);
    else this.#byClient.delete(key);
  }

  /** Ends every open stream (shutdown); resolves once all have released their resources. */
  async closeAll(): Promise<void> {
    const open = [...this.#open.keys()];
    this.#open.clear();
    this.#byClient.clear();
    await Promise.all(open.map((s) => s.close()));
  }
}

/**
 * The error response of a refused stream: 503 when the service is full, 429
 * when the client has its share. `full` is the 503 text.
 */
export function streamRefused(refusal: StreamRefusal, full = "too many open streams"): Response {
  return refusal === "full" ? jsonError(503, full) : jsonError(429, `${full} from this address`);
}

/** Options of {@link SseStream}. */
export interface SseStreamOptions {
  readonly subscription: Subscription;
  /** Framed text sent first (e.g. `ready` and a snapshot). */
  readonly initial: readonly string[];
  /**
   * Framed text of one event, or null to skip it; may be a promise (an
   * asynchronous translation). The stream waits for it before reading the
   * next event, so the order is kept; the subscription's bounded buffer
   * holds what arrives meanwhile.
   */
  readonly render: (event: DomainEvent) => string | null | Promise<string | null>;
  /** Framed keep-alive text, or null for none. */
  readonly keepAlive: string | null;
  readonly keepAliveMs: number;
  readonly clock: Clock;
  /** Called once when the stream ends for any reason. */
  readonly onClose?: () => void;
}

const WAKE = Symbol("wake");
const encoder = new TextEncoder();

/** One SSE response body fed from a subscription. */
export class SseStream implements Closable {
  readonly body: ReadableStream<Uint8Array>;
  readonly #o: SseStreamOptions;
  #controller: ReadableStreamDefaultController<Uint8Array> | null = null;
  #pending: Promise<BusItem | null> | null = null;
  #wake: (() => void) | null = null;
  #beat = false;
  #timer: TimerHandle | undefined;
  #closed = false;

  constructor(options: SseStreamOptions) {
    this.#o = options;
    this.body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.#controller = controller;
        if (options.initial.length) controller.enqueue(encoder.encode(options.initial.join("")));
        this.#arm();
      },
      pull: (controller) => this.#pull(controller),
      cancel: () => this.#finish(),
    }, { highWaterMark: 1 });
  }

  /** True once ended. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Ends the stream: the client sees the body end; the subscription and timer are released. */
  close(): void {
    if (this.#closed) return;
    this.#finish();
    try {
      this.#controller?.close();
    } catch {
      // Already cancelled by the client.
    }
  }

  #arm(): void {
    if (this.#o.keepAlive === null || this.#closed) return;
    this.#timer = this.#o.clock.setTimeout(() => {
      this.#beat = true;
      this.#wakeUp();
      this.#arm();
    }, this.#o.keepAliveMs);
  }

  #wakeUp(): void {
    const wake = this.#wake;
    this.#wake = null;
    wake?.();
  }

  async #pull(controller: ReadableStreamDefaultController<Uint8Array>): Promise<void> {
    const { subscription, render } = this.#o;
    while (!this.#closed) {
      if (this.#beat) {
        this.#beat = false;
        controller.enqueue(encoder.encode(this.#o.keepAlive!));
        return;
      }
      // One read stays pending across pulls (a subscription allows one reader at a time).
      this.#pending ??= subscription.next();
      const woken = new Promise<typeof WAKE>((resolve) => (this.#wake = () => resolve(WAKE)));
      const item = await Promise.race([this.#pending, woken]);
      this.#wake = null;
      if (item === WAKE) continue;
      this.#pending = null;
      if (item === null) return this.close();
      const rendered = item.type === "lagged" ? laggedEvent(item.skipped) : render(item.event);
      // Only an asynchronous translation costs an await; the built-in streams render synchronously.
      const text = typeof rendered === "object" && rendered !== null ? await rendered : rendered;
      if (this.#closed) return;
      if (text !== null) {
        controller.enqueue(encoder.encode(text));
        return;
      }
    }
  }

  #finish(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#o.clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#o.subscription.close();
    this.#wakeUp();
    this.#o.onClose?.();
  }
}
