/**
 * The admin panel's static files (`static/admin/`): a fixed list, read once
 * per service and served with a strict Content-Security-Policy (scripts and
 * styles from the same origin only, no framing).
 *
 * @module
 */

import type { Hono } from "hono";
import type { HttpContext, HttpEnv } from "./context.ts";
import { jsonError } from "./errors.ts";

/** Files of the panel and their content types; nothing else under `/admin/` is served from disk. */
export const ADMIN_FILES: Readonly<Record<string, string>> = {
  "index.html": "text/html; charset=utf-8",
  "admin.js": "text/javascript; charset=utf-8",
  "messages.js": "text/javascript; charset=utf-8",
  "admin.css": "text/css; charset=utf-8",
};

/** Headers of every admin response. */
export const ADMIN_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store",
};

/** Registers `/admin`, `/admin/` and the panel's files. */
export function adminPageRoutes(app: Hono<HttpEnv>, ctx: HttpContext): void {
  const cache = new Map<string, Uint8Array>();
  const serve = async (name: string): Promise<Response> => {
    const type = ADMIN_FILES[name];
    if (!type) return jsonError(404, `route not found: /admin/${name}`);
    let body = cache.get(name);
    if (!body) {
      try {
        body = await Deno.readFile(new URL(name, ctx.options.adminStaticDir));
      } catch (error) {
        ctx.log.error("admin panel file missing", { file: name, error: String(error) });
        return jsonError(500, "admin panel files are missing");
      }
      cache.set(name, body);
    }
    return new Response(body.slice(), { headers: { ...ADMIN_SECURITY_HEADERS, "content-type": type } });
  };
  app.get("/admin", () => serve("index.html"));
  app.get("/admin/", () => serve("index.html"));
  for (const name of Object.keys(ADMIN_FILES)) app.get(`/admin/${name}`, () => serve(name));
}
