/**
 * Per-connection outbound queue (spec 3 §4.1 rule 3). Enqueueing is
 * synchronous and never waits; one writer loop drains the queue, coalescing
 * queued frames into few large writes. When the queue is over its frame or
 * byte limit the connection is declared too slow and closed: nobody else ever
 * waits for a client that does not read.
 *
 * @module
 */

/** The byte sink behind a queue (a TCP connection, or a test double). */
export interface ByteSink {
  write(bytes: Uint8Array): Promise<number>;
}

/** Limits of an {@link OutboundQueue}. */
export interface OutboundLimits {
  /** Frames waiting before the client counts as too slow (default 4096). */
  maxFrames?: number;
  /** Bytes waiting before the client counts as too slow (default 4 MiB). */
  maxBytes?: number;
  /** Largest single coalesced write (default 256 KiB). */
  maxWriteBytes?: number;
}

/** Why a queue stopped. */
export type OutboundStop = "overflow" | "write-error" | "closed";

/** Bounded FIFO of encoded frames with a coalescing writer. */
export class OutboundQueue {
  #sink: ByteSink;
  #frames: Uint8Array[] = [];
  #head = 0;
  #bytes = 0;
  #maxFrames: number;
  #maxBytes: number;
  #maxWrite: number;
  #writing = false;
  #stopped: OutboundStop | null = null;
  #enqueued = 0;
  #flushed = 0;
  #waiters: { seq: number; resolve: (ok: boolean) => void }[] = [];
  #idle: (() => void)[] = [];
  #onStop: (reason: OutboundStop, error?: unknown) => void;

  /** `onStop` is called once when the queue stops by itself (overflow or write error). */
  constructor(
    sink: ByteSink,
    limits: OutboundLimits = {},
    onStop: (reason: OutboundStop, error?: unknown) => void = () => {},
  ) {
    this.#sink = sink;
    this.#maxFrames = limits.maxFrames ?? 4096;
    this.#maxBytes = limits.maxBytes ?? 4 * 1024 * 1024;
    this.#maxWrite = limits.maxWriteBytes ?? 256 * 1024;
    this.#onStop = onStop;
  }

  /** Frames waiting to be written. */
  get pendingFrames(): number {
    return this.#frames.length - this.#head;
  }

  /** Bytes waiting to be written. */
  get pendingBytes(): number {
    return this.#bytes;
  }

  /** Why the queue stopped, or null while running. */
  get stopped(): OutboundStop | null {
    return this.#stopped;
  }

  /** Sequence number of the last frame queued. */
  get enqueuedSeq(): number {
    return this.#enqueued;
  }

  /** Sequence number of the last frame fully written. */
  get flushedSeq(): number {
    return this.#flushed;
  }

  /**
   * Queues a frame (shared, never modified) and returns its sequence number,
   * or 0 when the queue has stopped or just overflowed.
   */
  push(frame: Uint8Array): number {
    if (this.#stopped) return 0;
    if (this.pendingFrames + 1 > this.#maxFrames || this.#bytes + frame.length > this.#maxBytes) {
      this.#stop("overflow");
      return 0;
    }
    this.#frames.push(frame);
    this.#bytes += frame.length;
    const seq = ++this.#enqueued;
    if (!this.#writing) this.#drain();
    return seq;
  }

  /** Resolves true once frame `seq` is written, false if the queue stops first. */
  flushed(seq: number): Promise<boolean> {
    if (seq > 0 && seq <= this.#flushed) return Promise.resolve(true);
    if (seq <= 0 || this.#stopped) return Promise.resolve(false);
    return new Promise((resolve) => this.#waiters.push({ seq, resolve }));
  }

  /** Resolves once everything queued so far is written (or the queue stopped). */
  drained(): Promise<void> {
    if (this.pendingFrames === 0 || this.#stopped) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  /** Stops the queue; pending frames are discarded and waiters resolve false. */
  close(): void {
    this.#stop("closed");
  }

  #stop(reason: OutboundStop, error?: unknown): void {
    if (this.#stopped) return;
    this.#stopped = reason;
    this.#frames = [];
    this.#head = 0;
    this.#bytes = 0;
    for (const w of this.#waiters.splice(0)) w.resolve(false);
    for (const resolve of this.#idle.splice(0)) resolve();
    if (reason !== "closed") this.#onStop(reason, error);
  }

  #take(): { bytes: Uint8Array; count: number } {
    const first = this.#frames[this.#head]!;
    let count = 1;
    let total = first.length;
    while (
      this.#head + count < this.#frames.length && total + this.#frames[this.#head + count]!.length <= this.#maxWrite
    ) {
      total += this.#frames[this.#head + count]!.length;
      count++;
    }
    let bytes = first;
    if (count > 1) {
      bytes = new Uint8Array(total);
      let at = 0;
      for (let i = 0; i < count; i++) {
        const f = this.#frames[this.#head + i]!;
        bytes.set(f, at);
        at += f.length;
      }
    }
    for (let i = 0; i < count; i++) this.#frames[this.#head + i] = undefined as unknown as Uint8Array;
    this.#head += count;
    if (this.#head > 1024 && this.#head * 2 > this.#frames.length) {
      this.#frames = this.#frames.slice(this.#head);
      this.#head = 0;
    }
    return { bytes, count };
  }

  async #drain(): Promise<void> {
    this.#writing = true;
    try {
      while (!this.#stopped && this.pendingFrames > 0) {
        const { bytes, count } = this.#take();
        let off = 0;
        while (off < bytes.length) off += await this.#sink.write(off ? bytes.subarray(off) : bytes);
        if (this.#stopped) return;
        this.#bytes -= bytes.length;
        this.#flushed += count;
        if (this.#waiters.length) {
          const done = this.#waiters.filter((w) => w.seq <= this.#flushed);
          if (done.length) {
            this.#waiters = this.#waiters.filter((w) => w.seq > this.#flushed);
            for (const w of done) w.resolve(true);
          }
        }
      }
      for (const resolve of this.#idle.splice(0)) resolve();
    } catch (error) {
      this.#stop("write-error", error);
    } finally {
      this.#writing = false;
    }
  }
}
