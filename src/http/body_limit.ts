/**
 * The request body limit (every route; spec 1 §4.3 style bounded input). Hono's `bodyLimit` buffers a body sent
 * without `content-length` into `new Request(original, ...)`, which copies the original's abort signal; reading a
 * `Deno.serve` request's signal makes Deno print a warning about its legacy abort behaviour (in the server's log and
 * in every test run). This one builds the buffered request from the URL, method and headers only, and gives it a
 * `content-length`, so later limits (the admin routes') take it as is.
 *
 * @module
 */

import type { Context, MiddlewareHandler, Next } from "hono";
import { readCapped } from "../util/bytes.ts";

/** Refuses bodies over `maxSize` bytes with `onError`'s response; buffers bodies of unknown length. */
export function limitBody(maxSize: number, onError: (c: Context) => Response): MiddlewareHandler {
  return async (c: Context, next: Next) => {
    const raw = c.req.raw;
    if (!raw.body) return await next();
    const length = raw.headers.get("content-length");
    if (length !== null && !raw.headers.has("transfer-encoding")) {
      return Number.parseInt(length, 10) > maxSize ? onError(c) : await next();
    }
    const body = await readCapped(raw.body, maxSize);
    if (body === null) return onError(c);
    const size = body.byteLength;
    const headers = new Headers(raw.headers);
    headers.delete("transfer-encoding");
    headers.set("content-length", String(size));
    const bodyless = raw.method === "GET" || raw.method === "HEAD";
    c.req.raw = new Request(c.req.url, { method: raw.method, headers, body: bodyless || size === 0 ? null : body });
    return await next();
  };
}
