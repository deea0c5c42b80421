/**
 * The client's byte layer over one TCP connection: the version byte, then
 * frames both ways (protocol.md §1). One read loop decodes server commands;
 * outgoing frames go through one queue that coalesces whatever accumulated
 * while the previous write was in flight, so order is kept and small frames
 * share a syscall.
 *
 * @module
 */

import { decodeServerCommand, FrameDecoder, ProtocolError, type ServerCommand } from "../protocol/mod.ts";
import { ClientError } from "./errors.ts";
import { concatBytes } from "../util/bytes.ts";

/** The part of `Deno.Conn` the client uses. */
export interface ByteConn {
  /** Reads into `p`; resolves with the byte count, or null at end of stream. */
  read(p: Uint8Array): Promise<number | null>;
  /** Writes some prefix of `p`; resolves with the byte count written. */
  write(p: Uint8Array): Promise<number>;
  /** Closes the connection; pending reads and writes fail. */
  close(): void;
}

/** Callbacks of {@link FrameConnection}. */
export interface FrameHandlers {
  /** One decoded server command, in arrival order. */
  onCommand(cmd: ServerCommand): void;
  /** The connection ended by itself (EOF, malformed frame, I/O error, overflow); called once, not on `close()`. */
  onEnd(error: ClientError): void;
}

/** Tuning of {@link FrameConnection}. */
export interface FrameConnectionOptions {
  /** Size of the one read buffer. */
  readonly readBufferSize: number;
  /** Bytes that may wait in the write queue before the connection is given up. */
  readonly maxQueuedBytes: number;
}

/** Version byte, framing, a read loop and an ordered, coalescing write queue. */
export class FrameConnection {
  readonly #conn: ByteConn;
  readonly #handlers: FrameHandlers;
  readonly #options: FrameConnectionOptions;
  readonly #reading: Promise<void>;
  #queue: Uint8Array[] = [];
  #queuedBytes = 0;
  #flushing: Promise<void> | null = null;
  #closing = false;

  /** Starts reading and queues the version byte (protocol.md §1: sent once, before any frame). */
  constructor(conn: ByteConn, version: number, handlers: FrameHandlers, options: FrameConnectionOptions) {
    this.#conn = conn;
    this.#handlers = handlers;
    this.#options = options;
    this.send(Uint8Array.of(version));
    this.#reading = this.#readLoop();
  }

  /** Bytes queued and not yet written. */
  get queuedBytes(): number {
    return this.#queuedBytes;
  }

  /** Queues bytes for writing after everything queued before. Returns false once closing. */
  send(bytes: Uint8Array): boolean {
    if (this.#closing) return false;
    this.#queuedBytes += bytes.length;
    if (this.#queuedBytes > this.#options.maxQueuedBytes) {
      this.#terminate(
        new ClientError("overflow", "send", `more than ${this.#options.maxQueuedBytes} bytes wait to be written`),
      );
      return false;
    }
    this.#queue.push(bytes);
    this.#flushing ??= this.#flush();
    return true;
  }

  /**
   * Closes the socket -- after writing what is queued when `flush` -- and
   * resolves once the read loop and the writer have stopped.
   */
  async close(flush: boolean): Promise<void> {
    if (flush) {
      while (this.#flushing && !this.#closing) await this.#flushing;
    }
    this.#terminate(null);
    await this.#reading;
    while (this.#flushing) await this.#flushing;
  }

  #terminate(error: ClientError | null): void {
    if (this.#closing) return;
    this.#closing = true;
    this.#queue = [];
    this.#queuedBytes = 0;
    try {
      this.#conn.close();
    } catch {
      // Already closed by the runtime; nothing left to release.
    }
    if (error) this.#handlers.onEnd(error);
  }

  async #flush(): Promise<void> {
    try {
      while (this.#queue.length > 0 && !this.#closing) {
        const batch = this.#queue;
        this.#queue = [];
        const bytes = batch.length === 1 ? batch[0]! : concatBytes(batch);
        for (let at = 0; at < bytes.length;) at += await this.#conn.write(bytes.subarray(at));
        this.#queuedBytes -= bytes.length;
      }
    } catch (e) {
      if (!this.#closing) this.#terminate(new ClientError("io", "write", describe(e), { cause: e }));
    } finally {
      this.#flushing = null;
    }
  }

  async #readLoop(): Promise<void> {
    const buf = new Uint8Array(this.#options.readBufferSize);
    const decoder = new FrameDecoder(1024);
    for (;;) {
      let n: number | null;
      try {
        n = await this.#conn.read(buf);
      } catch (e) {
        if (!this.#closing) this.#terminate(new ClientError("io", "read", describe(e), { cause: e }));
        return;
      }
      if (this.#closing) return;
      if (n === null) {
        this.#terminate(new ClientError("eof", "read", "the server closed the connection"));
        return;
      }
      decoder.push(buf.subarray(0, n));
      try {
        for (let payload = decoder.next(); payload; payload = decoder.next()) {
          this.#handlers.onCommand(decodeServerCommand(payload));
          if (this.#closing) return;
        }
      } catch (e) {
        if (e instanceof ProtocolError) {
          // The official client's reader dies on any decode error; we close and say why.
          this.#terminate(new ClientError("protocol", "read", `malformed server frame: ${e.message}`, { cause: e }));
        } else {
          this.#terminate(new ClientError("io", "read", `internal error: ${describe(e)}`, { cause: e }));
          reportError(e);
        }
        return;
      }
    }
  }
}

function describe(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
