/**
 * Reader of bincode 1.3 varint encoding, the inverse of `writer.ts`. Strict:
 * truncated input, bool bytes other than 0/1, unknown option tags or variants,
 * non-canonical varints, invalid UTF-8, lengths longer than the remaining
 * input and trailing bytes are {@link BincodeError}s.
 *
 * @module
 */

/** Malformed bincode input; `offset` is where it was found. */
export class BincodeError extends Error {
  override readonly name = "BincodeError";
  /** Byte offset of the problem. */
  readonly offset: number;

  /** `Cannot decode the chart: <reason> at byte <offset>`. */
  constructor(reason: string, offset: number) {
    super(`Cannot decode the chart: ${reason} at byte ${offset}`);
    this.offset = offset;
  }
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** Sequential reader over one buffer. */
export class BincodeReader {
  readonly #b: Uint8Array;
  readonly #d: DataView;
  #pos = 0;

  /** A reader of `bytes` from the start. */
  constructor(bytes: Uint8Array) {
    this.#b = bytes;
    this.#d = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  /** Current offset. */
  get offset(): number {
    return this.#pos;
  }

  /** Bytes left. */
  get remaining(): number {
    return this.#b.byteLength - this.#pos;
  }

  /** Throws a {@link BincodeError} at the current offset. */
  fail(reason: string): never {
    throw new BincodeError(reason, this.#pos);
  }

  #need(n: number): number {
    if (this.#pos + n > this.#b.byteLength) this.fail(`input ends (${n} more bytes wanted)`);
    const at = this.#pos;
    this.#pos += n;
    return at;
  }

  /** `u8`. */
  u8(): number {
    return this.#b[this.#need(1)]!;
  }

  /** `bool`. */
  bool(): boolean {
    const v = this.u8();
    if (v > 1) {
      this.#pos--;
      this.fail(`bool byte ${v}`);
    }
    return v === 1;
  }

  /** Unsigned varint; values over 2^53 - 1 are refused. */
  varint(): number {
    const start = this.#pos;
    const tag = this.u8();
    let v: number;
    let min: number;
    if (tag < 251) return tag;
    if (tag === 251) [v, min] = [this.#d.getUint16(this.#need(2), true), 251];
    else if (tag === 252) [v, min] = [this.#d.getUint32(this.#need(4), true), 0x10000];
    else if (tag === 253) {
      const at = this.#need(8);
      v = this.#d.getUint32(at + 4, true) * 0x100000000 + this.#d.getUint32(at, true);
      if (!Number.isSafeInteger(v)) throw new BincodeError("integer over 2^53", start);
      min = 0x100000000;
    } else if (tag === 254) {
      // A canonical u128 varint is at least 2^64: no exact number holds it.
      throw new BincodeError("integer over 2^53", start);
    } else throw new BincodeError(`varint tag ${tag}`, start);
    if (v < min) throw new BincodeError("non-canonical varint", start);
    return v;
  }

  /** Signed (zigzag) varint. */
  zigzag(): number {
    const u = this.varint();
    return u % 2 === 0 ? u / 2 : -(u + 1) / 2;
  }

  /** `f32`. */
  f32(): number {
    return this.#d.getFloat32(this.#need(4), true);
  }

  /** A length of a sequence whose elements take at least `minElementBytes` each. */
  len(minElementBytes: number): number {
    const start = this.#pos;
    const n = this.varint();
    if (n * minElementBytes > this.remaining) throw new BincodeError(`length ${n} exceeds the input`, start);
    return n;
  }

  /** Enum variant index below `count`. */
  variant(count: number, what: string): number {
    const start = this.#pos;
    const v = this.varint();
    if (v >= count) throw new BincodeError(`unknown ${what} variant ${v}`, start);
    return v;
  }

  /** `Option` tag. */
  option(): boolean {
    const v = this.u8();
    if (v > 1) {
      this.#pos--;
      this.fail(`option tag ${v}`);
    }
    return v === 1;
  }

  /** `Vec<u8>` (a copy). */
  bytes(): Uint8Array {
    const n = this.len(1);
    const at = this.#need(n);
    return this.#b.slice(at, at + n);
  }

  /** `String`. */
  str(): string {
    const n = this.len(1);
    const at = this.#need(n);
    try {
      return utf8.decode(this.#b.subarray(at, at + n));
    } catch {
      throw new BincodeError("invalid UTF-8", at);
    }
  }

  /** `Vec<f32>`. */
  f32s(): Float32Array {
    const n = this.len(4);
    const at = this.#need(n * 4);
    const out = new Float32Array(n);
    for (let i = 0; i < n; i++) out[i] = this.#d.getFloat32(at + i * 4, true);
    return out;
  }

  /** Fails unless the whole input was read. */
  end(): void {
    if (this.remaining !== 0) this.fail(`${this.remaining} trailing bytes`);
  }
}
