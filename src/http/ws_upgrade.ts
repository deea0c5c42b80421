/**
 * WebSocket upgrades with a message-size limit enforced as data arrives
 * (issue 14).
 *
 * `Deno.upgradeWebSocket` (Deno 2.9.6) takes `protocol`, `idleTimeout`,
 * `socket` and `head` only: there is no message-size option, and its
 * WebSocket delivers a message to JavaScript only once all of it is buffered
 * (up to 64 MiB), so a route's own limit came too late. `node:http`'s
 * `upgrade` event, however, hands over the raw connection; the `ws` library
 * reads the frames there with a `maxPayload` that it checks against each
 * frame header and the running total of a fragmented message, and closes
 * with 1009 before the payload is read. The HTTP listener (`node_front.ts`)
 * does that; routes ask for an upgrade here.
 *
 * A route calls {@link WsUpgrades.upgrade} with its limit and a callback; it
 * returns a placeholder response. The listener then finds the pending
 * upgrade by the request, completes the handshake and calls the callback
 * with the open socket. Called without that listener (the app in process),
 * the placeholder is the answer and the callback never runs, so nothing is
 * left open.
 *
 * @module
 */

// @ts-types="@types/ws"
import type { WebSocket as NodeWebSocket } from "ws";
import { Buffer } from "node:buffer";
import type { Clock, TimerHandle } from "../util/clock.ts";
import { jsonError } from "./errors.ts";

/** How often an open socket is pinged; one that has not answered the previous ping by then is dropped. */
export const WS_PING_INTERVAL_MS = 30_000;

/**
 * What the stream classes use of a server-side WebSocket: the WHATWG subset,
 * so that a browser-API `WebSocket` (the monitor proxy's) fits too. Binary
 * messages arrive as `ArrayBuffer`, text ones as `string`; `open` fires
 * once, asynchronously, as in a browser.
 */
export interface ServerSocket {
  binaryType: BinaryType;
  readonly readyState: number;
  /** Bytes queued for sending. */
  readonly bufferedAmount: number;
  onopen: ((event: Event) => unknown) | null;
  onmessage: ((event: MessageEvent) => unknown) | null;
  onclose: ((event: CloseEvent) => unknown) | null;
  onerror: ((event: Event) => unknown) | null;
  send(data: Uint8Array | string): void;
  close(code?: number, reason?: string): void;
}

/** A pending upgrade: its limit and what to do once the socket is open. */
export interface PendingUpgrade {
  /** Largest client message, bytes; more is refused with 1009 as it arrives. */
  readonly maxMessageBytes: number;
  /** Wraps the `ws` socket the listener opened and hands it to the route. */
  open(ws: NodeWebSocket): void;
}

/** The bridge between routes asking for upgrades and the listener performing them. */
export class WsUpgrades {
  readonly #pending = new WeakMap<Request, PendingUpgrade>();
  readonly #clock: Clock;

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /**
   * Asks the listener to upgrade `req` with a limit of `maxMessageBytes` per
   * client message; `onOpen` gets the socket once the handshake is done.
   * Returns the placeholder answer (501 when no listener takes it).
   */
  upgrade(req: Request, maxMessageBytes: number, onOpen: (socket: ServerSocket) => void): Response {
    const clock = this.#clock;
    this.#pending.set(req, { maxMessageBytes, open: (ws) => onOpen(new WsSocket(ws, clock)) });
    return jsonError(501, "WebSocket upgrades are served by the HTTP listener only");
  }

  /** The upgrade a route asked for on `req` (taken once), or undefined. */
  take(req: Request): PendingUpgrade | undefined {
    const pending = this.#pending.get(req);
    this.#pending.delete(req);
    return pending;
  }
}

/** A `ws` socket seen through {@link ServerSocket}, with a keep-alive ping. */
class WsSocket implements ServerSocket {
  /** Always `arraybuffer` (the only kind the routes read). */
  binaryType: BinaryType = "arraybuffer";
  onopen: ServerSocket["onopen"] = null;
  onmessage: ServerSocket["onmessage"] = null;
  onclose: ServerSocket["onclose"] = null;
  onerror: ServerSocket["onerror"] = null;
  readonly #ws: NodeWebSocket;
  readonly #clock: Clock;
  #ping: TimerHandle | undefined;
  #alive = true;

  constructor(ws: NodeWebSocket, clock: Clock) {
    this.#ws = ws;
    this.#clock = clock;
    ws.binaryType = "arraybuffer";
    ws.on("message", (data: ArrayBuffer | Buffer, isBinary: boolean) => {
      const bytes = data instanceof ArrayBuffer ? data : new Uint8Array(data).slice().buffer;
      this.onmessage?.(new MessageEvent("message", { data: isBinary ? bytes : Buffer.from(bytes).toString("utf8") }));
    });
    ws.on("pong", () => (this.#alive = true));
    // `ws` reports a refused frame (too large, malformed) as an error, then closes with its code.
    ws.on("error", () => this.onerror?.(new Event("error")));
    ws.on("close", (code: number, reason: Buffer) => {
      this.#clock.clearTimeout(this.#ping);
      this.onclose?.(new CloseEvent("close", { code, reason: reason.toString("utf8") }));
    });
    this.#schedulePing();
    // Open already; told asynchronously, like a browser WebSocket, once the route has set its handlers.
    queueMicrotask(() => {
      if (ws.readyState === ws.OPEN) this.onopen?.(new Event("open"));
    });
  }

  get readyState(): number {
    return this.#ws.readyState;
  }

  get bufferedAmount(): number {
    return this.#ws.bufferedAmount;
  }

  send(data: Uint8Array | string): void {
    this.#ws.send(data);
  }

  close(code?: number, reason?: string): void {
    this.#ws.close(code, reason);
  }

  /** A peer that does not answer a ping within an interval is gone (what `idleTimeout` did). */
  #schedulePing(): void {
    this.#ping = this.#clock.setTimeout(() => {
      if (this.#ws.readyState !== this.#ws.OPEN) return;
      if (!this.#alive) return this.#ws.terminate();
      this.#alive = false;
      this.#ws.ping();
      this.#schedulePing();
    }, WS_PING_INTERVAL_MS);
  }
}
