/**
 * Per-connection outbound queue (spec 3 §4.1 rule 3). Enqueueing is
 * synchronous and never waits; one writer loop drains the queue, coalescing
 * queued frames into few large writes. When the queue is over its frame or
 * byte limit the connection is declared too slow and closed: nobody else ever
 * waits for a client that does not read.
 *
 * A socket ({@link StreamSink}) keeps its own write buffer: each frame is
 * handed to it as it is, the very bytes every other recipient gets (no copy
 * per recipient, issue 15), and the limits apply to what the socket still
 * holds. The queue's arrays and waiter lists exist only while in use.
 *
 * @module
 */

/** The byte sink behind a queue (a TCP connection, or a test double). */
export interface ByteSink {
  write(bytes: Uint8Array): Promise<number>;
}

/** A connection with its own write buffer (a `node:net` socket). */
export interface StreamSink {
  /** Hands `frame` over (never modified); `done` runs once it is written, with the error if it failed. */
  send(frame: Uint8Array, done: (error?: Error | null) => void): void;
  /** Bytes handed over and not yet written. */
  readonly buffered: number;
}

/** Who hears that a queue stopped by itself (a session: no closure per connection). */
export interface OutboundOwner {
  outboundStopped(reason: "overflow" | "write-error", error?: unknown): void;
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
  #sink: ByteSink | null;
  #stream: StreamSink | null;
  #frames: Uint8Array[] = NONE;
  #head = 0;
  #bytes = 0;
  #maxFrames: number;
  #maxBytes: number;
  #maxWrite: number;
  #writing = false;
  #stopped: OutboundStop | null = null;
  #enqueued = 0;
  #flushed = 0;
  #waiters: { seq: number; resolve: (ok: boolean) => void }[] | null = null;
  #idle: (() => void)[] | null = null;
  #onStop: ((reason: OutboundStop, error?: unknown) => void) | OutboundOwner | null;
  /** The write callback handed to a stream sink (made on the first frame). */
  #sent: ((error?: Error | null) => void) | null = null;

  /** `onStop` is told once when the queue stops by itself (overflow or write error). */
  constructor(
    sink: ByteSink | StreamSink,
    limits: OutboundLimits = {},
    onStop: ((reason: OutboundStop, error?: unknown) => void) | OutboundOwner | null = null,
  ) {
    const stream = "send" in sink;
    this.#sink = stream ? null : sink;
    this.#stream = stream ? sink : null;
    this.#maxFrames = limits.maxFrames ?? 4096;
    this.#maxBytes = limits.maxBytes ?? 4 * 1024 * 1024;
    this.#maxWrite = limits.maxWriteBytes ?? 256 * 1024;
    this.#onStop = onStop;
  }

  /** Frames waiting to be written. */
  get pendingFrames(): number {
    return this.#stream ? this.#enqueued - this.#flushed : this.#frames.length - this.#head;
  }

  /** Bytes waiting to be written. */
  get pendingBytes(): number {
    return this.#stream ? this.#stream.buffered : this.#bytes;
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
    if (this.pendingFrames + 1 > this.#maxFrames || this.pendingBytes + frame.length > this.#maxBytes) {
      this.#stop("overflow");
      return 0;
    }
    const stream = this.#stream;
    if (stream) {
      const seq = ++this.#enqueued;
      stream.send(frame, this.#sent ??= (error) => this.#written(error));
      return seq;
    }
    if (this.#frames === NONE) this.#frames = [];
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
    return new Promise((resolve) => (this.#waiters ??= []).push({ seq, resolve }));
  }

  /** Resolves once everything queued so far is written (or the queue stopped). */
  drained(): Promise<void> {
    if (this.pendingFrames === 0 || this.#stopped) return Promise.resolve();
    return new Promise((resolve) => (this.#idle ??= []).push(resolve));
  }

  /** Stops the queue; pending frames are discarded and waiters resolve false. */
  close(): void {
    this.#stop("closed");
  }

  #stop(reason: OutboundStop, error?: unknown): void {
    if (this.#stopped) return;
    this.#stopped = reason;
    this.#frames = NONE;
    this.#head = 0;
    this.#bytes = 0;
    const waiters = this.#waiters ?? [];
    const idle = this.#idle ?? [];
    this.#waiters = this.#idle = null;
    for (const w of waiters) w.resolve(false);
    for (const resolve of idle) resolve();
    const onStop = this.#onStop;
    if (reason === "closed" || !onStop) return;
    if (typeof onStop === "function") onStop(reason, error);
    else onStop.outboundStopped(reason, error);
  }

  /** A stream sink wrote one frame (they complete in order). */
  #written(error?: Error | null): void {
    if (this.#stopped) return;
    if (error) return this.#stop("write-error", error);
    this.#flushed++;
    this.#settle();
  }

  /** Resolves the waiters of frames written so far, and the idle waiters once nothing is pending. */
  #settle(): void {
    const waiters = this.#waiters;
    if (waiters) {
      const done = waiters.filter((w) => w.seq <= this.#flushed);
      if (done.length) {
        const rest = waiters.filter((w) => w.seq > this.#flushed);
        this.#waiters = rest.length ? rest : null;
        for (const w of done) w.resolve(true);
      }
    }
    if (this.pendingFrames === 0 && this.#idle) {
      const idle = this.#idle;
      this.#idle = null;
      for (const resolve of idle) resolve();
    }
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
    const sink = this.#sink!;
    try {
      while (!this.#stopped && this.pendingFrames > 0) {
        const { bytes, count } = this.#take();
        let off = 0;
        while (off < bytes.length) off += await sink.write(off ? bytes.subarray(off) : bytes);
        if (this.#stopped) return;
        this.#bytes -= bytes.length;
        this.#flushed += count;
        this.#settle();
      }
      if (this.pendingFrames === 0) {
        this.#frames = NONE;
        this.#head = 0;
      }
      this.#settle();
    } catch (error) {
      this.#stop("write-error", error);
    } finally {
      this.#writing = false;
    }
  }
}

/** The shared empty queue of an idle connection (never pushed to: replaced on first use). */
const NONE = Object.freeze([]) as unknown as Uint8Array[];
