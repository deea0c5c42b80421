/**
 * `/api/ws` (spec 1 §4.3): the events of `/api/events` over a WebSocket,
 * one binary frame per event whose bytes are the JSON
 * `{"event_type": T, "data": "<payload JSON as a string>"}` (the PMP layout,
 * extended.md §4.2). A `ready` frame comes first (as on the SSE stream).
 * Client messages are ignored.
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

const encoder = new TextEncoder();

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
  const { socket, response } = Deno.upgradeWebSocket(req);
  ctx.tracker.tryAdd(new WsEventStream(socket, ctx), ip);
  return response;
}

/** One `/api/ws` connection. */
class WsEventStream implements Closable {
  readonly #socket: WebSocket;
  readonly #ctx: HttpContext;
  readonly #sub: Subscription;
  #skipped = 0;
  #closed = false;

  constructor(socket: WebSocket, ctx: HttpContext) {
    this.#socket = socket;
    this.#ctx = ctx;
    this.#sub = ctx.bus.subscribe({
      kinds: kindsFor(ALL_EVENTS),
      capacity: ctx.options.streamCapacity,
      filter: isPublic,
    });
    socket.binaryType = "arraybuffer";
    socket.onopen = () => {
      if (this.#send(wsFrame("ready", JSON.stringify({ stream: "ws", version: VERSION })))) void this.#pump();
    };
    socket.onclose = () => this.#finish();
    socket.onerror = () => this.#finish();
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
