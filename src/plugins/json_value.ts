/**
 * The `json-value` and `api-result` variants of the plugin world
 * (extended.md §2.1) as jco represents them, and their conversion to and
 * from plain JSON. `array` and `object` carry JSON text because WIT has no
 * recursive types; `integer` is an `s64` (a bigint on the JS side).
 *
 * @module
 */

/** `variant json-value` as jco passes it. */
export type JsonValueVariant =
  | { readonly tag: "null" }
  | { readonly tag: "flag"; readonly val: boolean }
  | { readonly tag: "integer"; readonly val: bigint }
  | { readonly tag: "float"; readonly val: number }
  | { readonly tag: "text"; readonly val: string }
  | { readonly tag: "array"; readonly val: string }
  | { readonly tag: "object"; readonly val: string };

/** `variant api-result` as jco passes it. */
export type ApiResultVariant =
  | { readonly tag: "ok"; readonly val: JsonValueVariant }
  | { readonly tag: "error"; readonly val: string };

const S64_MIN = -(2n ** 63n);
const S64_MAX = 2n ** 63n - 1n;

/** A JSON value as a `json-value`. */
export function toJsonValue(value: unknown): JsonValueVariant {
  if (value === null || value === undefined) return { tag: "null" };
  if (typeof value === "boolean") return { tag: "flag", val: value };
  if (typeof value === "bigint") {
    return value >= S64_MIN && value <= S64_MAX ? { tag: "integer", val: value } : { tag: "text", val: String(value) };
  }
  if (typeof value === "number") {
    if (Number.isSafeInteger(value)) return { tag: "integer", val: BigInt(value) };
    return Number.isFinite(value) ? { tag: "float", val: value } : { tag: "null" };
  }
  if (typeof value === "string") return { tag: "text", val: value };
  if (Array.isArray(value)) return { tag: "array", val: JSON.stringify(value) };
  return { tag: "object", val: JSON.stringify(value) };
}

/** A `json-value` as JSON; throws a TypeError for a malformed one (bad JSON text in `array`/`object`). */
export function fromJsonValue(value: unknown): unknown {
  const v = value as { tag?: unknown; val?: unknown } | null;
  switch (v?.tag) {
    case "null":
      return null;
    case "flag":
      return Boolean(v.val);
    case "integer": {
      const n = typeof v.val === "bigint" ? v.val : BigInt(Number(v.val));
      // Beyond 2^53 a JS number would round: pass the exact digits as text instead.
      return n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n.toString();
    }
    case "float":
      return Number(v.val);
    case "text":
      return String(v.val);
    case "array":
    case "object": {
      let parsed: unknown;
      try {
        parsed = JSON.parse(String(v.val));
      } catch {
        throw new TypeError(`Cannot read a json-value: its ${v.tag} case does not hold JSON text`);
      }
      if (
        v.tag === "array"
          ? !Array.isArray(parsed)
          : (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
      ) {
        throw new TypeError(`Cannot read a json-value: its ${v.tag} case holds another kind of JSON`);
      }
      return parsed;
    }
    default:
      throw new TypeError("Cannot read a json-value: unknown case");
  }
}

/** A list of `json-value`s as JSON values; throws a TypeError naming the position of a malformed one. */
export function fromJsonValues(values: unknown): unknown[] {
  if (!Array.isArray(values)) throw new TypeError("Cannot read the arguments: expected a list of json-value");
  return values.map((v, i) => {
    try {
      return fromJsonValue(v);
    } catch (error) {
      throw new TypeError(`argument ${i + 1}: ${(error as Error).message}`);
    }
  });
}

/** `ok(value)`. */
export function apiOk(value: unknown): ApiResultVariant {
  return { tag: "ok", val: toJsonValue(value) };
}

/** `error(message)`. */
export function apiError(message: string): ApiResultVariant {
  return { tag: "error", val: message };
}

/** An `api-result` a plugin returned, as a plain outcome; a malformed one is an error. */
export function readApiResult(value: unknown): { ok: true; value: unknown } | { ok: false; error: string } {
  const v = value as { tag?: unknown; val?: unknown } | null;
  if (v?.tag === "error") return { ok: false, error: String(v.val) };
  if (v?.tag === "ok") {
    try {
      return { ok: true, value: fromJsonValue(v.val) };
    } catch (error) {
      return { ok: false, error: `the plugin answered a malformed json-value: ${(error as Error).message}` };
    }
  }
  return { ok: false, error: "the plugin answered something that is not an api-result" };
}
