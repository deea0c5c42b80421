/**
 * Rust enums on the wire: a one-byte tag that is the variant's position in
 * its declaration, then the variant's fields (protocol.md §2). Declaring the
 * variants in order *is* the wire format; variants are only ever appended.
 *
 * @module
 */

import type { Codec, Fields, FieldValues } from "./codec.ts";
import { ProtocolError } from "./reader.ts";

type Simplify<T> = { [K in keyof T]: T[K] } & unknown;

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
