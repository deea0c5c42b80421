/**
 * What every companion service shares over HTTP: the Hono environment that
 * carries the caller's address (set by the listener, or by the site when it
 * routes a page's call in process), the `{status, message}` bodies of the
 * original services (peers §5), and size-capped body reading.
 *
 * @module
 */

import type { Context } from "hono";
import { readCapped } from "../util/bytes.ts";

/** Hono environment of the services: `ip` is the caller's address. */
export type CompanionEnv = { Bindings: { ip: string } };

/** The caller's address (`unknown` when the app is called without bindings, e.g. `app.request` in a test). */
export function clientIp(c: Context<CompanionEnv>): string {
  return (c.env as { ip?: string } | undefined)?.ip ?? "unknown";
}

/** Largest request body any service reads. */
export const MAX_BODY_BYTES = 64 * 1024;

/** Headers of every JSON answer: nothing is cached (bodies may hold account data). */
const JSON_HEADERS = { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" };

/** A JSON response. */
export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { ...JSON_HEADERS, ...headers } });
}

/** `{status: "success", message?, ...extra}` (peers §5: every service answers this way). */
export function success(message: string | null, extra: Record<string, unknown> = {}, status = 200): Response {
  return json({ status: "success", ...(message === null ? {} : { message }), ...extra }, status);
}

/** `{status: "error", message}`. */
export function failure(status: number, message: string, headers: Record<string, string> = {}): Response {
  return json({ status: "error", message }, status, headers);
}

/** A body that could not be read, with the answer to send. */
export class BodyError extends Error {
  override readonly name = "BodyError";
  constructor(readonly response: Response) {
    super("bad request body");
  }
}

/** Reads the raw body up to {@link MAX_BODY_BYTES}; throws {@link BodyError} (413) beyond. */
export async function readBody(req: Request, max = MAX_BODY_BYTES): Promise<Uint8Array<ArrayBuffer>> {
  const declared = Number(req.headers.get("content-length") ?? "0");
  if (declared > max) throw new BodyError(failure(413, `Request body over ${max} bytes`));
  const body = await readCapped(req.body, max);
  if (body === null) throw new BodyError(failure(413, `Request body over ${max} bytes`));
  return body;
}

/**
 * The request's fields: a JSON object, or form fields (urlencoded or
 * multipart) as strings. Anything else is a 400 {@link BodyError}.
 */
export async function readFields(req: Request): Promise<Record<string, unknown>> {
  const type = (req.headers.get("content-type") ?? "").toLowerCase();
  if (type.startsWith("multipart/form-data")) {
    const bytes = await readBody(req);
    let form: FormData;
    try {
      form = await new Request("http://local/", { method: "POST", headers: req.headers, body: bytes }).formData();
    } catch {
      throw new BodyError(failure(400, "Invalid form body"));
    }
    const out: Record<string, unknown> = {};
    for (const [k, v] of form) if (typeof v === "string") out[k] = v;
    return out;
  }
  const text = new TextDecoder().decode(await readBody(req));
  if (type.startsWith("application/x-www-form-urlencoded")) {
    return Object.fromEntries(new URLSearchParams(text));
  }
  if (text.trim() === "") return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new BodyError(failure(400, "Invalid JSON body"));
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new BodyError(failure(400, "Expected a JSON object"));
  }
  return value as Record<string, unknown>;
}

/** Runs `handler` with the request's fields, answering a body problem with its response. */
export async function withFields(
  c: Context<CompanionEnv>,
  handler: (fields: Record<string, unknown>) => Promise<Response> | Response,
): Promise<Response> {
  let fields: Record<string, unknown>;
  try {
    fields = await readFields(c.req.raw);
  } catch (error) {
    if (error instanceof BodyError) return error.response;
    throw error;
  }
  return await handler(fields);
}

/** A positive integer id from a JSON number or a decimal string; `null` otherwise. */
export function positiveId(value: unknown): number | null {
  const n = typeof value === "number"
    ? value
    : typeof value === "string" && /^\d{1,10}$/.test(value)
    ? Number(value)
    : NaN;
  return Number.isSafeInteger(n) && n >= 1 && n <= 2147483647 ? n : null;
}
