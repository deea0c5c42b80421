/**
 * Deterministic development accounts: a token encodes its user id and
 * language, so any test can mint a token for any user without setup.
 *
 * Token: `dev.<id>.<language>.<check>` where `check` is 6 hex digits of
 * FNV-1a over `chorus-dev:<id>:<language>`; at most 32 bytes (the protocol's
 * `Varchar<32>`). Login: e-mail `user<id>@dev.local` (or `<name>@dev.local`
 * for the well-known names) with password {@link DEV_PASSWORD}.
 *
 * @module
 */

/** Password of every deterministic development account. */
export const DEV_PASSWORD = "password";

/** Names of a few well-known development user ids; others are `Player<id>`. */
export const DEV_WELL_KNOWN_USERS: Readonly<Record<number, string>> = {
  100: "Alice",
  200: "Bob",
  300: "Carol",
  400: "Dave",
  500: "Eve",
};

const MAX_ID = 2147483647;
const LANGUAGE = /^[A-Za-z0-9_-]{1,10}$/;
const TOKEN = /^dev\.([1-9]\d{0,9})\.([A-Za-z0-9_-]{1,10})\.([0-9a-f]{6})$/;

/** 32-bit FNV-1a of a string's UTF-8 bytes (deterministic dev data, not security). */
export function fnv1a32(text: string): number {
  let h = 0x811c9dc5;
  for (const b of new TextEncoder().encode(text)) {
    h ^= b;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

function check(id: number, language: string): string {
  return (fnv1a32(`chorus-dev:${id}:${language}`) & 0xffffff).toString(16).padStart(6, "0");
}

/** Whether `id` is a valid development user id (1..2^31-1). */
export function isDevUserId(id: number): boolean {
  return Number.isInteger(id) && id >= 1 && id <= MAX_ID;
}

/** The development token of user `userId` (<= 32 bytes); `language` is 1..10 of `[A-Za-z0-9_-]`. */
export function devToken(userId: number, language = "en-US"): string {
  if (!isDevUserId(userId)) throw new RangeError(`Cannot make a dev token: user id ${userId} is not in 1..${MAX_ID}`);
  if (!LANGUAGE.test(language)) throw new RangeError(`Cannot make a dev token: language "${language}" is invalid`);
  return `dev.${userId}.${language}.${check(userId, language)}`;
}

/** Decodes a development token; `null` for anything else (including a wrong check). */
export function parseDevToken(token: string): { id: number; language: string } | null {
  const m = TOKEN.exec(token);
  if (!m) return null;
  const id = Number(m[1]);
  const language = m[2]!;
  if (!isDevUserId(id) || check(id, language) !== m[3]) return null;
  return { id, language };
}

/** Default display name of a development user. */
export function devUserName(id: number): string {
  return DEV_WELL_KNOWN_USERS[id] ?? `Player${id}`;
}

/** Default login e-mail of a development user. */
export function devEmail(id: number): string {
  return `user${id}@dev.local`;
}

/** The user id a deterministic login e-mail names (`user<id>@dev.local` or a well-known name), else `null`. */
export function parseDevEmail(email: string): number | null {
  const e = email.trim().toLowerCase();
  const m = /^user([1-9]\d{0,9})@dev\.local$/.exec(e);
  if (m) {
    const id = Number(m[1]);
    return isDevUserId(id) ? id : null;
  }
  for (const [id, name] of Object.entries(DEV_WELL_KNOWN_USERS)) {
    if (e === `${name.toLowerCase()}@dev.local`) return Number(id);
  }
  return null;
}
