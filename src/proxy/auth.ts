/**
 * `POST /auth/login` and `GET /auth/me` (spec 1 §4.1, §5; extended.md
 * §5.4). A login is forwarded to the game API's `/login`; its answer becomes
 * a session token ({@link SessionTokens}) that expires with the game
 * account's token. `/auth/me` answers the game account's profile, cached
 * per user for a few minutes. Statuses and bodies are listed in
 * `docs/proxy.md`.
 *
 * @module
 */

import { jsonError } from "../http/errors.ts";
import { type Upstream, type UpstreamAccount, UpstreamError } from "../upstream/mod.ts";
import type { Clock } from "../util/clock.ts";
import type { Logger } from "../util/log.ts";
import { parseExpiry, type SessionTokens, TokenError, type TokenSession } from "./session_token.ts";
import { TtlCache } from "./ttl_cache.ts";

/** `ProfileResponse` (spec 1 §2.2). */
export interface ProfileJson {
  readonly id: number;
  readonly username: string;
  readonly game_avatar: string | null;
  readonly game_id: number;
  readonly game_rks: number;
  readonly game_username: string;
  /** ISO 8601, or null when the game API does not say. */
  readonly register_time: string | null;
  /** ISO 8601, or null when the game API does not say. */
  readonly last_login_time: string | null;
}

/** Options of {@link ProxyAuth}. */
export interface ProxyAuthOptions {
  readonly upstream: Upstream;
  readonly tokens: SessionTokens;
  readonly clock: Clock;
  readonly log: Logger;
  /** Lifetime of a session when the game API gives no expiry, ms (default 24 h). */
  readonly defaultLifetimeMs?: number;
  /** Logins forwarded at once at most (default 32). */
  readonly maxConcurrentLogins?: number;
  /** How long a profile is served from the cache, ms (default 5 minutes). */
  readonly profileTtlMs?: number;
}

/** Longest accepted e-mail and password (characters). */
const MAX_EMAIL = 320;
const MAX_PASSWORD = 1024;
/** Time budget of one upstream call, ms. */
const BUDGET_MS = 10_000;

/** Login, profile and token checks of the proxy. */
export class ProxyAuth {
  readonly #o: ProxyAuthOptions;
  readonly #profiles: TtlCache<number, ProfileJson>;
  #loginsInFlight = 0;

  constructor(options: ProxyAuthOptions) {
    this.#o = options;
    this.#profiles = new TtlCache(options.clock, options.profileTtlMs ?? 5 * 60_000, 10_000);
  }

  /** `POST /auth/login`. */
  async login(req: Request): Promise<Response> {
    const type = req.headers.get("content-type") ?? "";
    if (!/^application\/json\b/i.test(type)) {
      return jsonError(415, "expected a JSON body (Content-Type: application/json)");
    }
    let body: unknown;
    try {
      body = await req.json();
    } catch {
      return jsonError(400, "invalid JSON body");
    }
    const { email, password } = (body ?? {}) as { email?: unknown; password?: unknown };
    if (typeof email !== "string" || typeof password !== "string" || email === "" || password === "") {
      return jsonError(400, "email and password are required strings");
    }
    if (email.length > MAX_EMAIL || password.length > MAX_PASSWORD) return jsonError(400, "email or password too long");
    if (this.#loginsInFlight >= (this.#o.maxConcurrentLogins ?? 32)) {
      return jsonError(503, "too many logins in progress; try again", { "retry-after": "1" });
    }
    this.#loginsInFlight++;
    try {
      const login = await this.#o.upstream.login(email, password, { budgetMs: BUDGET_MS });
      const now = this.#o.clock.now();
      const expiresAt = parseExpiry(login.expireAt) ?? now + (this.#o.defaultLifetimeMs ?? 86_400_000);
      if (expiresAt <= now + 1000) return jsonError(502, "the game API returned an expired token");
      const token = await this.#o.tokens.issue(login.id, login.token, expiresAt);
      this.#o.log.info("spectator logged in", { user: login.id });
      return Response.json({ token });
    } catch (error) {
      return this.#upstreamFailure(error, "invalid email or password");
    } finally {
      this.#loginsInFlight--;
    }
  }

  /** `GET /auth/me`. */
  async me(req: Request): Promise<Response> {
    const session = await this.session(req, false);
    if (session instanceof Response) return session;
    const cached = this.#profiles.get(session.id);
    if (cached) return Response.json(cached);
    try {
      const profile = await this.#o.upstream.profile(session.gameToken, { budgetMs: BUDGET_MS });
      if (profile.id !== session.id) return jsonError(401, "the game account changed; log in again");
      const json = profileJson(profile);
      this.#profiles.set(session.id, json);
      return Response.json(json);
    } catch (error) {
      return this.#upstreamFailure(error, "the game account session ended; log in again");
    }
  }

  /**
   * The session of a request (`Authorization: Bearer <token>`, or when
   * `query` the `token` query parameter for WebSockets, which cannot send
   * headers from a browser), or a 401 response saying why not.
   */
  async session(req: Request, query: boolean): Promise<TokenSession | Response> {
    const header = req.headers.get("authorization");
    let token: string | null = null;
    if (header !== null) {
      const m = /^Bearer +(\S+)\s*$/i.exec(header);
      if (!m) return unauthorized("invalid Authorization header (expected: Bearer <token>)");
      token = m[1]!;
    } else if (query) {
      token = new URL(req.url).searchParams.get("token");
      if (!token) return unauthorized("missing token (Authorization header or token query parameter)");
    } else return unauthorized("missing Authorization header");
    try {
      return await this.#o.tokens.verify(token);
    } catch (error) {
      return unauthorized(error instanceof TokenError ? error.message : "invalid token");
    }
  }

  #upstreamFailure(error: unknown, refused: string): Response {
    if (error instanceof UpstreamError) {
      if (error.kind === "http" && error.status !== undefined) {
        if (error.status === 429) return jsonError(429, "the game API is busy; try again later");
        if (error.status >= 400 && error.status < 500 && error.status !== 408) return unauthorized(refused);
      }
      this.#o.log.warn("game API call failed", { endpoint: error.endpoint, reason: error.reason });
      return jsonError(502, `cannot reach the game API: ${error.reason}`);
    }
    throw error;
  }
}

function unauthorized(message: string): Response {
  return jsonError(401, message, { "www-authenticate": 'Bearer realm="chorus-proxy"' });
}

function isoOrNull(text: string | null): string | null {
  if (text === null) return null;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
}

/** `ProfileResponse` of a game account (spec 1 §2.2; the proxy keeps no accounts: `id` is the game id). */
export function profileJson(p: UpstreamAccount): ProfileJson {
  return {
    id: p.id,
    username: p.name,
    game_avatar: p.avatar,
    game_id: p.id,
    game_rks: p.rks ?? 0,
    game_username: p.name,
    register_time: isoOrNull(p.joined),
    last_login_time: isoOrNull(p.lastLogin),
  };
}
