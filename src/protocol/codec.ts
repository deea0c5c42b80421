/**
 * Binary codec primitives and combinators for the Phira multiplayer protocol
 * (protocol.md §2). A {@link Codec} reads and writes one type; schemas are
 * built by combining codecs, and TypeScript types are inferred from them with
 * {@link Infer}, so the wire format is declared exactly once.
 *
 * Decoding is defensive: every length is checked against the bytes that are
 * actually left before anything is allocated, and every malformed input raises
 * a {@link ProtocolError}. Nothing else is ever thrown by a decoder.
 *
 * @example Usage
 * ```ts
 * import { i32, string, struct, encodeValue, decodeValue } from "./codec.ts";
 * import { deepEqual } from "node:assert/strict";
 * const User = struct({ id: i32, name: string });
 * const bytes = encodeValue(User, { id: 100, name: "Alice" });
 * deepEqual(decodeValue(User, bytes), { id: 100, name: "Alice" });
 * ```
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
const textEncoder = new TextEncoder();

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
   * headroom without copying the payload (requires headroom ≥ 5).
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

/** Reads and writes values of type `T`. */
export interface Codec<T> {
  /** Human-readable type name for errors and docs. */
  readonly name: string;
  /** Fewest bytes an encoded value can take; used to reject impossible counts before allocating. */
  readonly minSize: number;
  read(r: Reader): T;
  write(w: Writer, value: T): void;
}

/** The TypeScript type a codec reads and writes. */
export type Infer<C> = C extends Codec<infer T> ? T : never;

type Simplify<T> = { [K in keyof T]: T[K] } & unknown;

function prim<T>(name: string, minSize: number, read: (r: Reader) => T, write: (w: Writer, v: T) => void): Codec<T> {
  return { name, minSize, read, write };
}

/** Unsigned 8-bit integer. */
export const u8: Codec<number> = prim("u8", 1, (r) => r.u8(), (w, v) => w.u8(v));
/** Signed 8-bit integer (two's complement). */
export const i8: Codec<number> = prim("i8", 1, (r) => r.i8(), (w, v) => w.i8(v));
/** Unsigned 16-bit integer. */
export const u16: Codec<number> = prim("u16", 2, (r) => r.u16(), (w, v) => w.u16(v));
/** Unsigned 32-bit integer. */
export const u32: Codec<number> = prim("u32", 4, (r) => r.u32(), (w, v) => w.u32(v));
/** Signed 32-bit integer. */
export const i32: Codec<number> = prim("i32", 4, (r) => r.i32(), (w, v) => w.i32(v));
/** Unsigned 64-bit integer. */
export const u64: Codec<bigint> = prim("u64", 8, (r) => r.u64(), (w, v) => w.u64(v));
/** Signed 64-bit integer. */
export const i64: Codec<bigint> = prim("i64", 8, (r) => r.i64(), (w, v) => w.i64(v));
/** IEEE-754 binary32. */
export const f32: Codec<number> = prim("f32", 4, (r) => r.f32(), (w, v) => w.f32(v));
/** IEEE-754 binary16, decoded to a number. */
export const f16: Codec<number> = prim("f16", 2, (r) => r.f16(), (w, v) => w.f16(v));
/** Bare ULEB128 integer. */
export const uleb: Codec<number> = prim("uleb", 1, (r) => r.uleb(), (w, v) => w.uleb(v));
/** Zero bytes; the unit type `()`. */
export const unit: Codec<null> = prim("()", 0, () => null, () => {});

/**
 * Boolean. Written as `00`/`01`; read as `byte == 1`, so any other byte is
 * false without error (official leniency, protocol.md §2 and §4.3 `08 02`).
 */
export const bool: Codec<boolean> = prim("bool", 1, (r) => r.u8() === 1, (w, v) => w.u8(v ? 1 : 0));

/** Cap on counts of zero-sized elements, which no byte budget can bound. */
const MAX_ZERO_SIZED = 65536;

function readLength(r: Reader, elementMin: number, what: string): number {
  const len = r.uleb();
  // Checked before allocating: a count that cannot fit in the bytes left is
  // malformed whatever follows (keeps hostile counts from allocating).
  if (elementMin > 0 ? len > r.remaining / elementMin : len > MAX_ZERO_SIZED) {
    throw new ProtocolError(`unexpected EOF (${what} of ${len})`, r.pos);
  }
  return len;
}

/** UTF-8 string with a ULEB128 byte length and no limit but the frame's. */
export const string: Codec<string> = prim("String", 1, (r) => r.utf8(readLength(r, 1, "string")), (w, v) => w.utf8(v));

/**
 * String of at most `max` UTF-8 bytes. A longer one is malformed on decode
 * ("string too long", protocol.md §2) and refused on encode.
 */
