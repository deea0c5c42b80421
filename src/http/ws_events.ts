/**
 * `/api/ws` (spec 1 §4.3): the events of `/api/events` over a WebSocket,
 * one binary frame per event whose bytes are the JSON
 * `{"event_type": T, "data": "<payload JSON as a string>"}` (the PMP layout,
 * extended.md §4.2). A `ready` frame comes first (as on the SSE stream).
 * Client messages are ignored, and refused past {@link MAX_CLIENT_MESSAGE_BYTES}
 * as they arrive (close 1009, `ws_upgrade.ts`).
 *
 * Two bounds keep a slow client from costing the game anything: its bus
 * subscription drops the oldest events when full, and while more than
 * `wsBufferLimit` bytes wait unsent on its socket new events are dropped for
 * it. Either way the client next gets `stream_lagged {skipped}`.
 *
 * @module
 */

import type { Subscription } from "../events/mod.ts";
import { type HttpContext, VERSION } from "./context.ts";
import { jsonError } from "./errors.ts";
import { ALL_EVENTS, isPublic, kindsFor } from "./hub.ts";
import { type Closable, streamRefused } from "./sse.ts";
import type { ServerSocket } from "./ws_upgrade.ts";

const encoder = new TextEncoder();

/** Largest client message: the stream reads none, so a small one (a keep-alive) is all a client needs. */
export const MAX_CLIENT_MESSAGE_BYTES = 1024;

/** One `/api/ws` frame. */
export function wsFrame(eventType: string, json: string): Uint8Array {
  return encoder.encode(JSON.stringify({ event_type: eventType, data: json }));
}

/** True when the request asks for a WebSocket upgrade. */
export function isUpgrade(req: Request): boolean {
  return req.headers.get("upgrade")?.toLowerCase() === "websocket";
}

/**
 * Upgrades `/api/ws`; 426 without an upgrade header, 503 when too many
 * streams are open, 429 when client `ip` has its share of them.
 */
export function openWsEvents(req: Request, ip: string, ctx: HttpContext): Response {
  if (!isUpgrade(req)) return jsonError(426, "expected a WebSocket upgrade");
  const refusal = ctx.tracker.refusal(ip);
  if (refusal) return streamRefused(refusal);
  return ctx.upgrades.upgrade(req, MAX_CLIENT_MESSAGE_BYTES, (socket) => {
    // The slots are checked again: others may have opened during the handshake.
    const stream = new WsEventStream(socket, ctx);
    if (!ctx.tracker.tryAdd(stream, ip)) stream.refuse();
  });
}

/** One `/api/ws` connection. */
class WsEventStream implements Closable {
  readonly #socket: ServerSocket;
  readonly #ctx: HttpContext;
  readonly #sub: Subscription;
  #skipped = 0;
  #closed = false;

  /** Starts on an open socket: `ready` first, then the events. */
  constructor(socket: ServerSocket, ctx: HttpContext) {
    this.#socket = socket;
    this.#ctx = ctx;
    this.#sub = ctx.bus.subscribe({
      kinds: kindsFor(ALL_EVENTS),
      capacity: ctx.options.streamCapacity,
      filter: isPublic,
    });
    socket.onclose = () => this.#finish();
    socket.onerror = () => this.#finish();
    if (this.#send(wsFrame("ready", JSON.stringify({ stream: "ws", version: VERSION })))) void this.#pump();
  }

  /** Closes a stream that found no free slot (1013: try again later). */
  refuse(): void {
    this.#finish();
    try {
      this.#socket.close(1013, "too many open streams");
    } catch {
      // Already closing.
    }
  }

  /** Closes the socket (shutdown) and releases the subscription. */
  close(): void {
    if (this.#closed) return;
    this.#finish();
    try {
      this.#socket.close(1001, "server shutting down");
    } catch {
      // Already closing.
    }
  }

  async #pump(): Promise<void> {
    const limit = this.#ctx.options.wsBufferLimit;
    for (;;) {
      const item = await this.#sub.next();
      if (item === null || this.#closed) return;
      if (item.type === "lagged") {
        this.#skipped += item.skipped;
        continue;
      }
      const hub = this.#ctx.hub.render(item.event);
      if (!hub) continue;
      if (this.#socket.bufferedAmount > limit) {
        this.#skipped++;
        continue;
      }
      if (this.#skipped > 0) {
        if (!this.#send(wsFrame("stream_lagged", JSON.stringify({ skipped: this.#skipped })))) return;
        this.#skipped = 0;
      }
      if (!this.#send(wsFrame(hub.type, hub.json))) return;
    }
  }

  #send(frame: Uint8Array): boolean {
    if (this.#closed || this.#socket.readyState !== WebSocket.OPEN) return false;
    try {
      this.#socket.send(frame);
      return true;
    } catch {
      this.#finish();
      return false;
    }
  }

  #finish(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#sub.close();
    this.#ctx.tracker.delete(this);
  }
}
