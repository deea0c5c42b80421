/**
 * What the account backend's route modules share: the stores, the session
 * manager, the room table and its listeners, the proof registry, the login
 * limits and the security settings -- built once by `service.ts`. Also the
 * Hono environment and the small helpers every route uses.
 *
 * @module
 */

import type { Context } from "hono";
import type { Clock } from "../util/clock.ts";
import type { Logger } from "../util/log.ts";
import { ApiError } from "./errors.ts";
import type { GameDirectory } from "./game_accounts.ts";
import type { PasswordHasher } from "./passwords.ts";
import type { Actor, Decision } from "./permissions.ts";
import type { AttemptLimiter } from "./rate_limit.ts";
import type { RoomSource } from "./room_source.ts";
import type { RoomTable } from "./room_table.ts";
import type { Sessions } from "./sessions.ts";
import type { SseHub } from "./sse.ts";
import type { AccountStore } from "./store.ts";
import type { UserRecord } from "./store_rows.ts";
import type { SessionWithUser, VisitedStore } from "./store_sessions.ts";
import type { Verifications } from "./verification.ts";

/** When cookies get `Secure`: always, never, or when the request came over https (`auto`). */
export type CookieSecure = "auto" | "always" | "never";

/** The resolved context of the service. */
export interface AccountsContext {
  readonly store: AccountStore;
  readonly visited: VisitedStore;
  readonly sessions: Sessions;
  readonly hasher: PasswordHasher;
  readonly games: GameDirectory;
  readonly clock: Clock;
  readonly log: Logger;
  readonly rooms: RoomTable;
  readonly source: RoomSource;
  /** Open `/api/rooms/listen` streams. */
  readonly listeners: SseHub;
  /** Open registration streams. */
  readonly registrations: SseHub;
  readonly verifications: Verifications;
  readonly loginByAccount: AttemptLimiter;
  readonly loginByIp: AttemptLimiter;
  /** Registration attempts per client address (each costs a game API lookup and a hash). */
  readonly registrationsByIp: AttemptLimiter;
  /** Origins (besides the service's own) allowed to call with credentials. */
  readonly allowedOrigins: ReadonlySet<string>;
  readonly cookieSecure: CookieSecure;
  /** Keep-alive of profile R streams and heartbeat of registration streams, ms. */
  readonly keepAliveMs: number;
  /** How often a user's game data is refreshed, ms. */
  readonly syncIntervalMs: number;
}

/** Hono environment of the service. */
export type AccountsEnv = {
  Bindings: {
    /** Client address (from `X-Forwarded-For` when the proxy is trusted). */
    readonly ip: string;
    /** True when the client used https (trusted `X-Forwarded-Proto`, or TLS). */
    readonly secure: boolean;
  };
  Variables: {
    /** The live session of the request's cookie, or null. */
    auth: SessionWithUser | null;
    /** The session token of the request's cookie, if any. */
    sessionToken: string | null;
  };
};

/** A route handler's context. */
export type Ctx = Context<AccountsEnv>;

/** The request's session, or 401. */
export function requireAuth(c: Ctx): SessionWithUser {
  const auth = c.get("auth");
  if (!auth) throw new ApiError("unauthenticated", "log in first (no valid session cookie)");
  return auth;
}

/** The acting user of a session. */
export function actorOf(user: UserRecord): Actor {
  return { id: user.id, permissions: user.permissions };
}

/** Throws 403 `permission_denied` for a refusal. */
export function enforce(decision: Decision): void {
  if (!decision.ok) throw new ApiError("permission_denied", decision.reason);
}

/** Whether cookies set on this request get `Secure`. */
export function secureCookies(ctx: AccountsContext, c: Ctx): boolean {
  return ctx.cookieSecure === "always" || (ctx.cookieSecure === "auto" && c.env.secure);
}

/** ISO 8601 (UTC) of epoch milliseconds, or null. */
export function isoTime(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

/** The `User` resource (spec 2 §2.1; also `GET /api/auth/me`). */
export function userJson(u: UserRecord): Record<string, unknown> {
  return {
    id: u.id,
    group_id: u.groupId,
    username: u.username,
    game_id: u.gameId,
    game_username: u.gameUsername,
    game_rks: u.gameRks,
    game_avatar: u.gameAvatar,
    register_time: isoTime(u.registerTime),
    last_login_time: isoTime(u.lastLoginTime),
    last_sync_time: isoTime(u.lastSyncTime),
  };
}
