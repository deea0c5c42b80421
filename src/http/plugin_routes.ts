/**
 * The catch-all (spec 1 §4.3 `/{*path}`): registered SSE streams first,
 * then routes registered by plugins, else 404 `route not found`. Built-in
 * routes are matched before this, so a plugin cannot shadow them -- except
 * `/api/rooms/listen`, which is itself a registered stream (rule 3); the
 * registries refuse paths a built-in answers (`builtin_routes.ts`).
 *
 * @module
 */

import type { Context } from "hono";
import { clientIp, type HttpContext, type HttpEnv } from "./context.ts";
import { jsonError } from "./errors.ts";
import type { PluginReply, PluginRequest } from "./route_registry.ts";
import { serveRegisteredStream } from "./routes_streams.ts";

/** Reads an optional JSON body; a Response on malformed JSON. */
async function readBody(c: Context<HttpEnv>): Promise<unknown | Response> {
  const text = await c.req.text();
  if (text === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return jsonError(400, "invalid JSON body");
  }
}

/** Answers a request no built-in route took. */
export async function dispatchPlugins(c: Context<HttpEnv>, ctx: HttpContext): Promise<Response> {
  const path = c.req.path;
  if (c.req.method === "GET" || c.req.method === "HEAD") {
    const stream = serveRegisteredStream(ctx, c.req.raw, path, clientIp(c.env));
    if (stream) return stream;
  }
  const match = ctx.routes.match(path);
  if (!match) return jsonError(404, `route not found: ${path}`);
  const body = await readBody(c);
  if (body instanceof Response) return body;
  const request: PluginRequest = {
    method: c.req.method,
    path,
    pattern: match.route.pattern,
    params: match.params,
    named: match.named,
    query: c.req.query(),
    body,
  };
  let reply: PluginReply;
  try {
    reply = await match.route.handler(request);
  } catch (error) {
    ctx.log.error("plugin route handler failed", {
      route: match.route.pattern,
      owner: match.route.owner,
      error: String(error),
    });
    return jsonError(500, "handler failed");
  }
  if (reply.ok) return c.json(reply.value ?? null);
  const status = reply.status !== undefined && reply.status >= 400 && reply.status <= 599 ? reply.status : 500;
  return jsonError(status, reply.error);
}
