/**
 * The engine of the Phira client: reply matching, the room model, violation
 * records, the event stream, the `received` log, heartbeat and shutdown. The
 * per-command methods live in {@link PhiraClient} (`client.ts`).
 *
 * @module
 */

import { type ClientCommand, encodeClientCommand, REPLY_OF, REPLY_TYPES, type ServerCommand } from "../protocol/mod.ts";
import { type Clock, SystemClock, type TimerHandle } from "../util/clock.ts";
import { type ByteConn, FrameConnection } from "./connection.ts";
import { actionOf, ClientError } from "./errors.ts";
import { EventQueue } from "./event_queue.ts";
import { PendingReplies, type PendingRequest } from "./pending.ts";
import { RingBuffer } from "./ring_buffer.ts";
import { type ModelProblem, RoomModel } from "./room_model.ts";
import type { ClientEvent, ClientOptions, ClientStats, ReplyTo, RequestCommand, Violation } from "./types.ts";

const IS_REPLY: Readonly<Record<string, boolean>> = Object.freeze(
  Object.fromEntries(REPLY_TYPES.map((t) => [t, true])),
);
const MAX_VIOLATIONS_KEPT = 1000;

/** Reply matching, room model, stream and lifecycle shared by every client. */
export class ClientCore {
  /** The official client's local model (user and room state). */
  protected readonly model: RoomModel = new RoomModel();
  /** Timer source. */
  protected readonly clock: Clock;
  /** Default timeout of `next`/`waitFor`, ms. */
  protected readonly waitTimeoutMs: number;
  /** The event stream. */
  protected readonly events: EventQueue<ClientEvent>;
  readonly #opts: ClientOptions;
  readonly #conn: FrameConnection;
  readonly #pending: PendingReplies;
  readonly #log: RingBuffer<ServerCommand>;
  readonly #violations: Violation[] = [];
  readonly #requestTimeoutMs: number;
  readonly #pingTimeoutMs: number;
  readonly #pingIntervalMs: number;
  readonly #closed: Promise<void>;
  #resolveClosed!: () => void;
  #pingTimer: TimerHandle | undefined;
  #closeReason: ClientError | null = null;
  #closing = false;
  #rtt: number | null = null;
  readonly #count = { sent: 0, received: 0, lateReplies: 0, unsolicitedPongs: 0, pingTimeouts: 0, violations: 0 };

