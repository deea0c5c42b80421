/**
 * One spectator of `/ws/live` (extended.md §5.6): a WebSocket bridged to a
 * game-monitor session driven by the protocol client. Shared by the game
 * server's HTTP port (a virtual session over an in-memory pipe) and the
 * monitor proxy (a TCP session per browser); each passes how to open the
 * session.
 *
 * After the socket opens the session logs in with
 * `GameMonitorAuthenticate(token)` and the answer becomes the first frame;
 * browser `WsCommand`s become `JoinRoom{monitor: true}`, `LeaveRoom` and
 * `Ready`, and what the session receives becomes `LiveEvent` frames.
 *
 * Bounds: at most {@link MAX_PENDING_COMMANDS} browser commands in flight,
 * messages of at most {@link MAX_COMMAND_BYTES}; touches and judges are
 * dropped while the socket has more than `wsBufferLimit` bytes unsent, and a
 * socket four times over it is closed. Closing the WebSocket leaves the room
 * and closes the session.
 *
 * @module
 */

import type { ClientEvent, PhiraClient } from "../client/mod.ts";
import { decodeWsCommand, encodeLiveEvent, type LiveEvent, type WsCommand } from "./live_protocol.ts";
import type { Closable } from "./sse.ts";
import type { ServerSocket } from "./ws_upgrade.ts";

/** Browser commands queued or running at once; more closes the socket. */
export const MAX_PENDING_COMMANDS = 16;
/** Largest browser message (a Join with a 20-byte room id is 22 bytes). */
export const MAX_COMMAND_BYTES = 256;

/** Why a session could not be opened; `message` becomes the `Authenticate(Err)` text. */
export class SessionUnavailable extends Error {
  override readonly name = "SessionUnavailable";
}

/** How one spectator is served. */
export interface LiveBridgeOptions {
  /**
   * The upgraded socket, not yet open: the listener's (`ws_upgrade.ts`,
   * whose messages over {@link MAX_COMMAND_BYTES} are refused before they
   * arrive whole), on the game server's HTTP port and on the monitor proxy.
   */
  readonly socket: WebSocket | ServerSocket;
  /** The game account token for `GameMonitorAuthenticate` (at most 32 bytes). */
  readonly token: string;
  /**
   * Opens the game session, relaying every pushed event to `onEvent`;
   * throws {@link SessionUnavailable} when the game server cannot be reached.
   */
  readonly open: (onEvent: (event: ClientEvent) => void) => Promise<PhiraClient>;
  /** Bytes the socket may have unsent before touches and judges are dropped. */
  readonly wsBufferLimit: number;
  /** Called once when the spectator is gone (socket closed and session released). */
  readonly onEnd: (bridge: LiveBridge) => void;
  /** Called with the spectator's id once logged in (for logs). */
  readonly onLogin?: (userId: number) => void;
}

/** One viewer: a WebSocket bridged to a game-monitor session. */
export class LiveBridge implements Closable {
  readonly #o: LiveBridgeOptions;
  readonly #socket: WebSocket | ServerSocket;
  #client: PhiraClient | null = null;
  #chain: Promise<void> = Promise.resolve();
  #pending = 0;
  #closed = false;
  #finished: Promise<void> | null = null;

  constructor(options: LiveBridgeOptions) {
    this.#o = options;
    const socket = this.#socket = options.socket;
    socket.binaryType = "arraybuffer";
    socket.onopen = () => this.#enqueue(() => this.#start());
    socket.onmessage = (e: MessageEvent) => this.#onMessage(e.data);
    socket.onclose = () => void this.#finish();
    socket.onerror = () => void this.#finish();
  }

  /** Ends the viewer (shutdown): closes the socket, leaves the room, closes the session. */
  close(): Promise<void> {
    this.#closeSocket(1001, "server shutting down");
    return this.#finish();
  }

  async #start(): Promise<void> {
    let client: PhiraClient;
    try {
      client = await this.#o.open((event) => this.#relay(event));
    } catch (error) {
      const reason = error instanceof SessionUnavailable ? error.message : "server unavailable";
      this.#send({ type: "Authenticate", result: { ok: false, error: reason } });
      return this.#closeSocket(1013, "server unavailable");
    }
    if (this.#closed) {
      await client.close();
      return;
    }
    this.#client = client;
    void client.closed.then(() => this.#closeSocket(1000, "session closed"));
    const reply = await client.request({ type: "GameMonitorAuthenticate", token: this.#o.token });
    this.#send({ type: "Authenticate", result: reply.result });
    if (!reply.result.ok) return this.#closeSocket(1008, "authentication failed");
    this.#o.onLogin?.(reply.result.value[0].id);
  }

  #onMessage(data: unknown): void {
    if (!(data instanceof ArrayBuffer) || data.byteLength > MAX_COMMAND_BYTES) {
      return this.#closeSocket(1003, "expected a binary WsCommand");
    }
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
    const limit = this.#o.wsBufferLimit;
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
    this.#o.onEnd(this);
    // A session still being opened is closed by #start when it sees #closed.
    const client = this.#client;
    if (client) {
      if (client.roomId !== null && !client.isClosed) {
        // Leave explicitly so the room does not keep a dangling monitor for the grace period.
        await client.request({ type: "LeaveRoom" }).catch(() => {});
      }
      await client.close();
    }
  }
}
