/**
 * Request parsing of the account backend: JSON bodies (bounded, typed) and
 * the rules for names. A body that is not JSON, a missing field or a field
 * of the wrong type is 400; a well-formed value that breaks a rule (name
 * characters, password length, permission range) is 422. Unknown fields are
 * refused too (400), so a misspelt optional field never passes silently --
 * the original ignored `permissions: 0` as "not given".
 *
 * @module
 */

import { ApiError } from "./errors.ts";

/** Largest request body, bytes. */
export const MAX_BODY_BYTES = 16 * 1024;

/** A parsed JSON object body. */
export type JsonBody = Readonly<Record<string, unknown>>;

/** Reads the JSON object body of `req`; an absent body is `{}` when `optional`. */
export async function readJson(req: Request, optional = false): Promise<JsonBody> {
  const length = Number(req.headers.get("content-length") ?? "0");
  if (length > MAX_BODY_BYTES) throw new ApiError("body_too_large", `request body over ${MAX_BODY_BYTES} bytes`);
  const bytes = new Uint8Array(await req.arrayBuffer());
  if (bytes.length > MAX_BODY_BYTES) throw new ApiError("body_too_large", `request body over ${MAX_BODY_BYTES} bytes`);
  if (bytes.length === 0 && optional) return {};
  const type = req.headers.get("content-type") ?? "";
  if (!/^application\/json\s*(;|$)/i.test(type)) {
    throw new ApiError("unsupported_media_type", "expected Content-Type: application/json");
  }
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    throw new ApiError("invalid_json", "the request body is not valid JSON");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new ApiError("invalid_json", "the request body must be a JSON object");
  }
  return value as JsonBody;
}

/** Refuses fields other than `allowed`. */
export function onlyFields(body: JsonBody, allowed: readonly string[]): void {
  const extra = Object.keys(body).filter((k) => !allowed.includes(k));
  if (extra.length) {
    throw new ApiError("invalid_request", `unknown field${extra.length > 1 ? "s" : ""}: ${extra.join(", ")}`);
  }
}

function missing(name: string): never {
  throw new ApiError("invalid_request", `${name} is required`);
}

function wrongType(name: string, what: string): never {
  throw new ApiError("invalid_request", `${name} must be ${what}`);
}

/** A string field; undefined when absent and not `required`. */
export function stringField(body: JsonBody, name: string, required: true): string;
export function stringField(body: JsonBody, name: string, required?: false): string | undefined;
export function stringField(body: JsonBody, name: string, required = false): string | undefined {
  const v = body[name];
  if (v === undefined) return required ? missing(name) : undefined;
  return typeof v === "string" ? v : wrongType(name, "a string");
}

/** An integer field; undefined when absent. `nullable` lets JSON null through as null. */
export function intField(body: JsonBody, name: string, nullable = false): number | null | undefined {
  const v = body[name];
  if (v === undefined) return undefined;
  if (v === null && nullable) return null;
  return typeof v === "number" && Number.isSafeInteger(v) ? v : wrongType(name, "an integer");
}

/** A boolean field, `fallback` when absent. */
export function boolField(body: JsonBody, name: string, fallback: boolean): boolean {
  const v = body[name];
  if (v === undefined) return fallback;
  return typeof v === "boolean" ? v : wrongType(name, "true or false");
}

/** Parses a path id: a positive 32-bit integer, else 400 `invalid_id`. */
export function pathId(text: string, what: string): number {
  if (!/^[0-9]{1,10}$/.test(text) || Number(text) < 1 || Number(text) > 2147483647) {
    throw new ApiError("invalid_id", `invalid ${what} id ${JSON.stringify(text)}`);
  }
  return Number(text);
}

const NAME = /^[\p{L}\p{N}_.-]+$/u;

/** Why `name` is not a valid user name (2-32 letters, digits, `_`, `.`, `-`), or null. */
export function usernameProblem(name: string): string | null {
  const length = [...name].length;
  if (length < 2 || length > 32) return "username must have 2 to 32 characters";
  if (!NAME.test(name)) return "username may hold letters, digits, _, . and - only";
  return null;
}

/** Why `name` is not a valid group name (1-32 letters, digits, `_`, `.`, `-`), or null. */
export function groupNameProblem(name: string): string | null {
  const length = [...name].length;
  if (length < 1 || length > 32) return "group name must have 1 to 32 characters";
  if (!NAME.test(name)) return "group name may hold letters, digits, _, . and - only";
  return null;
}
