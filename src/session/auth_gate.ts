/**
 * The pre-activation buffer of a session (spec 3 §3.2, §8 "Outbound queue
 * before authentication flush: 256 events, 1 MiB, 8 s"). Between queueing
 * `Authenticate(Ok)` and seeing it flushed, a logging-in session is not yet
 * its user's connection, but it must not miss what the user's room does
 * after the room state in its reply was taken: those frames wait here and
 * follow the reply once the session becomes Active. Overflowing any limit
 * fails the login closed; nothing is dropped while the login goes on.
 *
 * @module
 */

/** Limits of an {@link AuthGate}. */
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

/**
 * Why a gate failed: a room-scoped control frame did not fit (the client
 * would be left with wrong room state), another frame did not fit, or the
 * reply was not flushed in time.
 */
export type GateFailure = "control-overflow" | "overflow" | "expired";

/** Frames held for a session until its login is flushed. */
export class AuthGate {
  readonly #limits: GateLimits;
  readonly #openedAt: number;
  #frames: Uint8Array[] = [];
  #bytes = 0;

  constructor(openedAt: number, limits: GateLimits = PRE_AUTH_LIMITS) {
    this.#openedAt = openedAt;
    this.#limits = limits;
  }

  /** Frames held. */
  get pendingEvents(): number {
    return this.#frames.length;
  }

  /** True once `now` is past the gate's age limit. */
  expired(now: number): boolean {
    return now - this.#openedAt >= this.#limits.maxAgeMs;
  }

  /** Holds a frame; returns null, or why it could not be held (the gate is then unusable). */
  hold(frame: Uint8Array, control: boolean, now: number): GateFailure | null {
    if (this.expired(now)) return "expired";
    if (this.#frames.length + 1 > this.#limits.maxEvents || this.#bytes + frame.length > this.#limits.maxBytes) {
      return control ? "control-overflow" : "overflow";
    }
    this.#frames.push(frame);
    this.#bytes += frame.length;
    return null;
  }

  /** Hands over every held frame in order and empties the gate. */
  release(): Uint8Array[] {
    const frames = this.#frames;
    this.#frames = [];
    this.#bytes = 0;
    return frames;
  }
}
