/**
 * An in-memory duplex byte stream: two ends, each with `read`, `write` and
 * `close`, shaped like a `Deno.Conn`. Used for virtual sessions (the web
 * spectator bridge, the in-process benchmark) that speak the real protocol
 * without a socket. Each direction buffers at most `highWaterBytes` before
 * `write` waits for the reader, like a socket's send buffer.
 *
 * @module
 */

/** One end of a {@link createPipe} pair. */
export interface PipeEnd {
  read(p: Uint8Array): Promise<number | null>;
  write(p: Uint8Array): Promise<number>;
  close(): void;
  /** Resolves once this end or its peer closed. */
  readonly closed: Promise<void>;
}

class Channel {
  chunks: Uint8Array[] = [];
  offset = 0;
  bytes = 0;
  ended = false;
  reader: (() => void) | null = null;
  writers: (() => void)[] = [];

  constructor(readonly highWater: number) {}

  wakeReader(): void {
    const r = this.reader;
    this.reader = null;
    r?.();
  }

  wakeWriters(): void {
    for (const w of this.writers.splice(0)) w();
  }
}

class End implements PipeEnd {
  readonly closed: Promise<void>;
  #resolveClosed!: () => void;
  #peer!: End;

  constructor(readonly incoming: Channel, readonly outgoing: Channel) {
    this.closed = new Promise((resolve) => (this.#resolveClosed = resolve));
  }

  link(peer: End): void {
    this.#peer = peer;
  }

  async read(p: Uint8Array): Promise<number | null> {
    const ch = this.incoming;
    while (ch.bytes === 0) {
      if (ch.ended) return null;
      await new Promise<void>((resolve) => (ch.reader = resolve));
    }
    let n = 0;
    while (n < p.length && ch.chunks.length) {
      const chunk = ch.chunks[0]!;
      const take = Math.min(p.length - n, chunk.length - ch.offset);
      p.set(chunk.subarray(ch.offset, ch.offset + take), n);
      n += take;
      ch.offset += take;
      if (ch.offset === chunk.length) {
        ch.chunks.shift();
        ch.offset = 0;
      }
    }
    ch.bytes -= n;
    if (ch.bytes < ch.highWater) ch.wakeWriters();
    return n;
  }

  async write(p: Uint8Array): Promise<number> {
    const ch = this.outgoing;
    while (!ch.ended && ch.bytes >= ch.highWater) await new Promise<void>((resolve) => ch.writers.push(resolve));
    if (ch.ended) throw new Deno.errors.BrokenPipe("Cannot write: the pipe is closed");
    ch.chunks.push(p.slice());
    ch.bytes += p.length;
    ch.wakeReader();
    return p.length;
  }

  close(): void {
    for (const ch of [this.incoming, this.outgoing]) {
      if (ch.ended) continue;
      ch.ended = true;
      ch.wakeReader();
      ch.wakeWriters();
    }
    this.#resolveClosed();
    this.#peer.#resolveClosed();
  }
}

/** Creates a connected pair of pipe ends. */
export function createPipe(highWaterBytes = 256 * 1024): [PipeEnd, PipeEnd] {
  const ab = new Channel(highWaterBytes);
  const ba = new Channel(highWaterBytes);
  const a = new End(ba, ab);
  const b = new End(ab, ba);
  a.link(b);
  b.link(a);
  return [a, b];
}
