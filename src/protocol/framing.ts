/**
 * Frame layer: each message is `ULEB128(payload length)` then the payload
 * (protocol.md §1). {@link FrameDecoder} splits a byte stream into payloads and
 * tells "need more bytes" (returns null) apart from "malformed" (throws
 * {@link ProtocolError}). Limits are checked before any buffer is sized.
 *
 * @module
 */

import { type Codec, ProtocolError, Reader, Writer } from "./codec.ts";
import {
  ClientCommand,
  type ClientCommand as ClientCommandValue,
  ServerCommand,
  type ServerCommand as ServerCommandValue,
} from "./schema.ts";

/** Largest payload accepted: 2 MiB exactly is still allowed (protocol.md §1). */
export const MAX_FRAME_PAYLOAD = 2 * 1024 * 1024;
/** Most bytes a length prefix may take. */
export const MAX_PREFIX_BYTES = 5;

/**
 * Reads the length prefix at `buf[start..end)`. Returns `[length, prefixBytes]`
 * or null when more bytes are needed.
 *
 * Official rules: at most 5 prefix bytes, the 5th must not set the
 * continuation bit ("invalid length"); bits beyond 32 are dropped (the length
 * is a u32); non-minimal encodings are accepted.
 */
export function readLengthPrefix(buf: Uint8Array, start: number, end: number): [number, number] | null {
  let value = 0;
  for (let i = 0; i < MAX_PREFIX_BYTES; i++) {
    if (start + i >= end) return null;
    const byte = buf[start + i]!;
    value += (byte & 0x7f) * 2 ** (7 * i);
    if ((byte & 0x80) === 0) {
      const length = value % 2 ** 32;
      if (length > MAX_FRAME_PAYLOAD) throw new ProtocolError("data packet too large");
      return [length, i + 1];
    }
  }
  throw new ProtocolError("invalid length");
}

/**
 * Incremental frame splitter. Push received chunks, then call {@link next}
 * until it returns null. A returned payload is a view that stays valid until
 * the next {@link push}.
 */
export class FrameDecoder {
  #buf: Uint8Array;
  #start = 0;
  #end = 0;

  constructor(initialCapacity = 4096) {
    this.#buf = new Uint8Array(initialCapacity);
  }

  /** Bytes received but not yet returned as frames. */
  get buffered(): number {
    return this.#end - this.#start;
  }

  /** Appends received bytes. */
  push(chunk: Uint8Array): void {
    if (this.#start === this.#end) {
      this.#start = 0;
      this.#end = 0;
    }
    if (this.#end + chunk.length > this.#buf.length) {
      const live = this.#end - this.#start;
      if (live + chunk.length <= this.#buf.length && this.#start > 0) {
        this.#buf.copyWithin(0, this.#start, this.#end);
      } else {
        // Growth is bounded: next() rejects any frame over the limit before
        // more than one frame's worth (plus one chunk) can accumulate.
        let size = this.#buf.length * 2;
        while (size < live + chunk.length) size *= 2;
        const grown = new Uint8Array(size);
        grown.set(this.#buf.subarray(this.#start, this.#end));
        this.#buf = grown;
      }
      this.#start = 0;
      this.#end = live;
    }
    this.#buf.set(chunk, this.#end);
    this.#end += chunk.length;
  }

  /** The next complete payload, or null if more bytes are needed. Throws {@link ProtocolError} on malformed framing. */
  next(): Uint8Array | null {
    const prefix = readLengthPrefix(this.#buf, this.#start, this.#end);
    if (!prefix) return null;
    const [length, prefixBytes] = prefix;
    const begin = this.#start + prefixBytes;
    if (this.#end - begin < length) return null;
    this.#start = begin + length;
    return this.#buf.subarray(begin, begin + length);
  }
}

/** Encodes `value` as a complete frame (length prefix and payload). */
export function encodeFrame<T>(codec: Codec<T>, value: T): Uint8Array {
  const w = new Writer(64, MAX_PREFIX_BYTES);
  codec.write(w, value);
  return w.frame();
}

/**
 * Decodes one payload. A zero-length payload has no tag ("unexpected EOF");
 * trailing bytes after a complete value are ignored (official leniency the
 * Phira-mp-plus `Played` extension relies on, protocol.md §1, §7.1).
 */
export function decodePayload<T>(codec: Codec<T>, payload: Uint8Array): T {
  return codec.read(new Reader(payload));
}

/** Encodes a server command frame. */
export function encodeServerCommand(cmd: ServerCommandValue): Uint8Array {
  return encodeFrame(ServerCommand, cmd);
}

/** Encodes a client command frame. */
export function encodeClientCommand(cmd: ClientCommandValue): Uint8Array {
  return encodeFrame(ClientCommand, cmd);
}

/** Decodes a client command payload; throws {@link ProtocolError} when malformed. */
export function decodeClientCommand(payload: Uint8Array): ClientCommandValue {
  return ClientCommand.read(new Reader(payload));
}

/** Decodes a server command payload; throws {@link ProtocolError} when malformed. */
export function decodeServerCommand(payload: Uint8Array): ServerCommandValue {
  return ServerCommand.read(new Reader(payload));
}
