/**
 * The login lifecycle of a session as a pure state machine (spec 3 §3.2),
 * beside the room's (`src/room/machine.ts`): state + event -> new state +
 * effects, time passed in with the event. The session is its one driver; it
 * performs the effects on itself (gate, close) and hands those that reach
 * beyond it (binding, compensation, takeover) to the login's owner.
 *
 *   connected -begin-> authenticating -durable-> durable-accepted -flushed-> response-flushed -activate-> active
 *   authenticating -activate-> active            (the room monitor: no journal, no gate)
 *   connected|authenticating -refuse-> failed     (answered with an error, closed once it is flushed)
 *   any pre-Active -fail|closed-> failed         (rollback: held frames dropped, binding cleared (the user's
 *                                                old binding is restored; a user without one is removed or
 *                                                dangles), journaled login compensated, transport closed)
 *   any -closed-> closed
 *
 * Between `durable` and `activate` the session's pushed frames wait in the
 * pre-activation gate behind the login reply (spec 3 §8: 256 events, 1 MiB,
 * 8 s); a frame that does not fit fails the login, nothing is dropped while
 * it goes on. A reconnecting user's old connection keeps working until
 * `activate`, when the new session takes over (`take-over`).
 *
 * @module
 */

import type { CloseReason, SessionState } from "./session_types.ts";

/** Limits of the pre-activation gate. */
export interface GateLimits {
  /** Frames held (default 256). */
  readonly maxEvents: number;
  /** Bytes held (default 1 MiB). */
  readonly maxBytes: number;
  /** Time from opening to activation (default 8 s). */
  readonly maxAgeMs: number;
}

/** spec 3 §8: 256 events, 1 MiB, 8 s. */
export const PRE_AUTH_LIMITS: GateLimits = { maxEvents: 256, maxBytes: 1024 * 1024, maxAgeMs: 8000 } as const;

/** Limits of a login: the gate's and the time allowed to authenticate. */
export interface LoginLimits extends GateLimits {
  /** From connecting to Active (spec 3 §8 `auth_timeout`). */
  readonly authTimeoutMs: number;
}

/**
 * Why a gate failed: a room-scoped control frame did not fit (the client
 * would be left with wrong room state), another frame did not fit, or the
 * reply was not flushed in time.
 */
export type GateFailure = "control-overflow" | "overflow" | "expired";

/** Why a login failed before Active. */
export type LoginFailure =
  | GateFailure
  | "closed"
  | "auth-timeout"
  | "shutdown"
  | "banned"
  | "superseded";

/** What the gate holds (the frames themselves are the driver's). */
export interface GateCount {
  readonly openedAt: number;
  readonly events: number;
  readonly bytes: number;
}

/** A session's login state. */
export interface LoginState {
  readonly phase: SessionState;
  /** When the connection was accepted (the authentication timeout counts from here). */
  readonly connectedAt: number;
  /** The pre-activation gate, while open. */
  readonly gate: GateCount | null;
  /** The login's record is in the journal: a rollback owes a compensating record. */
  readonly journaled: boolean;
  /** The user's pending binding is this session: a rollback clears it. */
  readonly bound: boolean;
  /** Why the login failed, once it has. */
  readonly failure: LoginFailure | null;
}

/** Inputs of the machine. */
export type LoginEvent =
  | { readonly kind: "begin" }
  | { readonly kind: "refuse"; readonly reason: CloseReason }
  | { readonly kind: "durable"; readonly journaled: boolean; readonly now: number }
  | { readonly kind: "bind" }
  | { readonly kind: "hold"; readonly bytes: number; readonly control: boolean; readonly now: number }
  | { readonly kind: "flushed" }
  | { readonly kind: "activate" }
  | { readonly kind: "fail"; readonly reason: LoginFailure }
  | { readonly kind: "tick"; readonly now: number }
  | { readonly kind: "closed" };

/** What the driver does, in order. */
export type LoginEffect =
  /** `begin` when not connected: the command is answered `repeated-authenticate`. */
  | { readonly t: "rejected" }
  /** Keep the pushed frame in the gate. */
  | { readonly t: "hold" }
  /** Drop what the gate holds (the login failed). */
  | { readonly t: "discard" }
  /** Send the held frames, in order, after the login reply. */
  | { readonly t: "release" }
  | { readonly t: "count"; readonly counter: "gate_control_overflow" | "compat_queue_drop" }
  /** Clear this login's pending binding: an old binding stays (restored); a user without one is removed or dangles. */
  | { readonly t: "unbind" }
  /** Write the journaled login's compensating record (spec 3 §3.2 "compensation sent"). */
  | { readonly t: "compensate"; readonly why: LoginFailure }
  /** This session becomes the user's binding; the old connection, if any, closes. */
  | { readonly t: "take-over" }
  | { readonly t: "close"; readonly reason: CloseReason }
  /** Close once the error reply already queued is on the wire. */
  | { readonly t: "close-after-reply"; readonly reason: CloseReason };

/** Result of {@link loginStep}. */
export interface LoginTransition {
  readonly state: LoginState;
  readonly effects: readonly LoginEffect[];
}

