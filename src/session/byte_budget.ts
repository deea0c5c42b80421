/**
 * One budget for the bytes that all sessions buffer for frames in flight
 * (issue 14: 300 connections each sending a 2 MiB frame must not take the
 * process's memory). The server owns one (`frame_buffer_budget`); a
 * connection that needs more than is left is closed, nobody else is.
 *
 * @module
 */

/** A process-wide byte budget. */
export class ByteBudget {
  /** Bytes that may be reserved at once. */
  readonly limit: number;
  #used = 0;

  constructor(limit: number) {
    this.limit = limit;
  }

  /** Bytes reserved now. */
  get used(): number {
    return this.#used;
  }

  /** Reserves `bytes`; false (and nothing reserved) when that would exceed the limit. */
  reserve(bytes: number): boolean {
    if (this.#used + bytes > this.limit) return false;
    this.#used += bytes;
    return true;
  }

  /** Gives back bytes reserved earlier. */
  release(bytes: number): void {
    this.#used = Math.max(0, this.#used - bytes);
  }
}
