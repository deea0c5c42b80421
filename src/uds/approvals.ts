/**
 * Console approval of OpenUDS clients (spec 3 §4.5, §5 rule 3): a client
 * that authenticates without a token waits under a random pending id until
 * an operator runs `approve openuds <pending_id>`, or until the request
 * expires (`openuds.approval_ttl_secs`).
 *
 * @module
 */

import type { ApprovalQueue } from "../ops/mod.ts";
import type { Clock, TimerHandle } from "../util/clock.ts";

/** One waiting client. */
interface Pending {
  readonly pending_id: string;
  readonly client_name: string;
  readonly expires_at: number;
  readonly timer: TimerHandle;
  readonly approved: () => void;
}

/** Recently expired ids remembered so `approve` can say "expired" rather than "unknown". */
const EXPIRED_MEMORY = 64;

/** A random id an operator can type: 8 lower-case hex digits. */
export function newPendingId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(4));
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Pending approvals, shared by the local socket and the console. */
export class PendingApprovals implements ApprovalQueue {
  readonly #clock: Clock;
  readonly #ttlMs: number;
  readonly #pending = new Map<string, Pending>();
  readonly #expired: string[] = [];

  constructor(clock: Clock, ttlSecs: number) {
    this.#clock = clock;
    this.#ttlMs = ttlSecs * 1000;
  }

  /** Seconds a request stays valid. */
  get ttlSecs(): number {
    return this.#ttlMs / 1000;
  }

  /**
   * Registers a waiting client. `approved` or `expired` is called once,
   * unless the returned `cancel` is called first.
   */
  request(
    clientName: string,
    approved: () => void,
    expired: () => void,
  ): { readonly pending_id: string; readonly expires_at: number; cancel(): void } {
    let id = newPendingId();
    while (this.#pending.has(id)) id = newPendingId();
    const expires_at = this.#clock.now() + this.#ttlMs;
    const timer = this.#clock.setTimeout(() => {
      if (!this.#pending.delete(id)) return;
      this.#remember(id);
      expired();
    }, this.#ttlMs);
    this.#pending.set(id, { pending_id: id, client_name: clientName, expires_at, timer, approved });
    return {
      pending_id: id,
      expires_at,
      cancel: () => {
        const p = this.#pending.get(id);
        if (!p) return;
        this.#pending.delete(id);
        this.#clock.clearTimeout(p.timer);
      },
    };
  }

  approve(pendingId: string): "approved" | "unknown" | "expired" {
    const p = this.#pending.get(pendingId);
    if (!p) return this.#expired.includes(pendingId) ? "expired" : "unknown";
    this.#pending.delete(pendingId);
    this.#clock.clearTimeout(p.timer);
    p.approved();
    return "approved";
  }

  pending(): { pending_id: string; client_name: string; expires_at: number }[] {
    return [...this.#pending.values()].map(({ pending_id, client_name, expires_at }) => ({
      pending_id,
      client_name,
      expires_at,
    }));
  }

  /** Drops every request without calling back (shutdown). */
  clear(): void {
    for (const p of this.#pending.values()) this.#clock.clearTimeout(p.timer);
    this.#pending.clear();
  }

  #remember(id: string): void {
    this.#expired.push(id);
    if (this.#expired.length > EXPIRED_MEMORY) this.#expired.shift();
  }
}
