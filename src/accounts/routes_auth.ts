/**
 * `POST /api/auth/login`, `POST /api/auth/logout`, `GET /api/auth/me`
 * (spec 2 §4.1, §5 item 1).
 *
 * Login failures are limited per account name and per client address
 * (10 and 30 failures per 15 minutes): past the limit the answer is 429
 * with `Retry-After`, checked before any password hashing. An unknown name
 * and a wrong password get the same answer after the same work, so the
 * answer does not tell which names exist.
 *
 * @module
 */

import type { Hono } from "hono";
import { getCookie } from "hono/cookie";
import { type AccountsContext, type AccountsEnv, type Ctx, requireAuth, secureCookies, userJson } from "./context.ts";
import { ApiError } from "./errors.ts";
import { nameKey } from "./schema.ts";
import { CSRF_HEADER, SESSION_COOKIE } from "./sessions.ts";
import { csrfTokenFor } from "./tokens.ts";
import { boolField, onlyFields, readJson, stringField } from "./validate.ts";

/** Window of the login limits. */
export const LOGIN_WINDOW_MS = 15 * 60_000;

function setCookies(c: Ctx, values: readonly string[]): void {
  for (const v of values) c.header("Set-Cookie", v, { append: true });
}

/** Registers the login, logout and me routes. */
export function authRoutes(app: Hono<AccountsEnv>, ctx: AccountsContext): void {
  // A hash with the current parameters, checked when the name is unknown, so that case costs the same.
  let decoy: Promise<string> | null = null;

  app.post("/api/auth/login", async (c) => {
    const body = await readJson(c.req.raw);
    onlyFields(body, ["username", "password", "remember"]);
    const username = stringField(body, "username", true);
    const password = stringField(body, "password", true);
    // The original made `remember` default to true (a one-year cookie); here it is opt-in.
    const remember = boolField(body, "remember", false);
    const now = ctx.clock.now();
    const accountKey = nameKey(username);
    const ip = c.env.ip;
    const wait = Math.max(ctx.loginByAccount.retryAfter(accountKey, now), ctx.loginByIp.retryAfter(ip, now));
    if (wait > 0) {
      const secs = Math.ceil(wait / 1000);
      throw new ApiError("rate_limited", `too many failed logins; try again in ${secs} s`, {
        "Retry-After": String(secs),
      });
    }
    const user = await ctx.store.userByName(username);
    let ok: boolean;
    if (user) ok = await ctx.hasher.verify(password, user.passwordHash);
    else {
      decoy ??= ctx.hasher.hash("decoy password, never valid");
      await ctx.hasher.verify(password, await decoy);
      ok = false;
    }
    if (!user || !ok) {
      ctx.loginByAccount.fail(accountKey, now);
      ctx.loginByIp.fail(ip, now);
      ctx.log.info("login failed", { ip });
      throw new ApiError("invalid_credentials", "wrong username or password");
    }
    ctx.loginByAccount.reset(accountKey);
    if (ctx.hasher.needsRehash(user.passwordHash)) {
      await ctx.store.setPasswordHash(user.id, await ctx.hasher.hash(password));
    }
    // A new session replaces the one this browser had.
    const old = c.get("sessionToken");
    if (old) await ctx.sessions.revoke(old);
    const session = await ctx.sessions.open(user.id, remember, ip);
    await ctx.store.touchLogin(user.id, now);
    setCookies(c, ctx.sessions.cookies(session, secureCookies(ctx, c)));
    c.header(CSRF_HEADER, session.csrf);
    ctx.log.info("login", { user: user.id, remember });
    return c.json(userJson({ ...user, lastLoginTime: now }));
  });

  app.post("/api/auth/logout", async (c) => {
    const auth = requireAuth(c);
    await ctx.sessions.revoke(getCookie(c, SESSION_COOKIE)!);
    setCookies(c, ctx.sessions.clearCookies(secureCookies(ctx, c)));
    ctx.log.info("logout", { user: auth.user.id });
    return c.json({ message: "success" });
  });

  app.get("/api/auth/me", (c) => {
    const auth = requireAuth(c);
    c.header(CSRF_HEADER, csrfTokenFor(c.get("sessionToken")!));
    return c.json(userJson(auth.user));
  });
}
