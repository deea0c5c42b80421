/**
 * The one driver of a session's login machine (`login_machine.ts`, spec 3
 * §3.2): it holds the machine's state, feeds it every event (the server's
 * calls, pushed frames, the timeout sweep, the connection closing), keeps
 * the frames the gate holds and performs the effects -- on the connection
 * itself, or through the login's {@link LoginOwner} for what reaches beyond
 * it (the user's binding, the journal's compensation, the takeover).
 *
 * Nothing else assigns a session's state: the server asks for transitions.
 *
 * @module
 */

import type { Logger } from "../util/log.ts";
import { AuthGate } from "./auth_gate.ts";
import {
  initialLogin,
  type LoginEffect,
  type LoginEvent,
  type LoginFailure,
  type LoginLimits,
  type LoginState,
  loginStep,
} from "./login_machine.ts";
import type { CloseReason, LoginOwner, SessionHooks, SessionState } from "./session_types.ts";

/** What the login driver needs from its connection (a `Session`; no per-session closures). */
export interface LoginConnection {
  readonly log: Logger;
  readonly open: boolean;
  readonly outbound: {
    /** Queues a frame (the gate's frames, after the reply). */
    push(frame: Uint8Array): number;
    /** Resolves true once frame `seq` is on the wire, false if the connection closed first. */
    flushed(seq: number): Promise<boolean>;
  };
  close(reason: CloseReason): void;
  closeAfterFlush(seq: number, reason: CloseReason): Promise<void>;
}

/** A session's login lifecycle. */
export class SessionLogin {
  readonly #conn: LoginConnection;
  readonly #hooks: SessionHooks;
  readonly #limits: LoginLimits;
  #state: LoginState;
  /** The frames held while the gate is open. */
  #gate: AuthGate | null = null;
  /** Who performs the effects beyond the connection (set at DurableAccepted). */
  #owner: LoginOwner | null = null;
  /** Wakes {@link replyFlushed} when the login fails first. */
  #onFailure: (() => void) | null = null;

  constructor(conn: LoginConnection, hooks: SessionHooks, limits: LoginLimits, connectedAt: number) {
    this.#conn = conn;
    this.#hooks = hooks;
    this.#limits = limits;
    this.#state = initialLogin(connectedAt);
  }

  /** The lifecycle phase (the session's `state`). */
  get phase(): SessionState {
    return this.#state.phase;
  }

  /** Why the login failed before Active, or null. */
  get failure(): LoginFailure | null {
    return this.#state.failure;
  }

  /** Frames waiting in the gate (0 when there is none). */
  get heldFrames(): number {
    return this.#gate?.pendingEvents ?? 0;
  }

  /** True while pushed frames go to the gate instead of the wire. */
  get gated(): boolean {
    return this.#gate !== null;
  }

  /** Connected -> Authenticating: an authenticate command arrived. False when past that (refuse the command). */
  begin(): boolean {
    return !this.#step({ kind: "begin" }).some((e) => e.t === "rejected");
  }

  /** The login was refused and answered (reply `seq`): Failed, closed once the reply is on the wire. */
  refuse(seq: number, reason: "rejected" | "auth-failed"): void {
    this.#step({ kind: "refuse", reason }, seq);
  }

  /**
   * spec 3 §3.2 Authenticating -> DurableAccepted: the login is journaled
   * (`journaled`) and about to be answered. From now until Active, pushed
   * frames wait in the gate behind the reply (spec 3 §8 limits); `owner`
   * performs the effects beyond the connection. False when the session
   * failed or closed meanwhile (a journaled record is then compensated).
   */
  durable(owner: LoginOwner, journaled: boolean, now: number): boolean {
    this.#owner = owner;
    this.#step({ kind: "durable", journaled, now });
    if (this.#state.phase !== "durable-accepted") return false;
    this.#gate = new AuthGate();
    return true;
  }

  /** The user's pending binding is now this session: a rollback clears it. */
  bound(): void {
    this.#step({ kind: "bind" });
  }

  /**
   * DurableAccepted -> ResponseFlushed once the reply `seq` is on the wire;
   * false when the login failed first (gate overflow or expiry, connection
   * closed) and was rolled back.
   */
  async replyFlushed(seq: number): Promise<boolean> {
    if (this.#state.phase !== "durable-accepted") return false;
    const failed = new Promise<false>((resolve) => (this.#onFailure = () => resolve(false)));
    const flushed = await Promise.race([this.#conn.outbound.flushed(seq), failed]);
    this.#onFailure = null;
    // The gate may have failed in the microtasks after the flush settled: the phase says.
    if (!flushed || this.#state.phase !== "durable-accepted") return false;
    this.#step({ kind: "flushed" });
    return true;
  }

  /** Fails a login before Active (rollback: binding cleared, compensation, transport closed). */
  fail(reason: LoginFailure): void {
    this.#step({ kind: "fail", reason });
  }

  /** -> Active: held frames follow the reply in order; the owner takes over the user's binding. */
  activate(): void {
    this.#step({ kind: "activate" });
    // Once Active nothing is rolled back: the owner (and the journal record it holds) is not needed any more.
    if (this.#state.phase === "active") this.#owner = null;
  }

  /** A pushed frame while the gate is open: held, or the login fails (the frame is never sent). */
  hold(frame: Uint8Array, control: boolean, now: number): void {
    this.#step({ kind: "hold", bytes: frame.length, control, now }, frame);
  }

  /** The timeout sweep; true when the login failed on it (gate expired, authentication timed out). */
  tick(now: number): boolean {
    const before = this.#state.failure;
    this.#step({ kind: "tick", now });
    return before === null && this.#state.failure !== null;
  }

  /** The connection is closing: a login not yet Active is rolled back. */
  closed(): void {
    this.#step({ kind: "closed" });
    this.#gate = null;
  }

  #step(event: LoginEvent, arg?: Uint8Array | number): readonly LoginEffect[] {
    const before = this.#state;
    const { state, effects } = loginStep(before, event, this.#limits);
    this.#state = state;
    const failed = state.failure !== null && before.failure === null;
    if (failed && before.phase !== "connected") this.#conn.log.info("login rolled back", { reason: state.failure });
    for (const effect of effects) this.#perform(effect, arg);
    if (failed) this.#onFailure?.();
    return effects;
  }

  #perform(effect: LoginEffect, arg: Uint8Array | number | undefined): void {
    switch (effect.t) {
      case "rejected":
        return;
      case "hold":
        return this.#gate?.hold(arg as Uint8Array);
      case "discard":
        this.#gate = null;
        return;
      case "release": {
        const frames = this.#gate?.release() ?? [];
        this.#gate = null;
        if (this.#conn.open) { for (const frame of frames) this.#conn.outbound.push(frame); }
        return;
      }
      case "count":
        this.#conn.log.warn("login failed before activation: pre-activation buffer", { counter: effect.counter });
        return this.#hooks.count(effect.counter);
      case "unbind":
        return this.#owner?.unbind();
      case "compensate":
        return this.#owner?.compensate(effect.why);
      case "take-over":
        return this.#owner?.takeOver();
      case "close":
        return this.#conn.close(effect.reason);
      case "close-after-reply":
        return void this.#conn.closeAfterFlush(arg as number, effect.reason);
    }
  }
}
