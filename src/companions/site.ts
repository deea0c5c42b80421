/**
 * The site (spec 2 §4.5; port 8080): the five pages of `static/site/` and
 * the paths they call, routed to the services running in this process --
 * `/usermgr/*` -> `user_manager`, `GET|HEAD /roomsjson` -> `room /rooms`,
 * `/usertotal` -> `room /users/total`, `POST /postadmin/execute` ->
 * `command /execute` (peers §5: the original left this routing to an
 * unpublished reverse proxy). Calls go in process with the caller's
 * address, so the services' lockouts count the real caller. `/gameapi/
 * chart/<id>` answers chart metadata from the game API through a small
 * cache (the rooms page needs names and covers; going through the site
 * avoids cross-origin calls and spares the API). `/site.json` tells the
 * pages what runs here. No page or answer carries a password, hash or token.
 *
 * @module
 */

import { Hono } from "hono";
import type { Upstream, UpstreamChart } from "../upstream/mod.ts";
import { UpstreamError } from "../upstream/mod.ts";
import type { Clock } from "../util/clock.ts";
import type { Logger } from "../util/log.ts";
import { clientIp, type CompanionEnv, failure, json } from "./http_util.ts";

/** The pages and their assets; nothing else is served from disk. */
export const SITE_FILES: Readonly<Record<string, string>> = {
  "index.html": "text/html; charset=utf-8",
  "rooms.html": "text/html; charset=utf-8",
  "account.html": "text/html; charset=utf-8",
  "admin.html": "text/html; charset=utf-8",
  "privacy.html": "text/html; charset=utf-8",
  "site.css": "text/css; charset=utf-8",
  "site.js": "text/javascript; charset=utf-8",
  "index.js": "text/javascript; charset=utf-8",
  "rooms.js": "text/javascript; charset=utf-8",
  "account.js": "text/javascript; charset=utf-8",
  "admin.js": "text/javascript; charset=utf-8",
  "favicon.svg": "image/svg+xml",
};

/** Headers of every page and asset. Images may come from the game API's hosts (covers, avatars). */
export const SITE_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' https: http: data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
};

/** A service the site routes to, when it runs in this process. */
export interface Routed {
  readonly fetch: (req: Request, env: { ip: string }) => Response | Promise<Response>;
}

/** Dependencies of {@link siteApp}. */
export interface SiteDeps {
  readonly staticDir: URL;
  readonly title: string;
  readonly gameSiteUrl: string;
  readonly customCommands: boolean;
  readonly userManager: Routed | null;
  readonly room: Routed | null;
  readonly command: Routed | null;
  readonly upstream: Upstream;
  readonly clock: Clock;
  readonly log: Logger;
}

/** Chart metadata kept, and for how long. */
const CHART_CACHE_SIZE = 512;
const CHART_TTL_MS = 10 * 60_000;
const CHART_MISS_TTL_MS = 60_000;

/** The fields of a chart the rooms page shows. */
function chartView(c: UpstreamChart) {
  return {
    id: c.id,
    name: c.name,
    level: c.level ?? null,
    charter: c.charter ?? null,
    composer: c.composer ?? null,
    illustration: c.illustration ?? null,
    file: c.file,
  };
}

/** Builds the site. */
export function siteApp(d: SiteDeps): Hono<CompanionEnv> {
  const app = new Hono<CompanionEnv>();
  const files = new Map<string, Uint8Array<ArrayBuffer>>();
  const charts = new Map<number, { at: number; status: number; body: unknown }>();

  const serve = async (name: string): Promise<Response> => {
    const type = SITE_FILES[name]!;
    let body = files.get(name);
    if (!body) {
      try {
        body = await Deno.readFile(new URL(name, d.staticDir));
      } catch (error) {
        d.log.error("site file missing", { file: name, error: String(error) });
        return failure(500, "Site files are missing");
      }
      files.set(name, body);
    }
    return new Response(body.slice(), {
      headers: { ...SITE_SECURITY_HEADERS, "content-type": type, "cache-control": "no-cache" },
    });
  };

  /** Forwards to `svc` at `path`, keeping method, headers, body and the caller's address. */
  const route = async (svc: Routed | null, what: string, req: Request, path: string, ip: string) => {
    if (!svc) return failure(503, `The ${what} service is not running here`);
    const url = new URL(req.url);
    url.pathname = path;
    // Method, headers and body only: copying the whole request would tie the inner one to the outer's abort signal.
    const hasBody = req.method !== "GET" && req.method !== "HEAD";
    const inner = new Request(url, {
      method: req.method,
      headers: req.headers,
      body: hasBody ? req.body : null,
      ...(hasBody ? { duplex: "half" } : {}),
    } as RequestInit);
    const res = await svc.fetch(inner, { ip });
    return req.method === "HEAD" ? new Response(null, { status: res.status, headers: res.headers }) : res;
  };

  app.get("/", () => serve("index.html"));
  for (const name of Object.keys(SITE_FILES)) app.get(`/${name}`, () => serve(name));

  app.get("/site.json", () =>
    json({
      title: d.title,
      game_site_url: d.gameSiteUrl,
      custom_commands: d.customCommands && d.command !== null,
      services: { user_manager: d.userManager !== null, room: d.room !== null, command: d.command !== null },
    }));

  app.all("/usermgr/*", (c) => {
    const path = new URL(c.req.url).pathname.slice("/usermgr".length) || "/";
    return route(d.userManager, "user manager", c.req.raw, path, clientIp(c));
  });
  app.on(["GET", "HEAD"], "/roomsjson", (c) => {
    const req = c.req.method === "HEAD" ? new Request(c.req.url, { headers: c.req.raw.headers }) : c.req.raw;
    return route(d.room, "room", req, "/rooms", clientIp(c)).then((res) =>
      c.req.method === "HEAD" ? new Response(null, { status: res.status, headers: res.headers }) : res
    );
  });
  app.get(
    "/usertotal",
    (c) =>
      d.room
        ? route(d.room, "room", c.req.raw, "/users/total", clientIp(c))
        : route(d.userManager, "user manager", c.req.raw, "/users/total", clientIp(c)),
  );
  app.post("/postadmin/execute", (c) => route(d.command, "command", c.req.raw, "/execute", clientIp(c)));

  app.get("/gameapi/chart/:id", async (c) => {
    const raw = c.req.param("id");
    const id = /^\d{1,9}$/.test(raw) ? Number(raw) : NaN;
    if (!Number.isSafeInteger(id)) return json({ error: "invalid chart id" }, 400);
    const now = d.clock.now();
    const hit = charts.get(id);
    if (hit && now - hit.at < (hit.status === 200 ? CHART_TTL_MS : CHART_MISS_TTL_MS)) {
      return json(hit.body, hit.status, { "cache-control": "max-age=300" });
    }
    let entry: { at: number; status: number; body: unknown };
    try {
      entry = { at: now, status: 200, body: chartView(await d.upstream.chart(id, { budgetMs: 8000 })) };
    } catch (error) {
      const notFound = error instanceof UpstreamError && error.status === 404;
      if (!notFound) d.log.warn("chart lookup failed", { chart: id, error: String(error) });
      entry = {
        at: now,
        status: notFound ? 404 : 502,
        body: { error: notFound ? "chart not found" : "game API unavailable" },
      };
      if (!notFound) return json(entry.body, entry.status);
    }
    charts.delete(id);
    charts.set(id, entry);
    if (charts.size > CHART_CACHE_SIZE) charts.delete(charts.keys().next().value!);
    return json(entry.body, entry.status, { "cache-control": "max-age=300" });
  });

  app.notFound(() => failure(404, "Not found"));
  return app;
}
