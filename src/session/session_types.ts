/**
 * The contract of a session (spec 3 §3.2, §4.1): the transport it reads and
 * writes, its lifecycle states and close reasons, what it hands to the
 * server, the hooks it calls, and its settings. `session.ts` implements it.
 *
 * @module
 */

import type { ClientCommand } from "../protocol/mod.ts";
import type { Clock } from "../util/clock.ts";
import type { Logger } from "../util/log.ts";
import type { GateLimits, LoginFailure, LoginLimits } from "./login_machine.ts";
import type { ByteBudget } from "./byte_budget.ts";
import type { OutboundLimits, StreamSink } from "./outbound.ts";
import type { Session } from "./session.ts";

/**
 * A byte-stream connection read by pulling (a `Deno.Conn` fits): test
 * doubles and in-process pipes; `Session.run` pumps it.
 */
export interface Transport {
  read(p: Uint8Array): Promise<number | null>;
  write(p: Uint8Array): Promise<number>;
  close(): void;
}

/**
 * A connection that pushes what it receives into `Session.data`/`end` (a
 * `node:net` socket, `src/server/socket_link.ts`) and keeps its own write
 * buffer (`StreamSink`).
 */
export interface PushLink extends StreamSink {
  /** Stops delivering data until {@link resume} (the mailbox is full). */
  pause(): void;
  resume(): void;
  close(): void;
}

/** What kind of client authenticated on a session (spec 3 §3.1 rule 6). */
export type SessionCategory = "normal" | "console" | "room-monitor" | "game-monitor";

/**
 * Connection lifecycle (spec 3 §3.2): connected -> authenticating ->
 * durable-accepted (login journaled, `Authenticate(Ok)` queued, later frames
 * held in the gate) -> response-flushed (the reply is on the wire) -> active
 * (the gate is released); any pre-active failure -> failed -> closed.
 */
export type SessionState =
  | "connected"
  | "authenticating"
  | "durable-accepted"
  | "response-flushed"
  | "active"
  | "failed"
  | "closed";

/** Why a session closed. */
export type CloseReason =
  | "eof"
  | "read-error"
  | "malformed"
  | "bad-version"
  | "heartbeat"
  | "auth-timeout"
  | "auth-failed"
  | "slow-client"
  | "replaced"
  | "kicked"
  | "shutdown"
  | "rejected"
  /** A frame larger than any login command before login (issue 14). */
  | "frame-too-large"
  /** The process-wide frame buffer budget had no room for this connection's frame. */
  | "over-budget";

/** A received command with the raw payload kept for zero-copy relays. */
export interface Inbound {
  readonly cmd: ClientCommand;
  /** Copy of the decoded payload bytes for Touches/Judges; empty otherwise. */
  readonly raw: Uint8Array;
  /** Clock.monotonic() when it was decoded. */
  readonly receivedAt: number;
}

/**
 * Performs a login's effects that reach beyond its connection (spec 3
 * §3.2); given by the server when the login becomes durable.
 */
export interface LoginOwner {
  /**
   * Rollback: clear this login's pending binding. The user's old binding,
   * if any, was never touched and stays; a user without one is removed or
   * dangles again.
   */
  unbind(): void;
  /** Rollback: the journaled login gets its compensating record. */
  compensate(why: LoginFailure): void;
  /** Active: the session becomes the user's binding, then the old connection closes. */
  takeOver(): void;
}

/** Server-side hooks a session calls. */
export interface SessionHooks {
  /** Runs one command; commands of a session never overlap. */
  handle(session: Session, inbound: Inbound): Promise<void> | void;
  /** Called once when the session closes. */
  closed(session: Session, reason: CloseReason): void;
  /** Counts compatibility problems (see `Counters`). */
  count(
    name:
      | "critical_compat_drop"
      | "unsolicited_reply_blocked"
      | "malformed_frames"
      | "frame_budget_exceeded"
      | "slow_client_disconnects"
      | "gate_control_overflow"
      | "compat_queue_drop",
  ): void;
}

/** Settings of a session. */
export interface SessionOptions {
  readonly id: number;
  readonly ip: string;
  readonly clock: Clock;
  readonly log: Logger;
  /** Silence (no decoded command) after which the connection is lost, ms; checked by {@link Session.checkTimeouts}. */
  readonly heartbeatTimeoutMs: number;
  /** Time allowed to authenticate, ms; checked by {@link Session.checkTimeouts}. */
  readonly authTimeoutMs: number;
  /** Commands buffered before reading pauses (default 64). */
  readonly mailboxLimit?: number;
  readonly outbound?: OutboundLimits;
  /** The process-wide budget of bytes buffered for frames in flight (default: unbounded, for tests). */
  readonly frameBudget?: ByteBudget;
  /** Limits of the buffer before the login reply is flushed (default spec 3 §8: 256 events, 1 MiB, 8 s). */
  readonly preAuth?: GateLimits;
  /**
   * The gate's limits with `authTimeoutMs`, shared by every session of a
   * server (one object, not one per session); overrides `preAuth`.
   */
  readonly loginLimits?: LoginLimits;
}
