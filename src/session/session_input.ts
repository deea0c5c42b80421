/**
 * The connection side of a session (protocol.md §1: the version byte, then
 * length-prefixed frames), push-driven: the connection hands over bytes as
 * they arrive ({@link SessionInput.data}); a pull-style transport (test
 * doubles, in-process pipes) is pumped into the same entry point by
 * {@link SessionInput.run}. `Session` extends it, so it costs no object of its
 * own per connection.
 *
 * Backpressure (spec 3 §4.1 rule 3): when the session's mailbox is full,
 * what is left of the chunk is kept (counted against the frame budget) and
 * the connection is paused until the mailbox has room.
 *
 * @module
 */

import { PROTOCOL_VERSION } from "../protocol/mod.ts";
import type { Logger } from "../util/log.ts";
import type { ByteBudget } from "./byte_budget.ts";
import { FrameAssembler, FrameBudgetExceeded } from "./frame_assembler.ts";
import { readFailure } from "./frame_limits.ts";
import { pumpTransport } from "./transport_pump.ts";
import type { CloseReason, PushLink, SessionHooks, Transport } from "./session_types.ts";

/** Input handling shared by every session. */
export abstract class SessionInput {
  /** The connection (its write side is the outbound queue's sink). */
  protected readonly link: Transport | PushLink;
  /** The server's hooks (shared by every session). */
  protected readonly hooks: SessionHooks;
  /** The server's logger: records carry a `session` field (no logger object per session). */
  protected readonly baseLog: Logger;
  readonly #budget: ByteBudget;
  readonly #frames: FrameAssembler;
  #versionSeen = false;
  /** Received bytes not yet split while the mailbox is full (reading is paused meanwhile). */
  #rest: Uint8Array | null = null;
  #paused = false;
  /** Wakes a pull-style reader ({@link run}) once reading resumes. */
  #wakeReader: (() => void) | null = null;

  protected constructor(link: Transport | PushLink, hooks: SessionHooks, budget: ByteBudget, log: Logger) {
    this.link = link;
    this.hooks = hooks;
    this.baseLog = log;
    this.#budget = budget;
    this.#frames = new FrameAssembler(budget);
  }

  /** The session's id (log records). */
  abstract readonly id: number;
  /** True until the session is closed. */
  abstract get open(): boolean;
  /** Closes the session. */
  abstract close(reason: CloseReason): void;
  /** Largest payload acceptable now. */
  protected abstract frameLimit(): number;
  /** True while the mailbox cannot take another command. */
  protected abstract mailboxFull(): boolean;
  /** One frame's payload, in order (`owned`: not a view of a received chunk). May throw `ProtocolError`. */
  protected abstract receive(payload: Uint8Array, owned: boolean): void;

  /** Bytes held for a frame in flight or unsplit input (0 for an idle session). */
  get bufferedInput(): number {
    return this.#frames.buffered + (this.#rest?.length ?? 0);
  }

  /**
   * Reads a pull-style transport until EOF or error, feeding {@link data}.
   * A push link (a socket) delivers by itself: nothing to run.
   */
  async run(): Promise<void> {
    const link = this.link;
    if ("read" in link) await pumpTransport(link, this);
  }

  /** Bytes received from the connection, in order. */
  data(chunk: Uint8Array): void {
    if (!this.open || chunk.length === 0) return;
    let at = 0;
    if (!this.#versionSeen) {
      this.#versionSeen = true;
      // Every official client sends 1 (protocol.md §1); anything else is not a Phira client we can talk to.
      if (chunk[0] !== PROTOCOL_VERSION) {
        this.baseLog.info("unsupported protocol version, closing", { session: this.id, version: chunk[0] });
        return this.close("bad-version");
      }
      at = 1;
    }
    this.#split(chunk, at);
  }

  /** The connection ended: EOF from the peer (no error), or a read error. */
  end(error?: unknown): void {
    if (!this.open) return;
    if (error === undefined) return this.close("eof");
    this.baseLog.debug("read failed", { session: this.id, error: String(error) });
    this.close("read-error");
  }

  /** A pull reader waits on this while reading is paused (null: read on). */
  readable(): Promise<void> | null {
    if (!this.#paused || !this.open) return null;
    return new Promise((resolve) => (this.#wakeReader = resolve));
  }

  /** The mailbox has room again (called by it): split what was kept, then read on. */
  resumeReading(): void {
    if (!this.#paused) return;
    this.#paused = false;
    const rest = this.#rest;
    if (rest) {
      this.#rest = null;
      this.#budget.release(rest.length);
      this.#split(rest, 0);
    }
    if (this.#paused || !this.open) return;
    const link = this.link;
    if ("read" in link) this.#wake();
    else link.resume();
  }

  /** The outbound queue stopped by itself (called by it): a slow reader, or a failed write. */
  outboundStopped(reason: "overflow" | "write-error", error?: unknown): void {
    if (reason === "overflow") {
      this.hooks.count("slow_client_disconnects");
      this.baseLog.warn("client too slow: outbound queue full, disconnecting", { session: this.id });
      this.close("slow-client");
    } else {
      this.close("read-error");
      const text = error instanceof Error ? error.message : String(error);
      this.baseLog.debug("write failed", { session: this.id, error: text });
    }
  }

  /** Frees what input holds (the session is closing). */
  protected clearInput(): void {
    this.#frames.clear();
    if (this.#rest) this.#budget.release(this.#rest.length);
    this.#rest = null;
    this.#wake();
  }

  #wake(): void {
    const wake = this.#wakeReader;
    this.#wakeReader = null;
    wake?.();
  }

  /** Splits frames off `chunk` from `at` and hands them on, pausing when the mailbox is full. */
  #split(chunk: Uint8Array, at: number): void {
    const frames = this.#frames;
    try {
      while (this.open) {
        if (this.mailboxFull()) return this.#pause(chunk, at);
        at = frames.take(chunk, at, this.frameLimit());
        if (at < 0) return;
        this.receive(frames.payload!, frames.payloadOwned);
      }
    } catch (error) {
      const failure = readFailure(error);
      if (failure.counter) this.hooks.count(failure.counter);
      const level = failure.reason === "over-budget" ? "warn" : "info";
      this.baseLog[level](failure.message, { session: this.id, ...failure.fields });
      this.close(failure.reason);
    }
  }

  /** Backpressure: keep what is left of `chunk` and stop reading until the mailbox has room. */
  #pause(chunk: Uint8Array, at: number): void {
    this.#paused = true;
    if (at < chunk.length) {
      const rest = chunk.subarray(at);
      if (!this.#budget.reserve(rest.length)) throw new FrameBudgetExceeded(rest.length);
      this.#rest = rest;
    }
    const link = this.link;
    if (!("read" in link)) link.pause();
  }
}
