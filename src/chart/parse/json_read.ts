/**
 * Typed reading of parsed JSON with the path of every value in error
 * messages (`judgeLineList[3].notes[7].startTime: expected a number`), for
 * the PGR and RPE parsers. Missing optional keys take the given default;
 * present keys of the wrong type are errors.
 *
 * @module
 */

import { invalid } from "./errors.ts";

/** A JSON object with the path it was found at. */
export class JsonObj {
  readonly path: string;
  readonly #o: Record<string, unknown>;

  /** Wraps `v`, which must be an object. */
  constructor(v: unknown, path: string) {
    if (typeof v !== "object" || v === null || Array.isArray(v)) fail(path, "an object", v);
    this.#o = v as Record<string, unknown>;
    this.path = path;
  }

  #at(key: string): string {
    return this.path === "" ? key : `${this.path}.${key}`;
  }

  /** Whether `key` is present and not null. */
  has(key: string): boolean {
    return this.#o[key] !== undefined && this.#o[key] !== null;
  }

  /** The raw value of `key`. */
  raw(key: string): unknown {
    return this.#o[key];
  }

  /** A finite number; `dflt` when absent (required when `dflt` is undefined). */
  num(key: string, dflt?: number): number {
    const v = this.#o[key];
    if (v === undefined || v === null) return dflt ?? fail(this.#at(key), "a number", v);
    if (typeof v !== "number" || !Number.isFinite(v)) fail(this.#at(key), "a number", v);
    return v;
  }

  /** An integer. */
  int(key: string, dflt?: number): number {
    const v = this.num(key, dflt);
    if (!Number.isInteger(v)) fail(this.#at(key), "an integer", v);
    return v;
  }

  /** A 32-bit signed integer. */
  i32(key: string, dflt?: number): number {
    const v = this.int(key, dflt);
    if (v < -(2 ** 31) || v > 2 ** 31 - 1) fail(this.#at(key), "a 32-bit integer", v);
    return v;
  }

  /** A string. */
  str(key: string, dflt?: string): string {
    const v = this.#o[key];
    if (v === undefined || v === null) return dflt ?? fail(this.#at(key), "a string", v);
    if (typeof v !== "string") fail(this.#at(key), "a string", v);
    return v;
  }

  /** An array (`[]` when absent and optional). */
  arr(key: string, optional = false): unknown[] {
    const v = this.#o[key];
    if ((v === undefined || v === null) && optional) return [];
    if (!Array.isArray(v)) fail(this.#at(key), "an array", v);
    return v;
  }

  /** The objects of an array. */
  objs(key: string, optional = false): JsonObj[] {
    return this.arr(key, optional).map((v, i) => new JsonObj(v, `${this.#at(key)}[${i}]`));
  }

  /** A nested object, or `null` when absent. */
  obj(key: string): JsonObj | null {
    const v = this.#o[key];
    return v === undefined || v === null ? null : new JsonObj(v, this.#at(key));
  }

  /** The path of `key` for messages. */
  pathOf(key: string): string {
    return this.#at(key);
  }
}

/** Throws `Cannot parse the chart: <path>: expected <what>, got <value>`. */
export function fail(path: string, what: string, v: unknown): never {
  let shown: string;
  try {
    shown = v === undefined ? "nothing" : JSON.stringify(v) ?? String(v);
  } catch {
    shown = typeof v;
  }
  if (shown.length > 40) shown = shown.slice(0, 37) + "...";
  invalid(`Cannot parse the chart: ${path || "the document"}: expected ${what}, got ${shown}`);
}

/** Parses JSON text, failing with a clear message. */
export function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    const reason = e instanceof Error ? e.message : String(e);
    invalid(`Cannot parse ${what}: not JSON (${reason})`);
  }
}
