/**
 * Who may use the admin API (spec 3 §4.7, §5 rule 4; tphira's working
 * model). The token is taken from the `X-Admin-Token` header,
 * `Authorization: Bearer`, the query (`token` or `admin_token`) or the JSON
 * body (`token` or `admin_token`), first found wins. Then:
 *
 * - an address locked out (too many failures) or banned from the game port
 *   is refused: 403 `ip-banned-too-many-attempts` / `ip-banned`;
 * - with `admin_token` configured: the token compared in constant time, or a
 *   temporary OTP token of this address; a wrong one is 401 `unauthorized`
 *   and counts toward the lockout (`legacy.admin_max_failures` within 15
 *   minutes lock the address for `legacy.admin_lockout_minutes`); none
 *   given is 401 too, without counting;
 * - without it: only temporary tokens from `/admin/otp/verify` (401
 *   `token-expired` when expired or used from another address); no token
 *   at all is 403 `admin-disabled`.
 *
 * @module
 */

import type { LegacyContext } from "../context.ts";
import { type OtpService, secretEquals } from "./otp.ts";

/** Window in which wrong tokens are counted. */
const FAILURE_WINDOW_MS = 15 * 60_000;

/** Outcome of an admin check. */
export type AdminCheck =
  | { readonly ok: true; readonly via: "token" | "temporary" }
  | { readonly ok: false; readonly status: 401 | 403; readonly error: string };

/** Where a request may carry the admin token. */
export interface TokenSources {
  readonly header: (name: string) => string | undefined | null;
  readonly query: (name: string) => string | undefined | null;
  readonly body: unknown;
}

/** The token a request carries, or null. */
export function presentedToken(s: TokenSources): string | null {
  const bearer = /^Bearer\s+(.+)$/i.exec(s.header("authorization") ?? "")?.[1];
  const body = s.body && typeof s.body === "object" && !Array.isArray(s.body) ? s.body as Record<string, unknown> : {};
  for (
    const candidate of [
      s.header("x-admin-token"),
      bearer,
      s.query("token"),
      s.query("admin_token"),
      body.token,
      body.admin_token,
    ]
  ) {
    if (typeof candidate === "string" && candidate.trim() !== "") return candidate.trim();
  }
  return null;
}

/** Checks admin requests. */
export class AdminAuth {
  readonly #ctx: LegacyContext;
  readonly #otp: OtpService;

  constructor(ctx: LegacyContext, otp: OtpService) {
    this.#ctx = ctx;
    this.#otp = otp;
  }

  /** The permanent token, or null when none is configured. */
  get configuredToken(): string | null {
    // The running configuration (`config reload` replaces it), else the one legacy mode started with.
    const running = this.#ctx.core.ctx.config as { admin_token?: string | null };
    const token = "admin_token" in running ? running.admin_token : this.#ctx.config.admin_token;
    return token ? token : null;
  }

  /** Refusal of an address before anything else, or null. */
  addressRefusal(ip: string): AdminCheck | null {
    if (this.#ctx.lockouts.lockedUntil(ip) !== null) {
      return { ok: false, status: 403, error: "ip-banned-too-many-attempts" };
    }
    if (this.#ctx.core.bans.ipBan(ip)) return { ok: false, status: 403, error: "ip-banned" };
    return null;
  }

  /** Checks one request from `ip`. */
  check(ip: string, sources: TokenSources): AdminCheck {
    const refused = this.addressRefusal(ip);
    if (refused) return refused;
    const token = presentedToken(sources);
    const configured = this.configuredToken;
    if (token !== null) {
      if (configured !== null && secretEquals(token, configured)) {
        this.#ctx.lockouts.succeed(ip);
        return { ok: true, via: "token" };
      }
      const temp = this.#otp.check(token, ip);
      if (temp === "ok") return { ok: true, via: "temporary" };
      if (temp === "token-expired") return { ok: false, status: 401, error: "token-expired" };
    }
    if (configured === null) return { ok: false, status: 403, error: "admin-disabled" };
    if (token === null) return { ok: false, status: 401, error: "unauthorized" };
    const legacy = this.#ctx.config.legacy;
    const locked = this.#ctx.lockouts.fail(
      ip,
      legacy.admin_max_failures,
      FAILURE_WINDOW_MS,
      legacy.admin_lockout_minutes * 60_000,
    );
    if (locked) this.#ctx.log.warn("address locked out of the admin API after wrong tokens", { ip });
    return { ok: false, status: 401, error: "unauthorized" };
  }
}
