/**
 * OpenUDS framing (spec 3 §4.5, §8): a 4-byte little-endian payload length,
 * then that many bytes of UTF-8 JSON. Payloads are 1 byte to 16 MiB; a zero
 * or larger length cannot be resynchronised and ends the connection.
 *
 * @module
 */

/** Largest payload in either direction (spec 3 §8). */
export const MAX_FRAME_BYTES = 16 * 1024 * 1024;

/** Why a frame could not be read or written. `fatal` = the stream cannot continue. */
export class FrameError extends Error {
  readonly fatal: boolean;
  constructor(message: string, fatal: boolean) {
    super(message);
    this.name = "FrameError";
    this.fatal = fatal;
  }
}

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

/** Encodes one value as a frame; throws {@link FrameError} when it is over the limit. */
export function encodeFrame(value: unknown): Uint8Array {
  const payload = encoder.encode(JSON.stringify(value));
  if (payload.length > MAX_FRAME_BYTES) {
    throw new FrameError(`Cannot send frame: ${payload.length} bytes is over the ${MAX_FRAME_BYTES} byte limit`, false);
  }
  const frame = new Uint8Array(4 + payload.length);
  new DataView(frame.buffer).setUint32(0, payload.length, true);
  frame.set(payload, 4);
  return frame;
}

/** Something frames are read from (`Deno.Conn`). */
export interface ByteSource {
  read(p: Uint8Array): Promise<number | null>;
}

/** Reads frames from a byte stream. */
export class FrameReader {
  readonly #source: ByteSource;
  readonly #maxBytes: number;
  #buf = new Uint8Array(64 * 1024);
  #start = 0;
  #end = 0;

  constructor(source: ByteSource, maxBytes = MAX_FRAME_BYTES) {
    this.#source = source;
    this.#maxBytes = maxBytes;
  }

  /** Makes `n` bytes available from `#start`; false at end of stream. */
  async #fill(n: number): Promise<boolean> {
    if (this.#end - this.#start >= n) return true;
    if (this.#buf.length - this.#start < n) {
      const next = this.#buf.length >= n ? this.#buf : new Uint8Array(Math.max(n, this.#buf.length * 2));
      next.set(this.#buf.subarray(this.#start, this.#end));
      this.#end -= this.#start;
      this.#start = 0;
      this.#buf = next;
    }
    while (this.#end - this.#start < n) {
      const got = await this.#source.read(this.#buf.subarray(this.#end));
      if (got === null) return false;
      this.#end += got;
    }
    return true;
  }

  /**
   * The next frame's JSON value, or null at a clean end of stream. Throws a
   * fatal {@link FrameError} for a bad length or a stream cut inside a frame,
   * and a non-fatal one for a payload that is not UTF-8 JSON.
   */
  async next(): Promise<unknown> {
    if (!await this.#fill(4)) {
      if (this.#end > this.#start) throw new FrameError("Cannot read frame: stream ended inside a length prefix", true);
      return null;
    }
    const length = new DataView(this.#buf.buffer, this.#buf.byteOffset + this.#start, 4).getUint32(0, true);
    if (length === 0) throw new FrameError("Cannot read frame: invalid length prefix 0", true);
    if (length > this.#maxBytes) {
      throw new FrameError(`Cannot read frame: ${length} bytes is over the ${this.#maxBytes} byte limit`, true);
    }
    this.#start += 4;
    if (!await this.#fill(length)) throw new FrameError("Cannot read frame: stream ended inside a payload", true);
    const bytes = this.#buf.subarray(this.#start, this.#start + length);
    this.#start += length;
    if (this.#start === this.#end) this.#start = this.#end = 0;
    try {
      return JSON.parse(decoder.decode(bytes));
    } catch {
      throw new FrameError("Cannot read frame: payload is not UTF-8 JSON", false);
    }
  }
}
