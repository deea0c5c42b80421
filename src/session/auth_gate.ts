/**
 * The pre-activation buffer of a session (spec 3 §3.2, §8 "Outbound queue
 * before authentication flush: 256 events, 1 MiB, 8 s"). Between queueing
 * `Authenticate(Ok)` and seeing it flushed, a logging-in session is not yet
 * its user's connection, but it must not miss what the user's room does
 * after the room state in its reply was taken: those frames wait here and
 * follow the reply once the session becomes Active. Whether a frame fits is
 * the login machine's decision (`login_machine.ts`); this only keeps the
 * frames, in order.
 *
 * @module
 */

export { type GateFailure, type GateLimits, PRE_AUTH_LIMITS } from "./login_machine.ts";

/** Frames held for a session until its login is flushed. */
export class AuthGate {
  #frames: Uint8Array[] = [];

  /** Frames held. */
  get pendingEvents(): number {
    return this.#frames.length;
  }

  /** Keeps a frame (the login machine already counted it against the limits). */
  hold(frame: Uint8Array): void {
    this.#frames.push(frame);
  }

  /** Hands over every held frame in order and empties the gate. */
  release(): Uint8Array[] {
    const frames = this.#frames;
    this.#frames = [];
    return frames;
  }
}
