/**
 * Push-side frame splitting (protocol.md §1: `ULEB128(length)` then the
 * payload) that holds memory only while a frame is in flight (issue 15: per
 * idle session no read buffer at all; issue 14: large frames must not pin
 * memory).
 *
 * A frame that lies whole inside a received chunk is returned as a view of
 * that chunk, without a copy. Only a frame cut by a chunk boundary gets a
 * buffer, sized exactly to its payload once the length prefix is known,
 * reserved from the process-wide {@link ByteBudget} first and freed as soon
 * as the frame is handed out -- so the "decoder buffer shrinks back" by
 * construction: an idle session holds nothing. The length is checked
 * against the caller's limit (an `Authenticate`-sized bound before login)
 * before a single payload byte is kept.
 *
 * @module
 */

import { MAX_FRAME_PAYLOAD, MAX_PREFIX_BYTES, ProtocolError } from "../protocol/mod.ts";
import type { ByteBudget } from "./byte_budget.ts";

/** A frame announced longer than the caller accepts (before login: larger than any login command). */
export class FrameTooLarge extends Error {
  /** The announced payload length. */
  readonly length: number;
  /** The limit it exceeded. */
  readonly limit: number;
  constructor(length: number, limit: number) {
    super(`frame of ${length} bytes exceeds the limit of ${limit}`);
    this.name = "FrameTooLarge";
    this.length = length;
    this.limit = limit;
  }
}

/** The process-wide frame buffer budget is spent: this connection may not buffer more. */
export class FrameBudgetExceeded extends Error {
  /** Bytes the frame needed. */
  readonly length: number;
  constructor(length: number) {
    super(`no frame buffer budget left for ${length} bytes`);
    this.name = "FrameBudgetExceeded";
    this.length = length;
  }
}

/** Incremental frame splitter of one connection. */
export class FrameAssembler {
  readonly #budget: ByteBudget;
  /** Payload of the frame in flight (reserved from the budget), or null. */
  #buf: Uint8Array | null = null;
  #filled = 0;
  /** Length prefix read so far (`#prefixBytes` > 0 while it is cut by a chunk boundary). */
  #length = 0;
  #prefixBytes = 0;
  /** The last complete payload (see {@link take}). */
  payload: Uint8Array | null = null;
  /** True when {@link payload} is a buffer of its own (it was assembled), not a view of the caller's chunk. */
  payloadOwned = false;

  constructor(budget: ByteBudget) {
    this.#budget = budget;
  }

  /** Bytes held for a frame in flight (0 between frames). */
  get buffered(): number {
    return this.#buf ? this.#buf.length : 0;
  }

  /**
   * Consumes `chunk` from `from` until one frame is complete: returns the
   * offset just after it, with its payload in {@link payload} (a view valid
   * until the next call), or -1 when the chunk was used up without
   * completing a frame. Throws {@link ProtocolError} (bad prefix, over 2 MiB),
   * {@link FrameTooLarge} (over `maxPayload`) or {@link FrameBudgetExceeded}.
   */
  take(chunk: Uint8Array, from: number, maxPayload: number): number {
    this.payload = null;
    let at = from;
    if (this.#buf === null) {
      // Between frames, or inside a length prefix.
      for (;;) {
        if (at >= chunk.length) return -1;
        const byte = chunk[at++]!;
        this.#length += (byte & 0x7f) * 2 ** (7 * this.#prefixBytes);
        this.#prefixBytes++;
        if ((byte & 0x80) === 0) break;
        // Official rules (protocol.md §1): at most 5 prefix bytes, the 5th without continuation.
        if (this.#prefixBytes >= MAX_PREFIX_BYTES) throw new ProtocolError("invalid length");
      }
      const length = this.#length % 2 ** 32;
      this.#length = 0;
      this.#prefixBytes = 0;
      if (length > MAX_FRAME_PAYLOAD) throw new ProtocolError("data packet too large");
      if (length > maxPayload) throw new FrameTooLarge(length, maxPayload);
      if (chunk.length - at >= length) {
        // The whole frame is in this chunk: no copy.
        this.payload = chunk.subarray(at, at + length);
        this.payloadOwned = false;
        return at + length;
      }
      if (!this.#budget.reserve(length)) throw new FrameBudgetExceeded(length);
      this.#buf = new Uint8Array(length);
      this.#filled = 0;
    }
    const buf = this.#buf;
    const n = Math.min(buf.length - this.#filled, chunk.length - at);
    buf.set(chunk.subarray(at, at + n), this.#filled);
    this.#filled += n;
    at += n;
    if (this.#filled < buf.length) return -1;
    this.#release();
    this.payload = buf;
    this.payloadOwned = true;
    return at;
  }

  /** Frees the frame in flight (the connection closed). */
  clear(): void {
    this.#release();
    this.payload = null;
    this.#length = 0;
    this.#prefixBytes = 0;
  }

  #release(): void {
    if (this.#buf === null) return;
    this.#budget.release(this.#buf.length);
    this.#buf = null;
    this.#filled = 0;
  }
}
