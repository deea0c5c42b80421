/**
 * A session's business-command mailbox (spec 3 §4.1 rule 3): commands run
 * strictly one at a time, in arrival order; when `limit` are waiting the
 * session stops reading until one was taken (backpressure), so a client that
 * floods commands holds a bounded amount of memory. Its queue exists only
 * while commands wait (issue 15: nothing kept per idle session).
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
  /** Waiting commands; null while none wait. */
  #items: Inbound[] | null = null;
  #processing = false;

  constructor(owner: Session, hooks: SessionHooks, limit: number) {
    this.#owner = owner;
    this.#hooks = hooks;
    this.#limit = limit;
  }

  /** True when `limit` commands wait: the session reads on once one was taken ({@link Session.resumeReading}). */
  get full(): boolean {
    return (this.#items?.length ?? 0) >= this.#limit;
  }

  /** Queues a command and starts the runner if it is idle. */
  push(inbound: Inbound): void {
    (this.#items ??= []).push(inbound);
    if (!this.#processing) this.#drain();
  }

  /** Drops what is waiting (the session closed). */
  clear(): void {
    this.#items = null;
  }

  /**
   * Runs waiting commands in order. A handler that finished synchronously
   * (telemetry, most room commands) is followed by the next at once, without
   * a promise per command (issue 15); one that returns a promise holds the
   * runner until it settles, and the runner goes on from there.
   */
  #drain(): void {
    this.#processing = true;
    for (let items = this.#items; this.#owner.open && items?.length; items = this.#items) {
      const inbound = items.shift()!;
      if (items.length === 0) this.#items = null;
      // Room again: the session splits what it kept and reads on (it may queue more meanwhile).
      if (items.length < this.#limit) this.#owner.resumeReading();
      let running: Promise<void> | void;
      try {
        running = this.#hooks.handle(this.#owner, inbound);
      } catch (error) {
        this.#failed(inbound, error);
        continue;
      }
      if (running) {
        running.then(() => this.#drain(), (error) => {
          this.#failed(inbound, error);
          this.#drain();
        });
        return;
      }
    }
    this.#processing = false;
  }

  #failed(inbound: Inbound, error: unknown): void {
    this.#owner.log.error("command handler failed", {
      command: inbound.cmd.type,
      error: error instanceof Error ? error.stack ?? error.message : String(error),
    });
  }
}
