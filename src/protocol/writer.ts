/**
 * Writing side of the codec: a growable buffer that reserves headroom for a
 * frame's length prefix, so a frame is built without copying its payload.
 *
 * @module
 */

const textEncoder = new TextEncoder();

/** Growable output buffer. Reserves room for a frame's length prefix up front. */
export class Writer {
  #buf: Uint8Array;
  #view: DataView | null = null;
  #start: number;
  pos: number;

  /** `headroom` bytes are kept free before the payload for a length prefix. */
  constructor(capacity = 64, headroom = 0) {
    this.#buf = new Uint8Array(Math.max(capacity, headroom + 16));
    this.#start = headroom;
    this.pos = headroom;
  }

  // Callers must take the offset before touching #buf/#view: growing
  // replaces both, and `this.#buf[this.#ensure(1)]` would write to the old one.
  #ensure(n: number): number {
    const at = this.pos;
    if (at + n > this.#buf.length) {
      let size = this.#buf.length * 2;
      while (size < at + n) size *= 2;
      const next = new Uint8Array(size);
      next.set(this.#buf.subarray(0, at));
      this.#buf = next;
      this.#view = null;
    }
    this.pos = at + n;
    return at;
  }

  // Allocating typed arrays dominates small encodes, so the DataView is only
  // made when a float or 64-bit value is written; integers are written by hand.
  #dv(): DataView {
    return this.#view ??= new DataView(this.#buf.buffer, this.#buf.byteOffset, this.#buf.byteLength);
  }

  u8(v: number): void {
    const at = this.#ensure(1);
    this.#buf[at] = v;
  }
  i8(v: number): void {
    const at = this.#ensure(1);
    this.#buf[at] = v & 0xff;
  }
  u16(v: number): void {
    const at = this.#ensure(2);
    const b = this.#buf;
    b[at] = v & 0xff;
    b[at + 1] = (v >>> 8) & 0xff;
  }
  u32(v: number): void {
    const at = this.#ensure(4);
    const b = this.#buf;
    b[at] = v & 0xff;
    b[at + 1] = (v >>> 8) & 0xff;
    b[at + 2] = (v >>> 16) & 0xff;
    b[at + 3] = (v >>> 24) & 0xff;
  }
  i32(v: number): void {
    this.u32(v >>> 0);
  }
  u64(v: bigint): void {
    const at = this.#ensure(8);
    this.#dv().setBigUint64(at, v, true);
  }
  i64(v: bigint): void {
    const at = this.#ensure(8);
    this.#dv().setBigInt64(at, v, true);
  }
  f32(v: number): void {
    const at = this.#ensure(4);
    this.#dv().setFloat32(at, v, true);
  }
  /**
   * Half precision with round-to-nearest-even and overflow to ±inf, applied
   * to the f32 value as the official `half::f16::from_f32` does.
   */
  f16(v: number): void {
    const at = this.#ensure(2);
    this.#dv().setFloat16(at, Math.fround(v), true);
  }
  raw(bytes: Uint8Array): void {
    const at = this.#ensure(bytes.length);
    this.#buf.set(bytes, at);
  }
  /** Minimal unsigned LEB128. */
  uleb(v: number): void {
    if (!Number.isSafeInteger(v) || v < 0) {
      throw new RangeError(`Cannot encode uleb128: ${v} is not a non-negative integer`);
    }
    while (v >= 0x80) {
      this.u8((v % 0x80) | 0x80);
      v = Math.floor(v / 0x80);
    }
    this.u8(v);
  }

  /** A string as ULEB128 byte length plus UTF-8, written without a temporary buffer. */
  utf8(text: string, maxBytes = Infinity): void {
    const n = text.length;
    let ascii = true;
    for (let i = 0; i < n; i++) {
      if (text.charCodeAt(i) >= 0x80) {
        ascii = false;
        break;
      }
    }
    if (ascii) {
      if (n > maxBytes) throw new RangeError(`Cannot encode string: ${n} bytes exceed the limit of ${maxBytes}`);
      this.uleb(n);
      const at = this.#ensure(n);
      const b = this.#buf;
      for (let i = 0; i < n; i++) b[at + i] = text.charCodeAt(i);
      return;
    }
    const bytes = textEncoder.encode(text);
    if (bytes.length > maxBytes) {
      throw new RangeError(`Cannot encode string: ${bytes.length} bytes exceed the limit of ${maxBytes}`);
    }
    this.uleb(bytes.length);
    this.raw(bytes);
  }

  /** The payload written so far (a view, not a copy). */
  payload(): Uint8Array {
    return this.#buf.subarray(this.#start, this.pos);
  }

  /**
   * The payload preceded by its ULEB128 length, built in the reserved
   * headroom without copying the payload (requires headroom >= 5).
   */
  frame(): Uint8Array {
    let len = this.pos - this.#start;
    let prefixLen = 1;
    for (let n = len; n >= 0x80; n = Math.floor(n / 0x80)) prefixLen++;
    if (prefixLen > this.#start) throw new RangeError("Cannot build frame: not enough headroom for the length prefix");
    let at = this.#start - prefixLen;
    const begin = at;
    while (len >= 0x80) {
      this.#buf[at++] = (len % 0x80) | 0x80;
      len = Math.floor(len / 0x80);
    }
    this.#buf[at] = len;
    return this.#buf.subarray(begin, this.pos);
  }
}
