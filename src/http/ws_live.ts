/**
 * `/ws/live`: the web monitor's spectator WebSocket (extended.md §5.6)
 * served by the game server itself, so a browser can spectate without the
 * monitor proxy.
 *
 * Each viewer gets a virtual game session over an in-memory pipe, driven by
 * the protocol client: `GameMonitorAuthenticate(token)` (the server acts
 * under the negated id with " (monitor)" appended), then browser
 * `WsCommand`s become `JoinRoom{monitor: true}`, `LeaveRoom` and `Ready`, and
 * what the session receives becomes `LiveEvent` frames. The viewer's real id
 * is checked against `monitors` through the upstream before the session is
 * opened; a refusal is an `Authenticate(Err)` frame and close code 1008.
 *
 * Bounds: `maxLiveViewers` sessions; at most {@link MAX_PENDING_COMMANDS}
 * browser commands in flight and messages of at most {@link MAX_COMMAND_BYTES};
 * touches and judges are dropped while the socket has more than
 * `wsBufferLimit` bytes unsent, and a socket four times over it is closed.
 * Closing the WebSocket leaves the room and closes the virtual session.
 *
 * @module
 */

import { type ClientEvent, PhiraClient } from "../client/mod.ts";
import { createPipe } from "../util/pipe.ts";
import type { HttpContext } from "./context.ts";
import { jsonError } from "./errors.ts";
import { decodeWsCommand, encodeLiveEvent, type LiveEvent, type WsCommand } from "./live_protocol.ts";
import { type Closable, streamRefused } from "./sse.ts";
import type { ServerSocket } from "./ws_upgrade.ts";
import { isUpgrade } from "./ws_events.ts";

/** Browser commands queued or running at once; more closes the socket. */
export const MAX_PENDING_COMMANDS = 16;
/** Largest browser message (a Join with a 20-byte room id is 22 bytes). */
export const MAX_COMMAND_BYTES = 256;
/** Largest token (protocol `Varchar<32>`). */
const MAX_TOKEN_BYTES = 32;

/** Upgrades `/ws/live`: 426 without an upgrade, 401 without a token, 400 for a malformed one, 503 when full. */
export async function openLive(req: Request, ip: string, ctx: HttpContext): Promise<Response> {
  if (!isUpgrade(req)) return jsonError(426, "expected a WebSocket upgrade");
  const token = new URL(req.url).searchParams.get("token");
  if (!token) return jsonError(401, "missing token (query parameter token)");
  if (new TextEncoder().encode(token).length > MAX_TOKEN_BYTES) return jsonError(400, "invalid token");
  const full = ctx.live.refusal(ip);
  if (full) return streamRefused(full, "too many spectators");
  const refusal = await checkViewer(ctx, token);
  // Messages over MAX_COMMAND_BYTES are refused as they arrive (close 1009, `ws_upgrade.ts`).
  return ctx.upgrades.upgrade(req, MAX_COMMAND_BYTES, (socket) => {
    // The limits are checked again: other viewers may have arrived during the upstream call and the handshake.
    const again = ctx.live.refusal(ip);
    const reason = refusal ??
      (again === "full" ? "too many spectators" : again ? "too many spectators from this address" : null);
    if (reason === null) {
      const bridge = new LiveBridge(socket, token, ip, ctx);
      ctx.live.tryAdd(bridge, ip);
      return bridge.start();
    }
    socket.send(encodeLiveEvent({ type: "Authenticate", result: { ok: false, error: reason } }));
    socket.close(1008, "refused");
  });
}

/** Why the token's owner may not spectate, or null (spec: checked through the upstream and `monitors`). */
async function checkViewer(ctx: HttpContext, token: string): Promise<string | null> {
  try {
    const identity = await ctx.core.ctx.upstream.me(token, { budgetMs: ctx.config.auth_budget_ms });
    if (ctx.config.monitors.includes(identity.id)) return null;
    ctx.log.info("spectator refused: not in monitors", { user: identity.id });
    return "not allowed to spectate";
  } catch (error) {
    ctx.log.info("spectator authentication failed", { reason: error instanceof Error ? error.message : String(error) });
    return "authentication failed";
  }
}

/** One viewer: a WebSocket bridged to a virtual game-monitor session. */
class LiveBridge implements Closable {
  readonly #socket: ServerSocket;
  readonly #ctx: HttpContext;
  readonly #token: string;
  readonly #ip: string;
  #client: PhiraClient | null = null;
  #chain: Promise<void> = Promise.resolve();
  #pending = 0;
  #closed = false;
  #finished: Promise<void> | null = null;

  constructor(socket: ServerSocket, token: string, ip: string, ctx: HttpContext) {
    this.#socket = socket;
    this.#token = token;
    this.#ip = ip;
    this.#ctx = ctx;
    socket.onmessage = (e) => this.#onMessage(e.data);
    socket.onclose = () => void this.#finish();
    socket.onerror = () => void this.#finish();
  }

