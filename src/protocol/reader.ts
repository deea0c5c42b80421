/**
 * Reading side of the codec: {@link Reader}, a cursor over one payload, and
 * {@link ProtocolError}, the one error a decoder may throw. Every read checks
 * the bytes left first (protocol.md §2).
 *
 * @module
 */

/** Malformed input: the bytes can never decode, whatever follows them. */
export class ProtocolError extends Error {
  /** Byte offset in the payload where decoding failed, when known. */
  readonly offset: number | undefined;
  constructor(reason: string, offset?: number) {
    super(reason);
    this.name = "ProtocolError";
    this.offset = offset;
  }
}

const textDecoder = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });

/** Cursor over a payload. All multi-byte values are little-endian (protocol.md §2). */
export class Reader {
  readonly bytes: Uint8Array;
  readonly view: DataView;
  pos: number;

  constructor(bytes: Uint8Array, pos = 0) {
    this.bytes = bytes;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.pos = pos;
  }

  /** Bytes not yet consumed. */
  get remaining(): number {
    return this.bytes.length - this.pos;
  }

  #need(n: number): number {
    if (this.bytes.length - this.pos < n) throw new ProtocolError("unexpected EOF", this.pos);
    const at = this.pos;
    this.pos += n;
    return at;
  }

  u8(): number {
    return this.bytes[this.#need(1)]!;
  }
  i8(): number {
    return this.view.getInt8(this.#need(1));
  }
  u16(): number {
    return this.view.getUint16(this.#need(2), true);
  }
  u32(): number {
    return this.view.getUint32(this.#need(4), true);
  }
  i32(): number {
    return this.view.getInt32(this.#need(4), true);
  }
  u64(): bigint {
    return this.view.getBigUint64(this.#need(8), true);
  }
  i64(): bigint {
    return this.view.getBigInt64(this.#need(8), true);
  }
  f32(): number {
    return this.view.getFloat32(this.#need(4), true);
  }
  f16(): number {
    return this.view.getFloat16(this.#need(2), true);
  }
  /** Copies `n` raw bytes out of the payload. */
  take(n: number): Uint8Array {
    const at = this.#need(n);
    return this.bytes.slice(at, at + n);
  }

  /**
   * Unsigned LEB128 as used for string lengths and element counts. The
   * official reader takes any number of groups into a u64; we accept up to 10
   * bytes and values below 2^53 (larger counts cannot fit a 2 MiB frame
   * anyway). Non-minimal encodings such as `82 00` are accepted (§4.3).
   */
  uleb(): number {
    let result = 0;
    let scale = 1;
    for (let i = 0; i < 10; i++) {
      const byte = this.u8();
      result += (byte & 0x7f) * scale;
      if ((byte & 0x80) === 0) {
        if (result > Number.MAX_SAFE_INTEGER) throw new ProtocolError("length out of range", this.pos);
        return result;
      }
      scale *= 128;
    }
    throw new ProtocolError("invalid uleb128", this.pos);
  }

  /**
   * UTF-8 text of `len` bytes. Invalid sequences become U+FFFD, as the
   * official `String::from_utf8_lossy` does (protocol.md §2, §4.3).
   */
  utf8(len: number): string {
    const at = this.#need(len);
    return textDecoder.decode(this.bytes.subarray(at, at + len));
  }
}
