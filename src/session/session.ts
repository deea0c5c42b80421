/**
 * One client connection (spec 3 §4.1 rules 2-3): takes the version byte and
 * frames (`session_input.ts`), answers `Ping` at once, runs every other
 * command strictly in order through its own bounded {@link Mailbox}, and
 * writes through its own bounded {@link OutboundQueue}.
 *
 * It also models what the official client believes (protocol.md §5.5,
 * `client_model.ts`) and refuses, with a counter, to send what would crash
 * it: a reply nobody asked for, or room-scoped state while the client has no
 * room.
 *
 * Its login lifecycle (spec 3 §3.2) is the pure machine of
 * `login_machine.ts`, driven by {@link SessionLogin} (`session.login`):
 * `state` is read-only, and the server asks for transitions.
 *
 * @module
 */

import {
  encodeServerCommand,
  JudgesCommand,
  MAX_FRAME_PAYLOAD,
  readClientCommand,
  REPLY_OF,
  type ServerCommand,
  type ServerCommandType,
  TouchesCommand,
} from "../protocol/mod.ts";
import type { Clock, TimerHandle } from "../util/clock.ts";
import type { Logger } from "../util/log.ts";
import { ByteBudget } from "./byte_budget.ts";
import { inRoomAfterReply } from "./client_model.ts";
import { LOGIN_FRAME_MAX } from "./frame_limits.ts";
import { Mailbox } from "./mailbox.ts";
import { PRE_AUTH_LIMITS } from "./login_machine.ts";
import { OutboundQueue } from "./outbound.ts";
import { SessionInput } from "./session_input.ts";
import { SessionLogin } from "./session_login.ts";
import type {
  CloseReason,
  PushLink,
  SessionCategory,
  SessionHooks,
  SessionOptions,
  SessionState,
  Transport,
} from "./session_types.ts";

export type {
  CloseReason,
  Inbound,
  LoginOwner,
  PushLink,
  SessionCategory,
  SessionHooks,
  SessionOptions,
  SessionState,
  Transport,
} from "./session_types.ts";

export { isRoomScoped } from "./client_model.ts";

/**
 * One client connection. Its idle footprint is kept small (issue 15: at most
 * 2 KiB of JS per idle logged-in session): no read buffer between frames,
 * no logger object (records carry `session` at the call site), and the
 * maps, promises and arrays it may need are made on first use.
 */
export class Session extends SessionInput {
  readonly id: number;
  readonly ip: string;
  readonly outbound: OutboundQueue;
  /** The login lifecycle (spec 3 §3.2): the only place the session's state changes. */
  readonly login: SessionLogin;
  category: SessionCategory = "normal";
  /** Id of the authenticated user (negative for game monitors), or null. */
  userId: number | null = null;
  /** Clock.monotonic() of the last decoded command. */
  lastReceived: number;
  /** What the client believes: it holds room state (protocol.md §5.5). */
  clientInRoom = false;
  /** Accepted past `max_sessions`: its login is answered "server full". */
  overCapacity = false;

  #clock: Clock;
  #heartbeatMs: number;
  readonly #mailbox: Mailbox;
  /** Requests waiting for their reply, by reply type; null while there are none. */
  #outstanding: Map<ServerCommandType, number> | null = null;
  #done: Promise<CloseReason> | null = null;
  #resolveDone: ((reason: CloseReason) => void) | null = null;
  #closeReason: CloseReason | null = null;

  constructor(link: Transport | PushLink, hooks: SessionHooks, options: SessionOptions) {
    // Sessions built without a budget (tests) get their own, unbounded one.
    super(link, hooks, options.frameBudget ?? new ByteBudget(Number.MAX_SAFE_INTEGER), options.log);
    this.id = options.id;
    this.ip = options.ip;
    this.#clock = options.clock;
    this.#heartbeatMs = options.heartbeatTimeoutMs;
    this.#mailbox = new Mailbox(this, hooks, options.mailboxLimit ?? 64);
    this.lastReceived = options.clock.monotonic();
    this.outbound = new OutboundQueue(link, options.outbound, this);
    const limits = options.loginLimits ??
      { ...(options.preAuth ?? PRE_AUTH_LIMITS), authTimeoutMs: options.authTimeoutMs };
    this.login = new SessionLogin(this, hooks, limits, this.lastReceived);
  }

  /**
   * A logger with this session's id, made per call (nothing is kept per
   * session; hot paths log through the server's logger with a `session` field).
   */
  get log(): Logger {
    return this.baseLog.child({ session: this.id });
  }

