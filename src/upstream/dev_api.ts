/**
 * The development upstream: a deterministic local stand-in of the Phira API
 * (`/me`, `/chart/{id}`, `/record/{id}`, `/login`, `/play/upload`) plus the
 * chart archives under `/files/`, with Range support and fault injection.
 * Use it in-process through {@link DevApi.fetch} (no sockets; archive URLs
 * resolve through the same function) or over HTTP with {@link serveDevApi}.
 *
 * @module
 */

import { Hono } from "hono";
import type { Context } from "hono";
import { type Clock, SystemClock } from "../util/clock.ts";
import { archiveName, chartInfoJson } from "./dev_charts.ts";
import { serveBytes } from "./dev_range.ts";
import { uploadSchema } from "./dev_records.ts";
import { DevApiState, type DevApiStateOptions, type DevEndpoint, type DevProfile } from "./dev_state.ts";
import type { FetchLike } from "./transport.ts";

/** Options of {@link createDevApi}. */
export interface DevApiOptions extends Partial<Omit<DevApiStateOptions, "clock">> {
  /** Time source for fault delays and timestamps (default: {@link SystemClock}). */
  clock?: Clock;
  /** Base URL put into chart `file` links (default: the origin of each request). */
  publicUrl?: string;
}

/** A development upstream instance. */
export interface DevApi {
  /** The Hono application. */
  readonly app: Hono;
  /** Accounts, charts, records, faults and the request log. */
  readonly state: DevApiState;
  /** A `fetch` answering every URL from this API in-process, for injection into `Upstream`. */
  readonly fetch: FetchLike;
}

function jsonError(c: Context, status: 400 | 401 | 404, error: string): Response {
  return c.json({ error }, status);
}

function endpointOf(path: string): DevEndpoint | null {
  if (path === "/me") return "me";
  if (path.startsWith("/user/")) return "user";
  if (path.startsWith("/chart/")) return "chart";
  if (path.startsWith("/record/")) return "record";
  if (path === "/login") return "login";
  if (path === "/play/upload") return "upload";
  if (path.startsWith("/files/") || path.startsWith("/avatars/")) return "files";
  if (path === "/user" || path === "/user/" || path.startsWith("/user/")) return "user";
  return null;
}

function bearer(c: Context): string | null {
  const h = c.req.header("authorization");
  const m = h ? /^Bearer\s+(\S+)$/i.exec(h) : null;
  return m ? m[1]! : null;
}

function wait(clock: Clock, ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clock.clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = clock.setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}

/** A profile as the API sends it; an account without an avatar of its own gets the generated one under `base`. */
function profileJson(p: DevProfile, base: string): Record<string, unknown> {
  const avatar = p.avatar ?? `${base}/avatars/${p.id}.svg`;
  return { ...p, avatar, badges: [], bio: null, exp: 0, roles: 0, joined: "2024-01-01T00:00:00Z" };
}

function parseId(raw: string): number | null {
  return /^\d{1,10}$/.test(raw) && Number(raw) <= 2147483647 ? Number(raw) : null;
}