export function varchar(max: number): Codec<string> {
  return prim(`Varchar<${max}>`, 1, (r) => {
    const len = r.uleb();
    if (len > max) throw new ProtocolError("string too long", r.pos);
    return r.utf8(len);
  }, (w, v) => w.utf8(v, max));
}

/** Raw bytes as `Vec<u8>`: ULEB128 count then the bytes. */
export const bytes: Codec<Uint8Array> = prim("Vec<u8>", 1, (r) => r.take(readLength(r, 1, "bytes")), (w, v) => {
  w.uleb(v.length);
  w.raw(v);
});

/**
 * `Option<T>`: presence byte then the value. Read as `byte == 1` ⇒ Some,
 * anything else ⇒ None (protocol.md §2). None is `null` in TypeScript.
 */
export function option<T>(inner: Codec<T>): Codec<T | null> {
  return prim(`Option<${inner.name}>`, 1, (r) => (r.u8() === 1 ? inner.read(r) : null), (w, v) => {
    if (v === null) w.u8(0);
    else {
      w.u8(1);
      inner.write(w, v);
    }
  });
}

/** Value of a `Result<T, E>`. */
export type Result<T, E = string> = { readonly ok: true; readonly value: T } | {
  readonly ok: false;
  readonly error: E;
};

/** `Ok(value)`. */
export function ok<T>(value: T): Result<T, never> {
  return { ok: true, value };
}
/** `Err(error)`. */
export function err<E = string>(error: E): Result<never, E> {
  return { ok: false, error };
}

/** `Result<T, E>`: tag `01` Ok, `00` Err; read as `byte == 1` ⇒ Ok (protocol.md §2). */
export function result<T, E = string>(
  okCodec: Codec<T>,
  errCodec: Codec<E> = string as unknown as Codec<E>,
): Codec<Result<T, E>> {
  return prim(
    `Result<${okCodec.name}, ${errCodec.name}>`,
    1,
    (r) => (r.u8() === 1 ? ok(okCodec.read(r)) : err(errCodec.read(r))),
    (w, v) => {
      if (v.ok) {
        w.u8(1);
        okCodec.write(w, v.value);
      } else {
        w.u8(0);
        errCodec.write(w, v.error);
      }
    },
  );
}

/** `Vec<T>`: ULEB128 count then the elements. */
export function vec<T>(inner: Codec<T>): Codec<T[]> {
  return prim(`Vec<${inner.name}>`, 1, (r) => {
    const len = readLength(r, inner.minSize, "vec");
    const out = new Array<T>(len);
    for (let i = 0; i < len; i++) out[i] = inner.read(r);
    return out;
  }, (w, v) => {
    w.uleb(v.length);
    for (const item of v) inner.write(w, item);
  });
}

/**
 * `HashMap<K, V>`: ULEB128 count then key/value pairs. Any order is accepted
 * on decode (Rust's HashMap order is random); a repeated key keeps the last
 * value, as inserting into a HashMap would.
 */
export function map<K, V>(key: Codec<K>, value: Codec<V>): Codec<Map<K, V>> {
  return prim(`HashMap<${key.name}, ${value.name}>`, 1, (r) => {
    const len = readLength(r, key.minSize + value.minSize, "map");
    const out = new Map<K, V>();
    for (let i = 0; i < len; i++) out.set(key.read(r), value.read(r));
    return out;
  }, (w, v) => {
    w.uleb(v.size);
    for (const [k, val] of v) {
      key.write(w, k);
      value.write(w, val);
    }
  });
}

/** Tuple `(A, B, …)`: the elements back to back. */
export function tuple<const T extends readonly Codec<unknown>[]>(
  ...items: T
): Codec<{ -readonly [K in keyof T]: Infer<T[K]> }> {
  type Out = { -readonly [K in keyof T]: Infer<T[K]> };
  return prim(`(${items.map((c) => c.name).join(", ")})`, items.reduce((n, c) => n + c.minSize, 0), (r) => {
    const out = new Array(items.length);
    for (let i = 0; i < items.length; i++) out[i] = items[i]!.read(r);
    return out as unknown as Out;
  }, (w, v) => {
    for (let i = 0; i < items.length; i++) items[i]!.write(w, (v as unknown as unknown[])[i]);
  });
}

/** Field codecs of a struct, in wire order. */
export type Fields = Record<string, Codec<unknown>>;
/** The object type described by a {@link Fields} record. */
export type FieldValues<F extends Fields> = Simplify<{ -readonly [K in keyof F]: Infer<F[K]> }>;

/** Struct: the fields in declaration order (object key order), no prefix. */
export function struct<F extends Fields>(fields: F, name = "struct"): Codec<FieldValues<F>> {
  const entries = Object.entries(fields);
  return prim(name, entries.reduce((n, [, c]) => n + c.minSize, 0), (r) => {
    const out: Record<string, unknown> = {};
    for (const [k, c] of entries) out[k] = c.read(r);
    return out as FieldValues<F>;
  }, (w, v) => {
    for (const [k, c] of entries) c.write(w, (v as Record<string, unknown>)[k]);
  });
}

