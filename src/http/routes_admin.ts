/**
 * The admin panel's JSON endpoints under `/admin/api/` (spec 2 §4.2): the
 * session, login and logout; disband a room; kick a player from a room or
 * the server; ban and unban a player id. The overview (`state`) and the room
 * switches are in `routes_admin_panel.ts`, over the helpers exported here.
 * Spec 2 leaves these endpoints open; they are listed in `docs/http.md`.
 * Each action is an adapter over its operation
 * (`src/ops`), called as the `http-admin` actor: parse -> call -> render,
 * with the operation's error code mapped to an HTTP status.
 *
 * Security: a session cookie `chorus_admin` (HttpOnly, SameSite=Strict,
 * Path=/admin, Secure over https) from `POST /admin/api/login`; every
 * state-changing request must be JSON-typed (POST) and, when the browser
 * says where it comes from (`Origin`, `Sec-Fetch-Site`), same-origin. The
 * panel is operator-only, so it lists hidden rooms too, marked `hidden`.
 *
 * @module
 */

import type { Context, Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import * as z from "../util/zod.ts";
import type { Actor, OpsError } from "../ops/mod.ts";
import { roomIdProblem } from "../protocol/mod.ts";
import { ADMIN_SECURITY_HEADERS } from "./admin_page.ts";
import type { HttpContext, HttpEnv } from "./context.ts";
import { jsonError, opsErrorResponse, parseUserId } from "./errors.ts";

/** Name of the session cookie. */
export const ADMIN_COOKIE = "chorus_admin";
/** Largest admin request body. */
const ADMIN_BODY_LIMIT = 4096;

const userId = z.int().check(z.gte(-2147483648), z.lte(2147483647));
const LoginBody = z.object({ password: z.string().check(z.maxLength(1024)) });
const BanBody = z.object({ user_id: userId, reason: z.optional(z.string().check(z.maxLength(200))) });
const KickBody = z.object({ user_id: userId });
const DisconnectBody = z.object({ reason: z.optional(z.string().check(z.maxLength(200))) });

/** A request to an admin endpoint. */
export type AdminContext = Context<HttpEnv>;

/** The actor admin requests call operations as: the panel, by client address. */
export function adminActor(c: AdminContext): Actor {
  return { kind: "http-admin", ip: c.env?.ip ?? "unknown" };
}

/**
 * Calls an operation as the panel; its failure becomes the HTTP error
 * response (`message` rewrites the text per error).
 */
export async function callAdminOp(
  ctx: HttpContext,
  c: AdminContext,
  name: string,
  args: unknown,
  message: (e: OpsError) => string = (e) => e.message,
): Promise<unknown> {
  const outcome = await ctx.ops.tryCall(name, args, adminActor(c));
  if (outcome.ok) return outcome.value;
  return opsErrorResponse(outcome.error, message(outcome.error));
}

function secure(c: AdminContext): boolean {
  return c.env?.secure === true || new URL(c.req.url).protocol === "https:";
}

/** Refuses cross-site state changes (CSRF): non-JSON POSTs and foreign origins. */
function crossSiteProblem(c: AdminContext): Response | null {
  const method = c.req.method;
  if (method === "GET" || method === "HEAD") return null;
  const site = c.req.header("sec-fetch-site");
  if (site && site !== "same-origin" && site !== "none") return jsonError(403, "cross-site request refused");
  const origin = c.req.header("origin");
  if (origin && origin !== "null") {
    let host: string;
    try {
      host = new URL(origin).host;
    } catch {
      return jsonError(403, "cross-site request refused");
    }
    // The request URL carries the Host header (a reverse proxy must pass it on).
    if (host !== new URL(c.req.url).host) return jsonError(403, "cross-site request refused");
  } else if (origin === "null") return jsonError(403, "cross-site request refused");
  if (method === "POST" && !(c.req.header("content-type") ?? "").toLowerCase().startsWith("application/json")) {
    return jsonError(415, "expected Content-Type: application/json");
  }
  return null;
}

/** Parses the JSON body with `schema`; a 400 response when it does not fit. */
export async function readAdminBody<T>(c: AdminContext, schema: z.ZodMiniType<T>): Promise<T | Response> {
  let raw: unknown;
  try {
    const text = await c.req.text();
    raw = text === "" ? {} : JSON.parse(text);
  } catch {
    return jsonError(400, "invalid JSON body");
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) return jsonError(400, `invalid request: ${parsed.error.issues[0]?.path.join(".") || "body"}`);
  return parsed.data;
}

/** Registers the admin JSON endpoints. */
export function adminApiRoutes(app: Hono<HttpEnv>, ctx: HttpContext): void {
  const { adminAuth: auth, log } = ctx;
  const call = (c: AdminContext, name: string, args: unknown, message?: (e: OpsError) => string) =>
    callAdminOp(ctx, c, name, args, message);
  app.use("/admin/api/*", async (c, next) => {
    await next();
    for (const [k, v] of Object.entries(ADMIN_SECURITY_HEADERS)) c.res.headers.set(k, v);
  });
  app.use(
    "/admin/api/*",
    bodyLimit({ maxSize: ADMIN_BODY_LIMIT, onError: () => jsonError(413, "request body too large") }),
  );
  app.use("/admin/api/*", async (c, next) => {
    const refused = crossSiteProblem(c);
    if (refused) return refused;
    const path = c.req.path;
    if (path === "/admin/api/login" || path === "/admin/api/session") return next();
    if (!auth.check(getCookie(c, ADMIN_COOKIE))) return jsonError(401, "login required");
    await next();
  });

  app.get(
    "/admin/api/session",
    (c) => c.json({ enabled: auth.enabled, authenticated: auth.check(getCookie(c, ADMIN_COOKIE)) }),
  );
  app.post("/admin/api/login", async (c) => {
    const parsed = await readAdminBody(c, LoginBody);
    if (parsed instanceof Response) return parsed;
    const ip = c.env?.ip ?? "unknown";
    const outcome = auth.login(parsed.password, ip);
    if (outcome.ok) {
      log.info("admin logged in", { ip });
      setCookie(c, ADMIN_COOKIE, outcome.token, {
        httpOnly: true,
        sameSite: "Strict",
        path: "/admin",
        secure: secure(c),
      });
      return c.json({ ok: true });
    }
    switch (outcome.reason) {
      case "disabled":
        return jsonError(503, "admin panel disabled: admin_password is not set");
      case "rate-limited":
        log.warn("admin login rate-limited", { ip });
        return jsonError(429, "too many login attempts", { "retry-after": String(outcome.retryAfterSecs) });
      case "wrong-password":
        log.warn("admin login failed: wrong password", { ip });
        return jsonError(401, "wrong password");
    }
  });
  app.post("/admin/api/logout", (c) => {
    auth.logout(getCookie(c, ADMIN_COOKIE));
    deleteCookie(c, ADMIN_COOKIE, { path: "/admin", httpOnly: true, sameSite: "Strict", secure: secure(c) });
    return c.json({ ok: true });
  });

  app.post("/admin/api/rooms/:name/disband", async (c) => {
    const name = c.req.param("name");
    if (roomIdProblem(name)) return jsonError(400, `invalid room name ${JSON.stringify(name)}`);
    const r = await call(c, "room.close", { room_id: name });
    if (r instanceof Response) return r;
    log.info("admin disbanded a room", { room: name });
    return c.json({ ok: true });
  });
  app.post("/admin/api/rooms/:name/kick", async (c) => {
    const name = c.req.param("name");
    if (roomIdProblem(name)) return jsonError(400, `invalid room name ${JSON.stringify(name)}`);
    const parsed = await readAdminBody(c, KickBody);
    if (parsed instanceof Response) return parsed;
    const r = await call(
      c,
      "room.kick",
      { room_id: name, user_id: parsed.user_id },
      (e) => e.code === "USER_NOT_FOUND" ? `user ${parsed.user_id} is not in room ${name}` : e.message,
    );
    if (r instanceof Response) return r;
    log.info("admin kicked a player from a room", { room: name, user: parsed.user_id });
    return c.json({ ok: true });
  });
  app.post("/admin/api/users/:id/disconnect", async (c) => {
    const id = parseUserId(c.req.param("id"));
    if (id === null) return jsonError(400, `invalid user id ${JSON.stringify(c.req.param("id"))}`);
    const parsed = await readAdminBody(c, DisconnectBody);
    if (parsed instanceof Response) return parsed;
    const r = await call(
      c,
      "player.kick",
      { user_id: id, reason: parsed.reason },
      (e) => e.code === "USER_NOT_FOUND" ? `user ${id} not found` : e.message,
    );
    if (r instanceof Response) return r;
    log.info("admin disconnected a user", { user: id });
    return c.json({ ok: true });
  });
  app.post("/admin/api/bans", async (c) => {
    const parsed = await readAdminBody(c, BanBody);
    if (parsed instanceof Response) return parsed;
    const r = await call(c, "player.ban", { user_id: parsed.user_id, reason: parsed.reason });
    if (r instanceof Response) return r;
    log.info("admin banned a user", { user: parsed.user_id });
    return c.json({ ok: true });
  });
  app.delete("/admin/api/bans/:id", async (c) => {
    const id = parseUserId(c.req.param("id"));
    if (id === null) return jsonError(400, `invalid user id ${JSON.stringify(c.req.param("id"))}`);
    const r = await call(c, "player.unban", { user_id: id });
    if (r instanceof Response) return r;
    log.info("admin unbanned a user", { user: id });
    return c.json({ ok: true });
  });
}
