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

import { ProtocolError, Reader } from "./reader.ts";
import { Writer } from "./writer.ts";

export { ProtocolError, Reader } from "./reader.ts";
export { Writer } from "./writer.ts";
export * from "./enum.ts";

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
 * `Option<T>`: presence byte then the value. Read as `byte == 1` => Some,
 * anything else => None (protocol.md §2). None is `null` in TypeScript.
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

/** `Result<T, E>`: tag `01` Ok, `00` Err; read as `byte == 1` => Ok (protocol.md §2). */
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

/** Tuple `(A, B, ...)`: the elements back to back. */
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
