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

const SECRET_PARAM = /pass|secret|token|key/i;

/** `postgres://user:secret@host/db` → `postgres://user:****@host/db`; unparsable URLs are masked whole. */
export function maskDatabaseUrl(url: string): string {
  if (!URL.canParse(url)) return MASK;
  const parsed = new URL(url);
  if (parsed.password !== "") parsed.password = MASK;
  for (const name of [...parsed.searchParams.keys()]) {
    if (SECRET_PARAM.test(name)) parsed.searchParams.set(name, MASK);
  }
  return parsed.toString();
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
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** `key = value (from …): message`, with the value masked when the key is secret. */
export function formatProblem(path: string, value: unknown, source: ConfigSource, message: string): string {
  return `${path} = ${clip(maskValue(path, value))} (${sourcePhrase(source)}): ${message}`;
}