/** One variant of a tagged enum: its name and its fields in wire order. */
export interface Variant<N extends string, F extends Fields> {
  readonly name: N;
  readonly fields: F;
}

/** Declares an enum variant. Its tag is its position in the enum's list. */
export function variant<const N extends string>(name: N): Variant<N, NoFields>;
/** Declares an enum variant with fields in wire order. */
export function variant<const N extends string, F extends Fields>(name: N, fields: F): Variant<N, F>;
export function variant(name: string, fields?: Fields): Variant<string, Fields> {
  return { name, fields: fields ?? {} };
}

/** The field set of a variant without data. */
export type NoFields = { readonly [K in never]: Codec<unknown> };

/** The value type of one variant: `{ type: name, ...fields }`. */
export type VariantValue<V> = V extends Variant<infer N, infer F>
  ? string extends keyof F ? { type: N } : Simplify<{ type: N } & FieldValues<F>>
  : never;

/** A tagged-enum codec that also exposes its declaration for tables and tests. */
export interface EnumCodec<V extends Variant<string, Fields>> extends Codec<VariantValue<V>> {
  readonly variants: readonly V[];
  /** Wire tag of a variant name. */
  tagOf(name: V["name"]): number;
}

/**
 * Rust enum with data: one byte tag = the variant's declaration index, then
 * the variant's fields (protocol.md §2). An unknown tag is malformed
 * ("invalid enum: N"). Variants are only ever appended.
 */
export function enumOf<const V extends readonly Variant<string, Fields>[]>(
  name: string,
  variants: V,
): EnumCodec<V[number]> {
  type Value = VariantValue<V[number]>;
  const tags = new Map<string, number>();
  const compiled = variants.map((v, i) => {
    tags.set(v.name, i);
    return { name: v.name, entries: Object.entries(v.fields) };
  });
  return {
    name,
    minSize: 1,
    variants: variants as readonly V[number][],
    tagOf: (n) => {
      const tag = tags.get(n);
      if (tag === undefined) throw new RangeError(`Cannot find variant "${n}" in ${name}`);
      return tag;
    },
    read(r) {
      const at = r.pos;
      const tag = r.u8();
      const v = compiled[tag];
      if (!v) throw new ProtocolError(`invalid enum: ${tag}`, at);
      const out: Record<string, unknown> = { type: v.name };
      for (const [k, c] of v.entries) out[k] = c.read(r);
      return out as Value;
    },
    write(w, value) {
      const type = (value as { type: string }).type;
      const tag = tags.get(type);
      if (tag === undefined) throw new RangeError(`Cannot encode ${name}: unknown variant "${type}"`);
      w.u8(tag);
      for (const [k, c] of compiled[tag]!.entries) c.write(w, (value as Record<string, unknown>)[k]);
    },
  };
}

/** A fieldless enum whose values are its variant names (e.g. `Judgement`). */
export function unitEnum<const N extends readonly string[]>(
  name: string,
  names: N,
): Codec<N[number]> & { readonly names: N } {
  const tags = new Map<string, number>(names.map((n, i) => [n, i]));
  return {
    name,
    minSize: 1,
    names,
    read(r) {
      const at = r.pos;
      const tag = r.u8();
      const n = names[tag];
      if (n === undefined) throw new ProtocolError(`invalid enum: ${tag}`, at);
      return n;
    },
    write(w, v) {
      const tag = tags.get(v);
      if (tag === undefined) throw new RangeError(`Cannot encode ${name}: unknown value "${v}"`);
      w.u8(tag);
    },
  };
}

/** A codec whose values are checked after reading and before writing. */
export function refine<T>(inner: Codec<T>, name: string, check: (v: T) => string | null): Codec<T> {
  return prim(name, inner.minSize, (r) => {
    const at = r.pos;
    const v = inner.read(r);
    const problem = check(v);
    if (problem) throw new ProtocolError(problem, at);
    return v;
  }, (w, v) => {
    const problem = check(v);
    if (problem) throw new RangeError(`Cannot encode ${name}: ${problem}`);
    inner.write(w, v);
  });
}

/** Encodes one value to a payload (no length prefix). */
export function encodeValue<T>(codec: Codec<T>, value: T): Uint8Array {
  const w = new Writer();
  codec.write(w, value);
  return w.payload().slice();
}

/**
 * Decodes one value from the start of `payload`. Trailing bytes are ignored,
 * as the official decoder does (protocol.md §1).
 */
export function decodeValue<T>(codec: Codec<T>, payload: Uint8Array): T {
  return codec.read(new Reader(payload));
}
