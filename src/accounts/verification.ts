/**
 * The pending proofs of the registration flow (spec 2 §3): each has a random
 * token that is a valid room name, the game account it must come from, and
 * a deadline (5 minutes on the injected clock). A room created with the
 * token as its name ends the proof -- `matched` when the game account named
 * in the request created it, `wrong_account` otherwise (the token is then
 * spent: tokens are single-use). Several registrations may wait for the
 * same game account (so nobody can block another's registration by
 * starting one first); the first to succeed wins and the others end as
 * `superseded`. The number waiting is bounded, overall and per client
 * address.
 *
 * @module
 */

import type { Clock, TimerHandle } from "../util/clock.ts";
import { ApiError } from "./errors.ts";
import { verificationToken } from "./tokens.ts";

/** Spec 2 §8: verification time. */
export const VERIFICATION_TIMEOUT_MS = 5 * 60_000;

/** How a proof ended. */
export type ProofOutcome =
  | { readonly type: "matched" }
  | { readonly type: "wrong_account"; readonly creator: number }
  | { readonly type: "timeout" }
  | { readonly type: "superseded" }
  | { readonly type: "cancelled" };

/** What a created room means for a pending proof (pure). */
export function judgeRoom(
  proof: { readonly token: string; readonly gameId: number },
  room: string,
  creator: number,
): "ignore" | "matched" | "wrong_account" {
  if (room !== proof.token) return "ignore";
  return creator === proof.gameId ? "matched" : "wrong_account";
}

interface Proof {
  readonly token: string;
  readonly gameId: number;
  readonly ip: string;
  readonly timer: TimerHandle;
  readonly done: (outcome: ProofOutcome) => void;
}

/** Options of {@link Verifications}. */
export interface VerificationsOptions {
  readonly clock: Clock;
  readonly timeoutMs?: number;
  /** Proofs waiting at most (default 256). */
  readonly maxPending?: number;
  /** Proofs waiting per client address at most (default 3). */
  readonly maxPerIp?: number;
}

/** A started proof. */
export interface StartedProof {
  readonly token: string;
  /** Ends it early (the client went away); no outcome callback after this. */
  cancel(): void;
}

/** The registry of pending proofs. */
export class Verifications {
  readonly #clock: Clock;
  readonly timeoutMs: number;
  readonly #max: number;
  readonly #maxPerIp: number;
  readonly #byToken = new Map<string, Proof>();

  constructor(o: VerificationsOptions) {
    this.#clock = o.clock;
    this.timeoutMs = o.timeoutMs ?? VERIFICATION_TIMEOUT_MS;
    this.#max = o.maxPending ?? 256;
    this.#maxPerIp = o.maxPerIp ?? 3;
  }

  /** Proofs waiting now. */
  get pending(): number {
    return this.#byToken.size;
  }

  /**
   * Starts a proof for `gameId`; `done` is called once with the outcome.
   * `taken(token)` tells whether a room of that name exists already (a new
   * token is drawn then). Throws `rate_limited` when too many are waiting.
   */
  start(gameId: number, ip: string, taken: (token: string) => boolean, done: (o: ProofOutcome) => void): StartedProof {
    this.checkRoom(ip);
    let token = verificationToken();
    while (this.#byToken.has(token) || taken(token)) token = verificationToken();
    const timer = this.#clock.setTimeout(() => this.#end(token, { type: "timeout" }), this.timeoutMs);
    this.#byToken.set(token, { token, gameId, ip, timer, done });
    return { token, cancel: () => this.#end(token, null) };
  }

  /** Throws `rate_limited` when no proof may start now for `ip` (checked before any costly work too). */
  checkRoom(ip: string): void {
    if (this.#byToken.size >= this.#max) {
      throw new ApiError("rate_limited", "too many registrations are waiting; try again in a few minutes");
    }
    let fromIp = 0;
    for (const p of this.#byToken.values()) if (p.ip === ip) fromIp++;
    if (fromIp >= this.#maxPerIp) {
      throw new ApiError("rate_limited", `at most ${this.#maxPerIp} registrations may wait per address`);
    }
  }

  /** A room was created: ends the proof whose token it is named with. */
  roomCreated(room: string, creator: number): void {
    const proof = this.#byToken.get(room);
    if (!proof) return;
    const verdict = judgeRoom(proof, room, creator);
    if (verdict === "matched") this.#end(room, { type: "matched" });
    else if (verdict === "wrong_account") this.#end(room, { type: "wrong_account", creator });
  }

  /** Ends the other proofs for `gameId` after one succeeded. */
  supersede(gameId: number): void {
    for (const p of [...this.#byToken.values()]) if (p.gameId === gameId) this.#end(p.token, { type: "superseded" });
  }

  /** Ends every proof with `cancelled` (shutdown). */
  cancelAll(): void {
    for (const token of [...this.#byToken.keys()]) this.#end(token, { type: "cancelled" });
  }

  #end(token: string, outcome: ProofOutcome | null): void {
    const proof = this.#byToken.get(token);
    if (!proof) return;
    this.#byToken.delete(token);
    this.#clock.clearTimeout(proof.timer);
    if (outcome) proof.done(outcome);
  }
}
