/**
 * Replays over HTTP (spec 3 §4.7; tphira's working flow, peers note §2.6):
 *
 * - `POST /replay/auth {token}`: the Phira token is checked against the
 *   upstream `/me`; the answer lists the caller's replays and a session
 *   token for 30 minutes: `{ok, userId, charts: [{chartId, replays: [{id,
 *   timestamp, recordId}]}], sessionToken, expiresAt}` (`expiresAt` in
 *   milliseconds; `id` is `<chartId>-<timestamp>`). 400 `bad-token`, 401
 *   `unauthorized` (the upstream refused the token), 502
 *   `upstream-unavailable`, 429 `too-many-requests` (10 a minute per
 *   address).
 * - `GET /replay/download`: tphira's `sessionToken`, `chartId`, `timestamp`
 *   or the spec's `token`, `id`; streams the caller's own file only, as
 *   `application/octet-stream`, throttled per connection; two at a time per
 *   session. 400 `bad-request`, 401 `unauthorized`, 404 `not-found`, 429
 *   `too-many-downloads`.
 * - `POST /replay/delete` with the same fields in the body: `{ok: true}`.
 *
 * @module
 */

import type { Hono } from "hono";
import { WindowCounter } from "../../src/net/mod.ts";
import type { LegacyContext } from "../context.ts";
import { randomToken } from "./otp.ts";
import { fail, ok } from "./respond.ts";
import { throttledStream } from "./throttle.ts";
import type { LegacyEnv } from "./types.ts";

/** How long a replay session lasts. */
export const REPLAY_SESSION_MS = 30 * 60_000;
const MAX_SESSIONS = 4096;
const MAX_DOWNLOADS_PER_SESSION = 2;
const MAX_DOWNLOADS = 64;

interface ReplaySession {
  readonly userId: number;
  readonly expires: number;
  downloads: number;
}

/** Adds the replay routes. */
export function replayRoutes(app: Hono<LegacyEnv>, ctx: LegacyContext): void {
  const sessions = new Map<string, ReplaySession>();
  const authLimit = new WindowCounter(10, 60_000);
  let downloads = 0;
  const now = () => ctx.clock.now();
  const session = (token: unknown): ReplaySession | null => {
    if (typeof token !== "string" || !token) return null;
    const s = sessions.get(token);
    if (!s) return null;
    if (s.expires <= now()) {
      sessions.delete(token);
      return null;
    }
    return s;
  };
  /** The replay a request names: `chartId` + `timestamp`, or `id` = `<chartId>-<timestamp>`. */
  const target = (f: Record<string, unknown>): { chartId: number; timestamp: number } | null => {
    const num = (
      v: unknown,
    ) => (typeof v === "number" ? v : typeof v === "string" && /^\d{1,15}$/.test(v) ? Number(v) : NaN);
    if (f.id !== undefined) {
      const m = /^(\d{1,10})-(\d{1,15})$/.exec(String(f.id));
      return m ? { chartId: Number(m[1]), timestamp: Number(m[2]) } : null;
    }
    const chartId = num(f.chartId);
    const timestamp = num(f.timestamp);
    return Number.isSafeInteger(chartId) && Number.isSafeInteger(timestamp) ? { chartId, timestamp } : null;
  };

  app.post("/replay/auth", async (c) => {
    const body = c.get("body") as Record<string, unknown>;
    const token = typeof body.token === "string" ? body.token.trim() : "";
    if (!token || token.length > 256) return fail(400, "bad-token");
    if (!authLimit.hit(c.get("ip"), now())) return fail(429, "too-many-requests");
    let userId: number;
    try {
      userId = (await ctx.core.ctx.upstream.me(token, { budgetMs: ctx.config.auth_budget_ms })).id;
    } catch (error) {
      const status = (error as { status?: number }).status;
      if (status !== undefined && status >= 400 && status < 500) return fail(401, "unauthorized");
      ctx.log.warn("replay login: the game API did not answer", { error: String(error) });
      return fail(502, "upstream-unavailable");
    }
    for (const [k, s] of sessions) if (s.expires <= now()) sessions.delete(k);
    while (sessions.size >= MAX_SESSIONS) sessions.delete(sessions.keys().next().value!);
    const sessionToken = randomToken();
    const expiresAt = now() + REPLAY_SESSION_MS;
    sessions.set(sessionToken, { userId, expires: expiresAt, downloads: 0 });
    const charts = (await ctx.replays.list(userId)).map((chart) => ({
      chartId: chart.chartId,
      replays: chart.replays.map((r) => ({
        id: `${r.chartId}-${r.timestamp}`,
        timestamp: r.timestamp,
        recordId: r.recordId,
        size: r.size,
      })),
    }));
    return ok({ userId, charts, sessionToken, expiresAt });
  });

  app.get("/replay/download", async (c) => {
    const q = c.req.query();
    const s = session(q.sessionToken ?? q.token);
    if (!s) return fail(401, "unauthorized");
    const which = target(q);
    if (!which) return fail(400, "bad-request");
    if (s.downloads >= MAX_DOWNLOADS_PER_SESSION || downloads >= MAX_DOWNLOADS) return fail(429, "too-many-downloads");
    const opened = await ctx.replays.open(s.userId, which.chartId, which.timestamp);
    if (!opened) return fail(404, "not-found");
    s.downloads++;
    downloads++;
    const stream = throttledStream(opened.file, ctx.config.legacy.replay_download_bytes_per_sec, ctx.clock, () => {
      s.downloads--;
      downloads--;
    });
    return new Response(stream, {
      headers: {
        "content-type": "application/octet-stream",
        "content-length": String(opened.size),
        "content-disposition": `attachment; filename="${which.timestamp}.phirarec"`,
      },
    });
  });

  app.post("/replay/delete", async (c) => {
    const body = c.get("body") as Record<string, unknown>;
    const s = session(body.sessionToken ?? body.token);
    if (!s) return fail(401, "unauthorized");
    const which = target(body);
    if (!which) return fail(400, "bad-request");
    if (!(await ctx.replays.remove(s.userId, which.chartId, which.timestamp))) return fail(404, "not-found");
    return ok();
  });
}
