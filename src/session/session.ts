/**
 * One client connection (spec 3 §4.1 rules 2–3): reads the version byte and
 * frames, answers `Ping` at once, runs every other command strictly in order
 * through its own bounded mailbox, and writes through its own bounded
 * {@link OutboundQueue}.
 *
 * It also models what the official client believes (protocol.md §5.5) and
 * refuses, with a counter, to send what would crash it: a reply nobody asked
 * for, or room-scoped state while the client has no room.
 *
 * @module
 */

import {
  ClientCommand as ClientCommandCodec,
  encodeServerCommand,
  FrameDecoder,
  PROTOCOL_VERSION,
  ProtocolError,
  Reader,
  REPLY_OF,
  type ServerCommand,
  type ServerCommandType,
} from "../protocol/mod.ts";
import type { Clock, TimerHandle } from "../util/clock.ts";
import type { Logger } from "../util/log.ts";
import { AuthGate, type GateFailure, type GateLimits, PRE_AUTH_LIMITS } from "./auth_gate.ts";
import { OutboundQueue } from "./outbound.ts";
import type {
  CloseReason,
  Inbound,
  SessionCategory,
  SessionHooks,
  SessionOptions,
  SessionState,
  Transport,
} from "./session_types.ts";

export type {
  CloseReason,
  Inbound,
  SessionCategory,
  SessionHooks,
  SessionOptions,
  SessionState,
  Transport,
} from "./session_types.ts";

/** States before activation in which the authentication timeout runs. */
const PRE_ACTIVE: ReadonlySet<SessionState> = new Set([
  "connected",
  "authenticating",
  "durable-accepted",
  "response-flushed",
]);

const ROOM_SCOPED_MESSAGES = new Set(["LockRoom", "CycleRoom", "LeaveRoom"]);

/** Commands the official client only accepts while it has room state (protocol.md §5.5). */
export function isRoomScoped(cmd: ServerCommand): boolean {
  return cmd.type === "ChangeState" || cmd.type === "ChangeHost" ||
    (cmd.type === "Message" && ROOM_SCOPED_MESSAGES.has(cmd.message.type));
}

/** One client connection. */
export class Session {
  readonly id: number;
  readonly ip: string;
  readonly outbound: OutboundQueue;
  state: SessionState = "connected";
  category: SessionCategory = "normal";
  /** Id of the authenticated user (negative for game monitors), or null. */
  userId: number | null = null;
  /** Clock.monotonic() of the last decoded command. */
  lastReceived: number;
  /** What the client believes: it holds room state (protocol.md §5.5). */
  clientInRoom = false;
  /** Accepted past `max_sessions`: its login is answered "server full". */
  overCapacity = false;
  /** Closed by {@link close}; resolves after cleanup. */
  readonly done: Promise<CloseReason>;

  #transport: Transport;
  #clock: Clock;
  #hooks: SessionHooks;
  #heartbeatMs: number;
  #authTimeoutMs: number;
  readonly #connectedAt: number;
  #mailbox: Inbound[] = [];
  #mailboxLimit: number;
  #processing = false;
  #spaceWaiter: (() => void) | null = null;
  #outstanding = new Map<ServerCommandType, number>();
  #resolveDone!: (reason: CloseReason) => void;
  #closeReason: CloseReason | null = null;
  #baseLog: Logger;
  #log: Logger | null = null;
  #preAuth: GateLimits;
  #gate: AuthGate | null = null;
  #gateFailure: GateFailure | null = null;
  #onGateFailure: ((failure: GateFailure) => void) | null = null;

