/**
 * The account backend's HTTP application: CORS for configured origins,
 * session resolution from the cookie, cross-site request refusal, the
 * routes, and the one error envelope (`errors.ts`) for everything that
 * fails -- including unknown paths and methods. An unexpected exception is
 * logged and answered 500 `internal_error` without its text.
 *
 * CSRF protection (`docs/accounts.md`) for every request that changes
 * something (not GET/HEAD/OPTIONS):
 * 1. Origin check: an `Origin` header must be this service's own (same host
 *    as `Host`) or a configured origin; without `Origin`, a
 *    `Sec-Fetch-Site` other than `same-origin`/`none` is refused.
 * 2. When the request is authenticated by the session cookie (login
 *    aside), the `X-CSRF-Token` header must equal the session's CSRF token
 *    (an HMAC of the session token, given at login and by `/me`, and in
 *    the `chorus_csrf` cookie). Plus SameSite on both cookies.
 *
 * @module
 */

import { Hono } from "hono";
import { getCookie } from "hono/cookie";
import type { AccountsContext, AccountsEnv, Ctx } from "./context.ts";
import { ApiError, errorResponse } from "./errors.ts";
import { registrationRoute } from "./registration.ts";
import { authRoutes } from "./routes_auth.ts";
import { groupRoutes } from "./routes_groups.ts";
import { roomRoutes } from "./routes_rooms.ts";
import { userRoutes } from "./routes_users.ts";
import { CSRF_HEADER, SESSION_COOKIE } from "./sessions.ts";
import { csrfTokenFor, sameSecret } from "./tokens.ts";
import { HasherBusyError } from "./password_pool.ts";

const SAFE = new Set(["GET", "HEAD", "OPTIONS"]);

/** True when `req` comes from this service's own pages or an allowed origin. */
export function sameOriginRequest(req: Request, allowed: ReadonlySet<string>): boolean {
  const origin = req.headers.get("origin");
  if (origin === null) {
    const site = req.headers.get("sec-fetch-site");
    return site === null || site === "same-origin" || site === "none";
  }
  if (allowed.has(origin)) return true;
  const host = req.headers.get("host");
  if (host === null || origin === "null") return false;
  try {
    return new URL(origin).host === host.toLowerCase();
  } catch {
    return false;
  }
}

function cors(ctx: AccountsContext, c: Ctx): void {
  const origin = c.req.header("origin");
  if (!origin || !ctx.allowedOrigins.has(origin)) return;
  c.header("Access-Control-Allow-Origin", origin);
  c.header("Access-Control-Allow-Credentials", "true");
  c.header("Access-Control-Expose-Headers", CSRF_HEADER);
  c.header("Vary", "Origin", { append: true });
}

/** Builds the application over `ctx`. */
export function createAccountsApp(ctx: AccountsContext): Hono<AccountsEnv> {
  const app = new Hono<AccountsEnv>();

  app.onError((error, c) => {
    if (error instanceof ApiError) return withCors(ctx, c, errorResponse(error));
    if (error instanceof HasherBusyError) {
      return withCors(
        ctx,
        c,
        errorResponse(new ApiError("busy", "too many logins at once; try again", { "Retry-After": "1" })),
      );
    }
    ctx.log.error("request failed", { method: c.req.method, path: c.req.path, error: String(error) });
    return withCors(ctx, c, errorResponse(new ApiError("internal_error", "internal error")));
  });
  app.notFound((c) => errorResponse(new ApiError("not_found", `no route ${c.req.method} ${c.req.path}`)));

  app.use("*", async (c, next) => {
    cors(ctx, c);
    if (c.req.method === "OPTIONS") {
      const origin = c.req.header("origin");
      if (origin && ctx.allowedOrigins.has(origin)) {
        c.header("Access-Control-Allow-Methods", "GET, POST, PATCH, DELETE, OPTIONS");
        c.header("Access-Control-Allow-Headers", `Content-Type, ${CSRF_HEADER}`);
        c.header("Access-Control-Max-Age", "600");
      }
      return c.body(null, 204);
    }
    // Only the account routes use the session: the public room routes never pay for a lookup.
    const token = c.req.path.startsWith("/api/auth/") ? getCookie(c, SESSION_COOKIE) ?? null : null;
    c.set("sessionToken", token);
    const auth = token ? await ctx.sessions.resolve(token) : null;
    c.set("auth", auth);
    if (!SAFE.has(c.req.method)) {
      if (!sameOriginRequest(c.req.raw, ctx.allowedOrigins)) {
        throw new ApiError("cross_origin", "cross-site request refused");
      }
      if (auth && c.req.path !== "/api/auth/login") {
        const sent = c.req.header(CSRF_HEADER) ?? "";
        if (!sameSecret(sent, csrfTokenFor(token!))) {
          throw new ApiError("csrf_failed", `missing or wrong ${CSRF_HEADER} header (see GET /api/auth/me)`);
        }
      }
    }
    await next();
    return undefined;
  });

  authRoutes(app, ctx);
  registrationRoute(app, ctx);
  userRoutes(app, ctx);
  groupRoutes(app, ctx);
  roomRoutes(app, ctx);
  return app;
}

function withCors(ctx: AccountsContext, c: Ctx, res: Response): Response {
  const origin = c.req.header("origin");
  if (origin && ctx.allowedOrigins.has(origin)) {
    res.headers.set("Access-Control-Allow-Origin", origin);
    res.headers.set("Access-Control-Allow-Credentials", "true");
    res.headers.set("Vary", "Origin");
  }
  return res;
}
