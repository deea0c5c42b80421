/**
 * Value display with secrets masked, shared by error messages and `check-config` output so that a secret can never
 * be printed by either.
 *
 * @module
 */

import { keyByPath } from "./keys.ts";
import { type ConfigSource, sourcePhrase } from "./sources.ts";

/** Shown instead of a secret value. */
export const MASK = "****";

/** Names (and values) of query parameters that may carry a secret; also marks a suspicious path. */
const SECRET_PARAM = /pass|secret|token|key|auth|cred/i;

/** `scheme://authority` followed by the rest; `scheme:rest` without `//` (an opaque URL) does not match. */
const AUTHORITY_URL = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/([^/?#]*)/;

/**
 * `postgres://user:secret@host/db` -> `postgres://user:****@host/db`. Fail safe: a value whose shape is not clearly
 * `scheme://[user[:password]@]host[/path][?query]` is masked whole (`notaurl:hunter2`, a key=value DSN such as
 * `host=x password=y`, two `@` in the authority, whitespace), because another reader -- the driver, a person -- may
 * find a password where this parser finds none. Secret-looking query parameters and any fragment are masked too.
 */
export function maskDatabaseUrl(url: string): string {
  // Whitespace and control characters: a DSN or a pasted mistake; the URL parser would silently drop or encode them.
  if (/\s/.test(url) || [...url].some((c) => c < " " || c === "\x7f")) return MASK;
  const authority = AUTHORITY_URL.exec(url)?.[1];
  if (authority === undefined || !URL.canParse(url)) return MASK;
  // More than one `@` (or a backslash) makes the split between password and host a matter of parser opinion.
  if (authority.split("@").length > 2 || authority.includes("\\")) return MASK;
  const parsed = new URL(url);
  // A database name holds no `@` or `:`; with them the path likely carries credentials (`postgres:///u:pw@host`).
  const path = safeDecode(parsed.pathname);
  if (/[@:]/.test(path) || SECRET_PARAM.test(path)) return MASK;
  if (parsed.password !== "") parsed.password = MASK;
  for (const [name, value] of [...parsed.searchParams]) {
    if (SECRET_PARAM.test(name) || SECRET_PARAM.test(value)) parsed.searchParams.set(name, MASK);
  }
  if (parsed.hash !== "") parsed.hash = MASK;
  return parsed.toString();
}

/** `decodeURIComponent` that leaves malformed escapes as they are. */
function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** True when the key at `path`, or a section or key it lies under, is marked secret in the schema. */
export function isSecretPath(path: string): boolean {
  const segments = path.replace(/\[\d+\]/g, "").split(".");
  for (let i = 1; i <= segments.length; i++) {
    if (keyByPath(segments.slice(0, i).join("."))?.secret) return true;
  }
  return false;
}

/** Plain display: JSON for strings, lists and maps, `null` for null. */
export function displayValue(value: unknown): string {
  if (value === undefined) return "(missing)";
  return JSON.stringify(value) ?? String(value);
}

/**
 * Display of the value of `path` with secrets masked: `(unset)` when null or empty, the database URL with its
 * password masked, `****` for any other secret.
 */
export function maskValue(path: string, value: unknown): string {
  if (!isSecretPath(path)) return displayValue(value);
  if (value === null || value === undefined || value === "") return "(unset)";
  if (path === "database_url" && typeof value === "string") return JSON.stringify(maskDatabaseUrl(value));
  return MASK;
}

/** Shortens long displays in error messages. */
function clip(text: string, max = 80): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}\u2026`;
}

/** `key = value (from ...): message`, with the value masked when the key is secret. */
export function formatProblem(path: string, value: unknown, source: ConfigSource, message: string): string {
  return `${path} = ${clip(maskValue(path, value))} (${sourcePhrase(source)}): ${message}`;
}
