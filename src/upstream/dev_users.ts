/**
 * Registry of development accounts: deterministic ones derived from tokens
 * and e-mails (see `dev_accounts.ts`) plus accounts tests register with a
 * custom name, language, credentials or token. Tokens live in memory only.
 *
 * @module
 */

import {
  DEV_PASSWORD,
  DEV_WELL_KNOWN_USERS,
  devEmail,
  devToken,
  devUserName,
  fnv1a32,
  isDevUserId,
  parseDevEmail,
  parseDevToken,
} from "./dev_accounts.ts";

/** An account as `/me` reports it. */
export interface DevUser {
  id: number;
  name: string;
  language: string;
}

/** Fields of {@link DevUsers.add}. */
export interface DevUserInit {
  id: number;
  name?: string;
  language?: string;
  /** Login e-mail (default `user<id>@dev.local`). */
  email?: string;
  /** Login password (default {@link DEV_PASSWORD}). */
  password?: string;
  /** An extra token (<= 32 bytes) resolving to this account, besides `devToken(id, language)`. */
  token?: string;
  /** Ranking score of the public profile (default derived from the id). */
  rks?: number;
  /** Avatar URL of the public profile (default `null`). */
  avatar?: string | null;
}

interface Account extends DevUser {
  email: string;
  password: string;
  rks: number | undefined;
  avatar: string | null;
}

/** A public profile as `GET /user/{id}` reports it. */
export interface DevProfile {
  id: number;
  name: string;
  avatar: string | null;
  rks: number;
}

/** Default ranking score of a development user: 0.00-15.99, derived from the id. */
export function devRks(id: number): number {
  return (fnv1a32(`chorus-dev-rks:${id}`) % 1600) / 100;
}

/** Registered development accounts on top of the deterministic ones. */
export class DevUsers {
  readonly #accounts = new Map<number, Account>();
  readonly #tokens = new Map<string, number>();
  readonly #hidden = new Set<number>();

  /** Registers (or replaces) an account; returns its dev token `devToken(id, language)`. */
  add(init: DevUserInit): string {
    if (!isDevUserId(init.id)) throw new RangeError(`Cannot add user: id ${init.id} is not a positive i32`);
    const language = init.language ?? "en-US";
    const token = devToken(init.id, language);
    if (init.token !== undefined) {
      if (new TextEncoder().encode(init.token).length > 32) {
        throw new RangeError("Cannot add user: token over 32 bytes");
      }
      this.#tokens.set(init.token, init.id);
    }
    this.#accounts.set(init.id, {
      id: init.id,
      name: init.name ?? devUserName(init.id),
      language,
      email: (init.email ?? devEmail(init.id)).toLowerCase(),
      password: init.password ?? DEV_PASSWORD,
      rks: init.rks,
      avatar: init.avatar ?? null,
    });
    this.#hidden.delete(init.id);
    return token;
  }

  /** Makes `id` unknown to the public profile routes (`/user/{id}` 404, left out of searches). */
  hide(id: number): void {
    this.#hidden.add(id);
  }

  /** The public profile of `id`, or `null` for an invalid or hidden id. */
  profile(id: number): DevProfile | null {
    if (!isDevUserId(id) || this.#hidden.has(id)) return null;
    const a = this.#accounts.get(id);
    return { id, name: a?.name ?? devUserName(id), avatar: a?.avatar ?? null, rks: a?.rks ?? devRks(id) };
  }

  /**
   * Profiles whose name contains `text` (case-insensitively), like the API's search: registered accounts,
   * the well-known names and `Player<id>` for the id the text names.
   */
  search(text: string): DevProfile[] {
    const needle = text.toLowerCase();
    const ids = new Set<number>();
    for (const a of this.#accounts.values()) if (a.name.toLowerCase().includes(needle)) ids.add(a.id);
    for (const [id, name] of Object.entries(DEV_WELL_KNOWN_USERS)) {
      if (name.toLowerCase().includes(needle) && !this.#accounts.has(Number(id))) ids.add(Number(id));
    }
    const m = /^player([1-9]\d{0,9})$/.exec(needle);
    if (m && isDevUserId(Number(m[1])) && !this.#accounts.has(Number(m[1]))) ids.add(Number(m[1]));
    return [...ids].sort((a, b) => a - b).flatMap((id) => this.profile(id) ?? []);
  }

  /** The account behind a token, or `null` (unknown or malformed token). */
  forToken(token: string): DevUser | null {
    const custom = this.#tokens.get(token);
    if (custom !== undefined) return this.#user(custom, "en-US");
    const parsed = parseDevToken(token);
    return parsed ? this.#user(parsed.id, parsed.language) : null;
  }

  /** Checks credentials; returns the account and its token, or `null`. */
  login(email: string, password: string): { user: DevUser; token: string } | null {
    const e = email.trim().toLowerCase();
    for (const a of this.#accounts.values()) {
      if (a.email !== e) continue;
      return a.password === password ? { user: this.#user(a.id, a.language), token: devToken(a.id, a.language) } : null;
    }
    const id = parseDevEmail(e);
    // A registered account replaces the deterministic credentials of its id.
    if (id === null || password !== DEV_PASSWORD || this.#accounts.has(id)) return null;
    return { user: this.#user(id, "en-US"), token: devToken(id) };
  }

  /** The display name of `id` (registered or deterministic); `null` for an id outside 1..2^31-1. */
  name(id: number): string | null {
    if (!isDevUserId(id)) return null;
    return this.#accounts.get(id)?.name ?? devUserName(id);
  }

  #user(id: number, language: string): DevUser {
    const a = this.#accounts.get(id);
    return a ? { id: a.id, name: a.name, language: a.language } : { id, name: devUserName(id), language };
  }
}