  /** Opens the virtual session (the socket is open). */
  start(): void {
    this.#enqueue(() => this.#start());
  }

  /** Ends the viewer (shutdown): closes the socket, leaves the room, closes the session. */
  close(): Promise<void> {
    this.#closeSocket(1001, "server shutting down");
    return this.#finish();
  }

  async #start(): Promise<void> {
    const { server, clock, config } = this.#ctx;
    const [serverEnd, clientEnd] = createPipe();
    if (!server.attach(serverEnd, this.#ip)) {
      clientEnd.close();
      this.#send({ type: "Authenticate", result: { ok: false, error: "server unavailable" } });
      return this.#closeSocket(1013, "server unavailable");
    }
    const client = new PhiraClient(clientEnd, {
      clock,
      // Keep the virtual session inside the server's heartbeat timeout.
      pingIntervalMs: Math.max(1000, Math.floor((config.heartbeat_timeout * 1000) / 3)),
      eventBufferLimit: 0,
      logLimit: 0,
      onEvent: (event) => this.#relay(event),
    });
    this.#client = client;
    void client.closed.then(() => this.#closeSocket(1000, "session closed"));
    const reply = await client.request({ type: "GameMonitorAuthenticate", token: this.#token });
    this.#send({ type: "Authenticate", result: reply.result });
    if (!reply.result.ok) return this.#closeSocket(1008, "authentication failed");
    this.#ctx.log.info("spectator connected", { user: reply.result.value[0].id });
  }

  #onMessage(data: unknown): void {
    // Larger messages never get here (refused as they arrive); text ones are the wrong kind.
    if (!(data instanceof ArrayBuffer)) return this.#closeSocket(1003, "expected a binary WsCommand");
    let command: WsCommand;
    try {
      command = decodeWsCommand(new Uint8Array(data));
    } catch {
      return this.#closeSocket(1007, "malformed WsCommand");
    }
    if (this.#pending >= MAX_PENDING_COMMANDS) return this.#closeSocket(1008, "too many commands in flight");
    this.#enqueue(() => this.#run(command));
  }

  #enqueue(task: () => Promise<void>): void {
    this.#pending++;
    this.#chain = this.#chain.then(async () => {
      if (this.#closed) return;
      try {
        await task();
      } catch {
        // Timeout or closed session: the viewer cannot go on.
        this.#closeSocket(1011, "session failed");
      }
    }).finally(() => this.#pending--);
  }

  async #run(command: WsCommand): Promise<void> {
    const client = this.#client;
    if (!client || client.me === null) return;
    switch (command.type) {
      case "Join": {
        const reply = await client.request({ type: "JoinRoom", id: command.room_id, monitor: true });
        return this.#send({ type: "Join", result: reply.result });
      }
      case "Leave": {
        const reply = await client.request({ type: "LeaveRoom" });
        return this.#send({ type: "Leave", result: reply.result });
      }
      case "Ready":
        // Spectators must be ready too or the round cannot start; the reply is not relayed.
        await client.request({ type: "Ready" });
        return;
    }
  }

  #relay(event: ClientEvent): void {
    const limit = this.#ctx.options.wsBufferLimit;
    const buffered = this.#socket.bufferedAmount;
    if (buffered > 4 * limit) return this.#closeSocket(1008, "client too slow");
    switch (event.type) {
      case "Touches":
        if (buffered <= limit) this.#send({ type: "Touches", player: event.player, frames: event.frames });
        return;
      case "Judges":
        if (buffered <= limit) this.#send({ type: "Judges", player: event.player, judges: event.judges });
        return;
      case "ChangeState":
        return this.#send({ type: "StateChange", state: event.state });
      case "OnJoinRoom":
        return this.#send({ type: "UserJoin", user: event.user });
      case "Message":
        return this.#send({ type: "Message", message: event.message });
      default:
        // ChangeHost, RoomEvent, UserVisit: not part of the spectator protocol.
        return;
    }
  }

  #send(event: LiveEvent): void {
    if (this.#socket.readyState !== WebSocket.OPEN) return;
    try {
      this.#socket.send(encodeLiveEvent(event));
    } catch {
      // The socket closed meanwhile; onclose cleans up.
    }
  }

  #closeSocket(code: number, reason: string): void {
    const state = this.#socket.readyState;
    if (state === WebSocket.CLOSING || state === WebSocket.CLOSED) return;
    try {
      this.#socket.close(code, reason);
    } catch {
      // Already closing.
    }
  }

  #finish(): Promise<void> {
    return this.#finished ??= this.#release();
  }

  async #release(): Promise<void> {
    this.#closed = true;
    this.#ctx.live.delete(this);
    const client = this.#client;
    if (!client) return;
    if (client.roomId !== null && !client.isClosed) {
      // Leave explicitly so the room does not keep a dangling monitor for the grace period.
      await client.request({ type: "LeaveRoom" }).catch(() => {});
    }
    await client.close();
  }
}