/** Builds a development upstream. */
export function createDevApi(o: DevApiOptions = {}): DevApi {
  const clock = o.clock ?? new SystemClock();
  const state = new DevApiState({ ...o, clock });
  const app = new Hono();

  // Log and fault injection around every request.
  app.use("*", async (c, next) => {
    const path = new URL(c.req.url).pathname;
    const endpoint = endpointOf(path);
    const fault = endpoint ? state.takeFault(endpoint) : null;
    if (fault?.delayMs) await wait(clock, fault.delayMs, c.req.raw.signal);
    const hooked = fault?.hook ? await fault.hook(c.req.raw) : undefined;
    if (hooked) c.res = hooked;
    else if (fault && (fault.status !== undefined || fault.body !== undefined)) {
      c.res = Response.json(fault.body ?? { error: "injected fault" }, { status: fault.status ?? 200 });
    } else await next();
    state.log({
      at: clock.now(),
      method: c.req.method,
      path,
      endpoint,
      bearer: bearer(c) !== null,
      range: c.req.header("range") ?? null,
      status: c.res.status,
    });
  });

  app.get("/", (c) =>
    c.json({
      name: "chorus development upstream",
      endpoints: [
        "GET /me",
        "GET /user/{id}",
        "GET /user?search=",
        "GET /chart/{id}",
        "GET /record/{id}",
        "POST /login",
        "POST /play/upload",
        "GET /files/*",
      ],
    }));

  app.get("/me", (c) => {
    const token = bearer(c);
    const user = token === null ? null : state.userForToken(token);
    if (!user) return jsonError(c, 401, "invalid token");
    return c.json({
      ...user,
      avatar: null,
      badges: [],
      bio: null,
      exp: 0,
      rks: 0,
      roles: 0,
      joined: "2024-01-01T00:00:00Z",
      last_login: new Date(clock.now()).toISOString(),
    });
  });

  app.get("/user/:id", (c) => {
    const id = parseId(c.req.param("id"));
    const profile = id === null ? null : state.profile(id);
    const base = o.publicUrl?.replace(/\/+$/, "") ?? new URL(c.req.url).origin;
    return profile ? c.json(profileJson(profile, base)) : jsonError(c, 404, "user not found");
  });

  // A generated avatar (initial on a colour from the id), so pages showing avatars have an image to load.
  app.get("/avatars/:file", (c) => {
    const m = /^(\d{1,10})\.svg$/.exec(c.req.param("file"));
    const id = m ? parseId(m[1]!) : null;
    const profile = id === null ? null : state.profile(id);
    if (!profile) return jsonError(c, 404, "file not found");
    const hue = profile.id * 47 % 360;
    const initial = (profile.name.codePointAt(0) ?? 63) < 128 ? profile.name[0]!.toUpperCase() : "?";
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="96" height="96" viewBox="0 0 96 96">` +
      `<rect width="96" height="96" fill="hsl(${hue} 55% 45%)"/>` +
      `<text x="48" y="62" font-family="sans-serif" font-size="44" text-anchor="middle" fill="#fff">` +
      `${initial.replace(/[<>&"']/g, "?")}</text></svg>`;
    return c.body(svg, 200, { "content-type": "image/svg+xml", "cache-control": "max-age=86400" });
  });

  // The API's paged list: `page` counts from 1, `pageNum` is the page size.
  app.get("/user", (c) => {
    const search = c.req.query("search") ?? "";
    const page = Math.max(1, Number(c.req.query("page") ?? 1) || 1);
    const size = Math.min(100, Math.max(1, Number(c.req.query("pageNum") ?? 20) || 20));
    const all = search === "" ? [] : state.searchProfiles(search);
    const base = o.publicUrl?.replace(/\/+$/, "") ?? new URL(c.req.url).origin;
    const results = all.slice((page - 1) * size, page * size).map((p) => profileJson(p, base));
    return c.json({ count: all.length, results });
  });

  app.get("/chart/:id", (c) => {
    const id = parseId(c.req.param("id"));
    const chart = id === null ? null : state.chart(id);
    if (!chart) return jsonError(c, 404, "chart not found");
    const base = o.publicUrl?.replace(/\/+$/, "") ?? new URL(c.req.url).origin;
    return c.json(chartInfoJson(chart, `${base}/files/${archiveName(chart.id)}`));
  });

  app.get("/record/:id", (c) => {
    const id = parseId(c.req.param("id"));
    const record = id === null ? null : state.record(id);
    return record ? c.json(record) : jsonError(c, 404, "record not found");
  });

  app.post("/login", async (c) => {
    const body = await c.req.json().catch(() => null) as { email?: unknown; password?: unknown } | null;
    if (!body || typeof body.email !== "string" || typeof body.password !== "string") {
      return jsonError(c, 400, "email and password required");
    }
    const ok = state.login(body.email, body.password);
    if (!ok) return jsonError(c, 401, "invalid email or password");
    return c.json({
      id: ok.user.id,
      token: ok.token,
      refreshToken: `dev-refresh.${ok.user.id}`,
      expireAt: new Date(clock.now() + 30 * 86_400_000).toISOString(),
    });
  });

  app.post("/play/upload", async (c) => {
    const token = bearer(c);
    const user = token === null ? null : state.userForToken(token);
    if (!user) return jsonError(c, 401, "invalid token");
    const parsed = uploadSchema.safeParse(await c.req.json().catch(() => null));
    if (!parsed.success) return jsonError(c, 400, `invalid record: ${parsed.error.issues[0]?.message ?? "bad body"}`);
    return c.json({ id: state.upload(user.id, parsed.data).id });
  });

  app.get("/files/:name", (c) => {
    const m = /^chart-(\d{1,10})\.zip$/.exec(c.req.param("name"));
    const id = m ? parseId(m[1]!) : null;
    const chart = id === null ? null : state.chart(id);
    const archive = id === null || !chart ? null : state.archive(id);
    if (!chart || !archive) return jsonError(c, 404, "file not found");
    return serveBytes(c.req.raw, archive.bytes, {
      contentType: "application/zip",
      ignoreRange: state.ignoreRange || chart.ignoreRange,
      headers: { "last-modified": new Date(chart.chartUpdated).toUTCString() },
    });
  });

  app.notFound((c) => jsonError(c, 404, "not found"));

  // A Request as given is passed on as is: copying one copies its signal, and reading a served request's signal makes
  // Deno.serve print a warning about its legacy abort behaviour.
  const fetchFn: FetchLike = async (input, init) =>
    await app.fetch(input instanceof Request && init === undefined ? input : new Request(input, init));
  return { app, state, fetch: fetchFn };
}