/** Phases in which the login has not reached Active yet and can still fail (and the auth timeout runs). */
const PRE_ACTIVE: ReadonlySet<SessionState> = new Set([
  "connected",
  "authenticating",
  "durable-accepted",
  "response-flushed",
]);

/** How a failed login's transport closes. */
const CLOSE_REASON: Record<LoginFailure, CloseReason | null> = {
  "closed": null,
  "overflow": "slow-client",
  "control-overflow": "slow-client",
  "expired": "auth-timeout",
  "auth-timeout": "auth-timeout",
  "shutdown": "shutdown",
  "banned": "rejected",
  "superseded": "replaced",
};

/** A fresh connection's state. */
export function initialLogin(connectedAt: number): LoginState {
  return { phase: "connected", connectedAt, gate: null, journaled: false, bound: false, failure: null };
}

/** True while a login can still fail (spec 3 §3.2 "any pre-Active state"). */
export function isPreActive(phase: SessionState): boolean {
  return PRE_ACTIVE.has(phase);
}

const NONE: readonly LoginEffect[] = [];

function same(state: LoginState, effects: readonly LoginEffect[] = NONE): LoginTransition {
  return { state, effects };
}

/** Rollback of a pre-Active login (spec 3 §3.2): drop held frames, clear the binding, compensate, close. */
function rollback(state: LoginState, reason: LoginFailure, closing: boolean): LoginTransition {
  const effects: LoginEffect[] = [];
  if (state.gate) effects.push({ t: "discard" });
  if (state.bound) effects.push({ t: "unbind" });
  if (state.journaled) effects.push({ t: "compensate", why: reason });
  const close = CLOSE_REASON[reason];
  if (!closing && close) effects.push({ t: "close", reason: close });
  const phase = closing ? "closed" : "failed";
  return { state: { ...state, phase, gate: null, bound: false, journaled: false, failure: reason }, effects };
}

/** Holds one pushed frame in the gate, or fails the login when it does not fit. */
function hold(state: LoginState, gate: GateCount, e: Extract<LoginEvent, { kind: "hold" }>, limits: GateLimits) {
  if (e.now - gate.openedAt >= limits.maxAgeMs) return rollback(state, "expired", false);
  if (gate.events + 1 > limits.maxEvents || gate.bytes + e.bytes > limits.maxBytes) {
    const failure = e.control ? "control-overflow" : "overflow";
    const counted = rollback(state, failure, false);
    const counter = e.control ? "gate_control_overflow" : "compat_queue_drop";
    return { state: counted.state, effects: [{ t: "count", counter } as const, ...counted.effects] };
  }
  const next = { openedAt: gate.openedAt, events: gate.events + 1, bytes: gate.bytes + e.bytes };
  return { state: { ...state, gate: next }, effects: [{ t: "hold" } as const] };
}

/** The login machine: pure; `limits` are the session's. */
export function loginStep(state: LoginState, event: LoginEvent, limits: LoginLimits): LoginTransition {
  const phase = state.phase;
  switch (event.kind) {
    case "begin":
      if (phase !== "connected") return same(state, [{ t: "rejected" }]);
      return same({ ...state, phase: "authenticating" });
    case "refuse":
      if (phase !== "connected" && phase !== "authenticating") return same(state);
      return { state: { ...state, phase: "failed" }, effects: [{ t: "close-after-reply", reason: event.reason }] };
    case "durable":
      // A record written for a session that already failed or closed still needs its compensation.
      if (phase !== "authenticating") return same(state, event.journaled ? [{ t: "compensate", why: "closed" }] : NONE);
      return same({
        ...state,
        phase: "durable-accepted",
        journaled: event.journaled,
        gate: { openedAt: event.now, events: 0, bytes: 0 },
      });
    case "bind":
      return phase === "durable-accepted" ? same({ ...state, bound: true }) : same(state);
    case "hold":
      return state.gate && isPreActive(phase) ? hold(state, state.gate, event, limits) : same(state);
    case "flushed":
      return phase === "durable-accepted" ? same({ ...state, phase: "response-flushed" }) : same(state);
    case "activate": {
      if (phase !== "response-flushed" && !(phase === "authenticating" && state.gate === null)) return same(state);
      const effects: LoginEffect[] = [];
      if (state.gate) effects.push({ t: "release" });
      if (state.bound) effects.push({ t: "take-over" });
      return { state: { ...state, phase: "active", gate: null, bound: false, journaled: false }, effects };
    }
    case "fail":
      return isPreActive(phase) ? rollback(state, event.reason, false) : same(state);
    case "tick": {
      if (!isPreActive(phase)) return same(state);
      const gate = state.gate;
      if (gate && event.now - gate.openedAt >= limits.maxAgeMs) return rollback(state, "expired", false);
      if (event.now - state.connectedAt >= limits.authTimeoutMs) return rollback(state, "auth-timeout", false);
      return same(state);
    }
    case "closed":
      if (phase === "closed") return same(state);
      if (isPreActive(phase)) return rollback(state, "closed", true);
      return same({ ...state, phase: "closed", gate: null });
  }
}
