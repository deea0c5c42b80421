/**
 * A session's business-command mailbox (spec 3 §4.1 rule 3): commands run
 * strictly one at a time, in arrival order; when `limit` are waiting the
 * reader pauses until one was taken (backpressure), so a client that floods
 * commands holds a bounded amount of memory.
 *
 * @module
 */

import type { Session } from "./session.ts";
import type { Inbound, SessionHooks } from "./session_types.ts";

/** A bounded command queue drained by one runner (it holds its session, not closures: sessions are many). */
export class Mailbox {
  readonly #owner: Session;
  readonly #hooks: SessionHooks;
  readonly #limit: number;
  #items: Inbound[] = [];
  #processing = false;
  #spaceWaiter: (() => void) | null = null;

  constructor(owner: Session, hooks: SessionHooks, limit: number) {
    this.#owner = owner;
    this.#hooks = hooks;
    this.#limit = limit;
  }

  /** Null when there is room for another command, else a promise resolved once there is (or the session closed). */
  room(): Promise<void> | null {
    if (this.#items.length < this.#limit) return null;
    return new Promise<void>((resolve) => (this.#spaceWaiter = resolve));
  }

  /** Queues a command and starts the runner if it is idle. */
  push(inbound: Inbound): void {
    this.#items.push(inbound);
    if (!this.#processing) void this.#process();
  }

  /** Drops what is waiting and wakes a paused reader (the session closed). */
  clear(): void {
    this.#items = [];
    this.#wake();
  }

  #wake(): void {
    const wake = this.#spaceWaiter;
    this.#spaceWaiter = null;
    wake?.();
  }

  async #process(): Promise<void> {
    this.#processing = true;
    try {
      while (this.#owner.open && this.#items.length) {
        const inbound = this.#items.shift()!;
        if (this.#items.length < this.#limit) this.#wake();
        try {
          await this.#hooks.handle(this.#owner, inbound);
        } catch (error) {
          this.#owner.log.error("command handler failed", {
            command: inbound.cmd.type,
            error: error instanceof Error ? error.stack ?? error.message : String(error),
          });
        }
      }
    } finally {
      this.#processing = false;
    }
  }
}