  constructor(transport: Transport, hooks: SessionHooks, options: SessionOptions) {
    this.id = options.id;
    this.ip = options.ip;
    this.#baseLog = options.log;
    this.#transport = transport;
    this.#hooks = hooks;
    this.#clock = options.clock;
    this.#heartbeatMs = options.heartbeatTimeoutMs;
    this.#authTimeoutMs = options.authTimeoutMs;
    this.#mailboxLimit = options.mailboxLimit ?? 64;
    this.#preAuth = options.preAuth ?? PRE_AUTH_LIMITS;
    this.lastReceived = options.clock.monotonic();
    this.done = new Promise((resolve) => (this.#resolveDone = resolve));
    this.outbound = new OutboundQueue(transport, options.outbound, (reason, error) => {
      if (reason === "overflow") {
        hooks.count("slow_client_disconnects");
        this.log.warn("client too slow: outbound queue full, disconnecting");
        this.close("slow-client");
      } else {
        this.close("read-error");
        this.log.debug("write failed", { error: error instanceof Error ? error.message : String(error) });
      }
    });
    this.#connectedAt = this.lastReceived;
  }

  /** Logger with this session's id; made on first use (most sessions never log). */
  get log(): Logger {
    return this.#log ??= this.#baseLog.child({ session: this.id });
  }

  /** True until the session is closed. */
  get open(): boolean {
    return this.state !== "closed";
  }

  /** Why it closed, or null. */
  get closeReason(): CloseReason | null {
    return this.#closeReason;
  }

  /**
   * spec 3 §3.2 Authenticating → DurableAccepted: from now until
   * {@link activate}, pushed frames wait in the pre-activation gate (spec 3
   * §8 limits) behind the login reply. Resolves if the gate fails: a limit
   * was exceeded (counted) or the reply was not flushed in time.
   */
  openGate(): Promise<GateFailure> {
    this.state = "durable-accepted";
    this.#gate = new AuthGate(this.#clock.monotonic(), this.#preAuth);
    this.#gateFailure = null;
    return new Promise((resolve) => (this.#onGateFailure = resolve));
  }

  /** Frames waiting in the gate (0 when there is none). */
  get gatedFrames(): number {
    return this.#gate?.pendingEvents ?? 0;
  }

  /** Why the gate failed, or null. */
  get gateFailure(): GateFailure | null {
    return this.#gateFailure;
  }

  /**
   * Marks the session authenticated and active (stops the auth timer) and
   * releases the gate's frames, in order, after the login reply.
   */
  activate(category: SessionCategory, userId: number | null): void {
    this.state = "active";
    this.category = category;
    this.userId = userId;
    const gate = this.#gate;
    this.#gate = null;
    this.#onGateFailure = null;
    if (gate && this.open) { for (const frame of gate.release()) this.outbound.push(frame); }
  }

  #failGate(failure: GateFailure): void {
    if (this.#gateFailure) return;
    this.#gateFailure = failure;
    this.#gate?.release();
    if (failure === "control-overflow") this.#hooks.count("gate_control_overflow");
    else if (failure === "overflow") this.#hooks.count("compat_queue_drop");
    this.log.warn("login failed before activation: pre-activation buffer", { failure });
    const notify = this.#onGateFailure;
    this.#onGateFailure = null;
    notify?.(failure);
  }

  /** Reads until EOF or error. Resolves when the connection is done. */
  async run(): Promise<void> {
    // Small per-connection buffers: most frames are tens of bytes, and the
    // memory target is thousands of idle sessions (issue 8). Large frames
    // simply take more reads; the decoder grows only when one needs it.
    const buf = new Uint8Array(READ_BUFFER_BYTES);
    const decoder = new FrameDecoder(256);
    let versionSeen = false;
    try {
      while (this.open) {
        if (this.#mailbox.length >= this.#mailboxLimit) {
          // Backpressure: stop reading until the mailbox has room.
          await new Promise<void>((resolve) => (this.#spaceWaiter = resolve));
          if (!this.open) break;
        }
        const n = await this.#transport.read(buf);
        if (n === null) {
          this.close("eof");
          break;
        }
        let chunk = buf.subarray(0, n);
        if (!versionSeen) {
          versionSeen = true;
          if (chunk[0] !== PROTOCOL_VERSION) {
            // Every official client sends 1 (protocol.md §1); anything else
            // is not a Phira client we can talk to.
            this.log.info("unsupported protocol version, closing", { version: chunk[0] });
            this.close("bad-version");
            break;
          }
          chunk = chunk.subarray(1);
        }
        decoder.push(chunk);
        for (let payload = decoder.next(); payload; payload = decoder.next()) {
          this.#receive(payload);
          if (!this.open) break;
        }
      }
    } catch (error) {
      if (error instanceof ProtocolError) {
        this.#hooks.count("malformed_frames");
        this.log.info("malformed frame, closing connection", { reason: error.message, offset: error.offset });
        this.close("malformed");
      } else {
        if (this.open) this.log.debug("read failed", { error: error instanceof Error ? error.message : String(error) });
        this.close("read-error");
      }
    }
  }

  #receive(payload: Uint8Array): void {
    const reader = new Reader(payload);
    const cmd = ClientCommandCodec.read(reader);
    const receivedAt = this.#clock.monotonic();
    this.lastReceived = receivedAt;
    if (this.state === "failed" || this.state === "closed") return;
    if (cmd.type === "Ping") {
      // Answered at once, outside the mailbox: a slow upstream lookup must
      // not make the client miss heartbeats (protocol.md §5.2).
      this.#write(PONG_FRAME);
      return;
    }
    const replyType = REPLY_OF[cmd.type];
    if (replyType) this.#outstanding.set(replyType, (this.#outstanding.get(replyType) ?? 0) + 1);
    // Telemetry keeps the bytes it was decoded from (without trailing junk) so
    // the relay can reuse them instead of encoding again.
    const raw = cmd.type === "Touches" || cmd.type === "Judges" ? payload.slice(0, reader.pos) : EMPTY;
    this.#mailbox.push({ cmd, raw, receivedAt });
    if (!this.#processing) void this.#process();
  }

  async #process(): Promise<void> {
    this.#processing = true;
    try {
      while (this.open && this.#mailbox.length) {
        const inbound = this.#mailbox.shift()!;
        if (this.#spaceWaiter && this.#mailbox.length < this.#mailboxLimit) {
          const wake = this.#spaceWaiter;
          this.#spaceWaiter = null;
          wake();
        }
        try {
          await this.#hooks.handle(this, inbound);
        } catch (error) {
          this.log.error("command handler failed", {
            command: inbound.cmd.type,
            error: error instanceof Error ? error.stack ?? error.message : String(error),
          });
        }
      }
    } finally {
      this.#processing = false;
    }
  }

  /** Number of requests of a reply type still waiting for their reply. */
  outstanding(type: ServerCommandType): number {
    return this.#outstanding.get(type) ?? 0;
  }

  /**
   * Sends the reply to a request of this session. A reply with no request
   * outstanding would crash the official client: it is blocked and counted.
   * Returns the frame's sequence number (0 if not queued).
   */
  reply(cmd: ServerCommand): number {
    const pending = this.#outstanding.get(cmd.type) ?? 0;
    if (pending <= 0) {
      this.#hooks.count("unsolicited_reply_blocked");
      this.log.warn("blocked a reply nobody asked for", { command: cmd.type });
      return 0;
    }
    this.#outstanding.set(cmd.type, pending - 1);
    const result = "result" in cmd ? (cmd.result as { ok: boolean; value?: unknown }) : null;
    if (result?.ok) {
      if (cmd.type === "CreateRoom" || cmd.type === "JoinRoom") this.clientInRoom = true;
      else if (cmd.type === "LeaveRoom") this.clientInRoom = false;
      else if (cmd.type === "Authenticate") this.clientInRoom = (result.value as [unknown, unknown])[1] !== null;
    }
    return this.#write(encodeServerCommand(cmd));
  }

  /**
   * Sends a pushed (non-reply) frame. Room-scoped state for a client that
   * holds no room is dropped and counted (protocol.md §5.5).
   */
  push(frame: Uint8Array, roomScoped: boolean): number {
    if (roomScoped && !this.clientInRoom) {
      this.#hooks.count("critical_compat_drop");
      this.log.warn("dropped room-scoped message for a client outside any room");
      return 0;
    }
    // spec 3 §3.2: before activation, pushed frames wait behind the login reply.
    if (this.#gate) return this.#hold(this.#gate, frame, roomScoped);
    return this.#write(frame);
  }

  #write(frame: Uint8Array): number {
    if (!this.open) return 0;
    return this.outbound.push(frame);
  }

  /** Holds a pushed frame in the gate; a frame that does not fit fails the login (returns 0 either way). */
  #hold(gate: AuthGate, frame: Uint8Array, control: boolean): number {
    if (this.#gateFailure || !this.open) return 0;
    const failure = gate.hold(frame, control, this.#clock.monotonic());
    if (failure) this.#failGate(failure);
    return 0;
  }

  /** Closes once `seq` is written (or after `maxWaitMs`). */
  async closeAfterFlush(seq: number, reason: CloseReason, maxWaitMs = 2000): Promise<void> {
    let timer: TimerHandle | undefined;
    const timeout = new Promise<void>((resolve) => (timer = this.#clock.setTimeout(resolve, maxWaitMs)));
    await Promise.race([this.outbound.flushed(seq), timeout]);
    this.#clock.clearTimeout(timer);
    this.close(reason);
  }

  /** Closes the connection now; pending output is discarded. Idempotent. */
  close(reason: CloseReason): void {
    if (this.state === "closed") return;
    this.state = "closed";
    this.#closeReason = reason;
    this.#mailbox = [];
    this.#gate = null;
    this.outbound.close();
    try {
      this.#transport.close();
    } catch {
      // Already closed by the peer.
    }
    const wake = this.#spaceWaiter;
    this.#spaceWaiter = null;
    wake?.();
    this.#hooks.closed(this, reason);
    this.#resolveDone(reason);
  }

  /**
   * Closes the session if it has been silent for the heartbeat timeout, or has
   * not authenticated within the auth timeout. The server calls this for every
   * session about once a second, instead of each session keeping timers: that
   * costs nothing per message and less memory per connection (spec 3 §8).
   */
  checkTimeouts(now: number): void {
    if (!this.open) return;
    // spec 3 §8: the login reply must be flushed within 8 s of being queued.
    if (this.#gate && this.#gate.expired(now)) this.#failGate("expired");
    if (PRE_ACTIVE.has(this.state) && now - this.#connectedAt >= this.#authTimeoutMs) {
      this.log.info("authentication timed out");
      this.close("auth-timeout");
      return;
    }
    const idle = now - this.lastReceived;
    if (idle >= this.#heartbeatMs) {
      this.log.info("connection lost: no command within the heartbeat timeout", { idle_ms: Math.round(idle) });
      this.close("heartbeat");
    }
  }
}

const EMPTY = new Uint8Array(0);
/** Bytes read per socket read call. */
const READ_BUFFER_BYTES = 1024;
/** `Pong` never changes; encoded once (frames are immutable once queued). */
const PONG_FRAME = encodeServerCommand({ type: "Pong" });