  /** Resolves with the close reason once the session closed and was cleaned up. */
  get done(): Promise<CloseReason> {
    if (this.#done) return this.#done;
    if (this.#closeReason) return (this.#done = Promise.resolve(this.#closeReason));
    return (this.#done = new Promise((resolve) => (this.#resolveDone = resolve)));
  }

  /** The login lifecycle state (spec 3 §3.2); changed only through {@link login}. */
  get state(): SessionState {
    return this.login.phase;
  }

  /** True until the session is closed. */
  override get open(): boolean {
    return this.login.phase !== "closed";
  }

  /** Why it closed, or null. */
  get closeReason(): CloseReason | null {
    return this.#closeReason;
  }

  /** Frames waiting in the pre-activation gate (0 when there is none). */
  get gatedFrames(): number {
    return this.login.heldFrames;
  }

  /**
   * The login reached Active (spec 3 §3.2 ResponseFlushed -> Active, or
   * straight from Authenticating for the room monitor): the session acts
   * for `userId` now, its held frames follow the reply in order, and the
   * login's owner takes over the user's binding.
   */
  activate(category: SessionCategory, userId: number | null): void {
    if (!this.open) return;
    this.category = category;
    this.userId = userId;
    this.login.activate();
  }

  protected override frameLimit(): number {
    // Before login only a login command is acceptable (issue 14): checked from the prefix, before buffering.
    const phase = this.login.phase;
    return phase === "connected" || phase === "authenticating" ? LOGIN_FRAME_MAX : MAX_FRAME_PAYLOAD;
  }

  protected override mailboxFull(): boolean {
    return this.#mailbox.full;
  }

  #info(msg: string, fields: Record<string, unknown>): void {
    this.baseLog.info(msg, { session: this.id, ...fields });
  }

  protected override receive(payload: Uint8Array, owned: boolean): void {
    // Touches and Judges come back holding their bytes, items decoded only if asked for (protocol/telemetry_view.ts).
    const cmd = readClientCommand(payload, owned);
    const receivedAt = this.#clock.monotonic();
    this.lastReceived = receivedAt;
    const phase = this.login.phase;
    if (phase === "failed" || phase === "closed") return;
    if (cmd.type === "Ping") {
      // Answered at once, outside the mailbox: a slow upstream lookup must
      // not make the client miss heartbeats (protocol.md §5.2).
      this.#write(PONG_FRAME);
      return;
    }
    const replyType = REPLY_OF[cmd.type];
    if (replyType) {
      const outstanding = this.#outstanding ??= new Map();
      outstanding.set(replyType, (outstanding.get(replyType) ?? 0) + 1);
    }
    // Telemetry keeps the bytes it was read from (without trailing junk) so the relay can reuse them instead of
    // encoding again: a view of a received chunk is copied (it would pin the whole chunk), an assembled frame is not.
    const raw = cmd instanceof TouchesCommand || cmd instanceof JudgesCommand ? cmd.raw : EMPTY;
    this.#mailbox.push({ cmd, raw, receivedAt });
  }

  /** Number of requests of a reply type still waiting for their reply. */
  outstanding(type: ServerCommandType): number {
    return this.#outstanding?.get(type) ?? 0;
  }

  /**
   * Sends the reply to a request of this session. A reply with no request
   * outstanding would crash the official client: it is blocked and counted.
   * Returns the frame's sequence number (0 if not queued).
   */
  reply(cmd: ServerCommand): number {
    const outstanding = this.#outstanding;
    const pending = outstanding?.get(cmd.type) ?? 0;
    if (!outstanding || pending <= 0) {
      this.hooks.count("unsolicited_reply_blocked");
      this.baseLog.warn("blocked a reply nobody asked for", { session: this.id, command: cmd.type });
      return 0;
    }
    if (pending > 1) outstanding.set(cmd.type, pending - 1);
    else if (outstanding.size > 1) outstanding.delete(cmd.type);
    else this.#outstanding = null;
    this.clientInRoom = inRoomAfterReply(cmd, this.clientInRoom);
    return this.#write(encodeServerCommand(cmd));
  }

  /**
   * Sends a pushed (non-reply) frame. Room-scoped state for a client that
   * holds no room is dropped and counted (protocol.md §5.5).
   */
  push(frame: Uint8Array, roomScoped: boolean): number {
    if (roomScoped && !this.clientInRoom) {
      this.hooks.count("critical_compat_drop");
      this.baseLog.warn("dropped room-scoped message for a client outside any room", { session: this.id });
      return 0;
    }
    // spec 3 §3.2: before activation, pushed frames wait behind the login reply (or fail the login).
    if (this.login.gated) {
      this.login.hold(frame, roomScoped, this.#clock.monotonic());
      return 0;
    }
    return this.#write(frame);
  }

  #write(frame: Uint8Array): number {
    if (!this.open) return 0;
    return this.outbound.push(frame);
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
  override close(reason: CloseReason): void {
    if (this.login.phase === "closed") return;
    this.#closeReason = reason;
    // A login not yet Active is rolled back first (binding cleared, compensation).
    this.login.closed();
    this.#mailbox.clear();
    this.clearInput();
    this.outbound.close();
    try {
      this.link.close();
    } catch {
      // Already closed by the peer.
    }
    this.hooks.closed(this, reason);
    this.#resolveDone?.(reason);
    this.#resolveDone = null;
  }

  /**
   * Closes the session if it has been silent for the heartbeat timeout, or has
   * not authenticated within the auth timeout. The server calls this for every
   * session about once a second, instead of each session keeping timers: that
   * costs nothing per message and less memory per connection (spec 3 §8).
   */
  checkTimeouts(now: number): void {
    if (!this.open) return;
    // spec 3 §8: the login reply must be flushed within 8 s of being queued, and login done within auth_timeout.
    if (this.login.tick(now) || !this.open) {
      if (this.login.failure === "auth-timeout") this.#info("authentication timed out", {});
      return;
    }
    const idle = now - this.lastReceived;
    if (idle >= this.#heartbeatMs) {
      this.#info("connection lost: no command within the heartbeat timeout", { idle_ms: Math.round(idle) });
      this.close("heartbeat");
    }
  }
}

const EMPTY = new Uint8Array(0);
/** `Pong` never changes; encoded once (frames are immutable once queued). */
const PONG_FRAME = encodeServerCommand({ type: "Pong" });