  /** Takes over an open connection: sends the version byte and starts reading and pinging. */
  constructor(conn: ByteConn, options: ClientOptions = {}) {
    this.#opts = options;
    this.clock = options.clock ?? new SystemClock();
    this.#requestTimeoutMs = options.requestTimeoutMs ?? 7000;
    this.#pingTimeoutMs = options.pingTimeoutMs ?? 2000;
    this.#pingIntervalMs = options.pingIntervalMs ?? 3000;
    this.waitTimeoutMs = options.waitTimeoutMs ?? 7000;
    this.events = new EventQueue(options.eventBufferLimit ?? 10_000, this.clock);
    this.#log = new RingBuffer(options.logLimit ?? 10_000);
    this.#pending = new PendingReplies(this.clock);
    this.#closed = new Promise((resolve) => this.#resolveClosed = resolve);
    this.#conn = new FrameConnection(conn, options.version ?? 1, {
      onCommand: (cmd) => this.#dispatch(cmd),
      onEnd: (error) => {
        this.#shutdown(error);
        this.#release(false);
      },
    }, {
      readBufferSize: options.readBufferSize ?? 4096,
      maxQueuedBytes: options.maxQueuedBytes ?? 8 * 1024 * 1024,
    });
    this.#schedulePing();
  }

  /**
   * Sends a request and resolves with its reply command, `Err` replies
   * included (the `Result` style: inspect `reply.result`). Rejects only with
   * a `timeout`/`closed`/`eof`/`protocol`/`io` {@link ClientError}, or a
   * `RangeError` when the command cannot be encoded (e.g. an invalid room id).
   */
  request<C extends RequestCommand>(cmd: C, timeoutMs: number = this.#requestTimeoutMs): Promise<ReplyTo<C>> {
    return new Promise((resolve, reject) => {
      this.#enqueue(cmd, timeoutMs, false, (reply) => resolve(reply as ReplyTo<C>), reject);
    });
  }

  /** Sends a Ping and resolves with the round-trip time in ms when the Pong arrives. */
  ping(timeoutMs: number = this.#pingTimeoutMs): Promise<number> {
    return new Promise((resolve, reject) =>
      this.#enqueue({ type: "Ping" }, timeoutMs, false, (_, rtt) => resolve(rtt), reject)
    );
  }

  /**
   * Writes raw bytes (frames or garbage) after everything queued before,
   * bypassing reply tracking. Returns false once the client is closing.
   */
  sendRaw(bytes: Uint8Array): boolean {
    if (this.#closing) return false;
    this.#count.sent++;
    return this.#conn.send(bytes);
  }

  /** Every command received, replies included, oldest first (bounded; automatic-ping Pongs are left out). */
  get received(): ServerCommand[] {
    return this.#log.toArray();
  }

  /** Points where the official client would have crashed; tests assert this stays empty. */
  get violations(): readonly Violation[] {
    return this.#violations;
  }

  /** Round-trip time of the last answered ping, ms. */
  get rtt(): number | null {
    return this.#rtt;
  }

  /** Counters. */
  get stats(): ClientStats {
    const dropped = { droppedEvents: this.events.dropped, droppedLog: this.#log.dropped };
    return { ...this.#count, pending: this.#pending.size, ...dropped };
  }

  /** Resolves once the socket is closed and the client has stopped; never rejects. */
  get closed(): Promise<void> {
    return this.#closed;
  }

  /** Why the client closed by itself (`eof`, `protocol`, `io`, `overflow`); null while open or after `close()`. */
  get closeReason(): ClientError | null {
    return this.#closeReason;
  }

  /** True once closing has begun. */
  get isClosed(): boolean {
    return this.#closing;
  }

  /**
   * Rejects pending requests and waiters with a `closed` error, writes what
   * is already queued, closes the socket and resolves once all is released.
   */
  close(): Promise<void> {
    if (!this.#closing) {
      this.#shutdown(null);
      this.#release(true);
    }
    return this.#closed;
  }

  /** Sends a command that has no reply. Returns false once the client is closing. */
  protected sendCommand(cmd: Exclude<ClientCommand, RequestCommand>): boolean {
    if (this.#closing) return false;
    this.#count.sent++;
    return this.#conn.send(encodeClientCommand(cmd));
  }

  #enqueue(
    cmd: RequestCommand,
    timeoutMs: number,
    auto: boolean,
    resolve: (reply: ServerCommand, rtt: number) => void,
    reject: (error: Error) => void,
  ): void {
    const action = actionOf(cmd.type);
    if (this.#closing) return reject(this.#endError().retarget(action, cmd.type));
    let frame: Uint8Array;
    try {
      frame = encodeClientCommand(cmd);
    } catch (e) {
      return reject(e as Error);
    }
    const replyType = REPLY_OF[cmd.type];
    const entry: PendingRequest = {
      request: cmd,
      sentAt: this.clock.monotonic(),
      auto,
      state: "waiting",
      timer: undefined,
      resolve,
      reject,
    };
    this.#pending.add(replyType, entry, timeoutMs, () => {
      if (auto) this.#count.pingTimeouts++;
      return new ClientError("timeout", action, `no ${replyType} reply within ${timeoutMs} ms`, { command: cmd.type });
    });
    this.#count.sent++;
    this.#conn.send(frame);
  }

  #dispatch(cmd: ServerCommand): void {
    const seq = this.#count.received++;
    if (this.#opts.onReceive) guard(this.#opts.onReceive, cmd);
    const type = cmd.type;
    if (type === "Pong" || IS_REPLY[type]) {
      const entry = this.#pending.take(type);
      if (!entry?.auto) this.#log.push(cmd);
      if (!entry) {
        // The official client answers a stray Pong with a no-op (a Notify), but panics on any other stray reply.
        if (type === "Pong") this.#count.unsolicitedPongs++;
        else this.#violate({ kind: "unsolicited-reply", detail: `${type} with no request outstanding` }, cmd, seq);
        return;
      }
      if (entry.state === "timed-out") {
        // Late reply: the official client drops it harmlessly (protocol.md §5.5).
        this.#count.lateReplies++;
        return;
      }
      this.#settle(entry, cmd, seq);
      return;
    }
    this.#log.push(cmd);
    const problem = this.model.applyPush(cmd);
    if (problem) this.#violate(problem, cmd, seq);
    const event = cmd as ClientEvent;
    if (this.#opts.onEvent) guard(this.#opts.onEvent, event);
    this.events.push(event);
  }

  #settle(entry: PendingRequest, cmd: ServerCommand, seq: number): void {
    const rtt = this.clock.monotonic() - entry.sentAt;
    if (cmd.type === "Pong") {
      this.#rtt = rtt;
      if (this.#opts.onRtt) guard(this.#opts.onRtt, rtt);
    } else if ("result" in cmd && cmd.result.ok) {
      const problem = this.model.applyOkReply(entry.request, cmd);
      if (problem) this.#violate(problem, cmd, seq);
    }
    entry.resolve(cmd, rtt);
  }

  #violate(problem: ModelProblem, command: ServerCommand, seq: number): void {
    const violation: Violation = { kind: problem.kind, seq, command, detail: problem.detail };
    this.#count.violations++;
    if (this.#violations.length < MAX_VIOLATIONS_KEPT) this.#violations.push(violation);
    this.#opts.logger?.warn(`protocol violation: ${problem.detail}`, { kind: problem.kind, seq });
    if (this.#opts.onViolation) guard(this.#opts.onViolation, violation);
  }

  #schedulePing(): void {
    if (this.#pingIntervalMs <= 0 || this.#closing) return;
    this.#pingTimer = this.clock.setTimeout(() => {
      this.#pingTimer = undefined;
      // The next heartbeat is due one interval after this one settles, as in the official ping loop.
      const again = () => this.#schedulePing();
      this.#enqueue({ type: "Ping" }, this.#pingTimeoutMs, true, again, again);
    }, this.#pingIntervalMs);
  }

  #endError(): ClientError {
    return this.#closeReason ?? new ClientError("closed", "use client", "the client was closed");
  }

  #release(flush: boolean): void {
    this.#conn.close(flush).then(this.#resolveClosed, (e) => {
      reportError(e);
      this.#resolveClosed();
    });
  }

  #shutdown(reason: ClientError | null): void {
    if (this.#closing) return;
    this.#closing = true;
    this.#closeReason = reason;
    this.clock.clearTimeout(this.#pingTimer);
    this.#pingTimer = undefined;
    const error = this.#endError();
    if (reason && reason.code !== "eof") this.#opts.logger?.warn(`client closed: ${reason.message}`, {});
    this.#pending.rejectAll((entry) => error.retarget(actionOf(entry.request.type), entry.request.type));
    // The stream ends quietly on close() and EOF; malformed frames and I/O errors are thrown to iterators.
    this.events.end(error, reason !== null && reason.code !== "eof");
  }
}

function guard<T>(fn: (value: T) => void, value: T): void {
  try {
    fn(value);
  } catch (e) {
    // A throwing user callback must not kill the read loop, nor be swallowed.
    reportError(e);
  }
}
