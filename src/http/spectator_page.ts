/**
 * The spectator page's static files (`static/spectator/`), served under
 * `/spectator/` by the game server's HTTP port and by the monitor proxy: a
 * fixed list read once per service, with a Content-Security-Policy that
 * allows scripts and styles from the same origin only, and connections to
 * any API base the page is pointed at (the page talks to the proxy or the
 * game server, same origin or not; spec 1 §2.4 rule 3).
 *
 * @module
 */

import type { Env, Hono } from "hono";
import type { Logger } from "../util/log.ts";
import { jsonError } from "./errors.ts";
import { programFile } from "../util/program_files.ts";

/** Files of the page and their content types; nothing else under `/spectator/` is served from disk. */
export const SPECTATOR_FILES: Readonly<Record<string, string>> = {
  "index.html": "text/html; charset=utf-8",
  "spectator.css": "text/css; charset=utf-8",
  "app.js": "text/javascript; charset=utf-8",
  "api.js": "text/javascript; charset=utf-8",
  "room_list.js": "text/javascript; charset=utf-8",
  "live_codec.js": "text/javascript; charset=utf-8",
  "player_stats.js": "text/javascript; charset=utf-8",
  "live_view.js": "text/javascript; charset=utf-8",
  "watch.js": "text/javascript; charset=utf-8",
  "chart_layer.js": "text/javascript; charset=utf-8",
  "chart_plan.js": "text/javascript; charset=utf-8",
  "chart_source.js": "text/javascript; charset=utf-8",
  "chart_model.js": "text/javascript; charset=utf-8",
};

/** Files of the page kept elsewhere in `static/` (shared with the server), by their path from the page's folder. */
export const SPECTATOR_SHARED_FILES: Readonly<Record<string, string>> = { "chart_model.js": "../chart/chart_model.js" };

/** Headers of every page response. */
export const SPECTATOR_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy": "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: https:; " +
    "connect-src 'self' http: https: ws: wss:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-cache",
};

/** The page's files in this checkout (or compiled binary, built with `--include static/`). */
export const SPECTATOR_DIR: URL = programFile("static/spectator/");

/** Serves one file of the page by name. */
export type SpectatorFiles = (name: string) => Promise<Response>;

/** A reader of the page's files from `dir`, each read once and kept. */
export function spectatorFiles(log: Logger, dir: URL = SPECTATOR_DIR): SpectatorFiles {
  const cache = new Map<string, Uint8Array>();
  return async (name) => {
    const type = SPECTATOR_FILES[name];
    if (!type) return jsonError(404, `route not found: /spectator/${name}`);
    let body = cache.get(name);
    if (!body) {
      try {
        body = await Deno.readFile(new URL(SPECTATOR_SHARED_FILES[name] ?? name, dir));
      } catch (error) {
        log.error("spectator page file missing", { file: name, error: String(error) });
        return jsonError(500, "spectator page files are missing");
      }
      cache.set(name, body);
    }
    return new Response(body.slice(), { headers: { ...SPECTATOR_SECURITY_HEADERS, "content-type": type } });
  };
}

/**
 * Registers `/spectator` (a redirect: the page's own files are addressed
 * relative to `/spectator/`, which also keeps it working under a reverse
 * proxy's path prefix), `/spectator/` and the page's files.
 */
export function spectatorRoutes<E extends Env>(app: Hono<E>, files: SpectatorFiles): void {
  app.get("/spectator", () => new Response(null, { status: 308, headers: { location: "spectator/" } }));
  app.get("/spectator/", () => files("index.html"));
  for (const name of Object.keys(SPECTATOR_FILES)) app.get(`/spectator/${name}`, () => files(name));
}
