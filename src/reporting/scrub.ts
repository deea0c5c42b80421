/**
 * Scrubbing of error reports before they leave the process: users' tokens
 * and the server's secrets never reach the error-reporting service. Three
 * nets, each catching what the others might miss:
 *
 * 1. the secret values of the configuration (every key marked secret, and
 *    the password inside `database_url`), wherever they appear in text;
 * 2. any field whose name says it holds a credential (`token`,
 *    `password`, `secret`, `authorization`, `cookie`, `dsn`, `api_key`, ...);
 * 3. credential-shaped text: `token=...`, `password: ...`, `Bearer ...`, and
 *    the password in `scheme://user:password@host` URLs.
 *
 * @module
 */

import { type Config, SECRET_KEYS, valueAt } from "../config/mod.ts";

/** What replaces a secret. */
export const REDACTED = "[redacted]";

const SECRET_FIELD = /token|passw|secret|authori[sz]ation|cookie|dsn|api[-_]?key|private[-_]?key|credential/i;
const SECRET_TEXT: readonly [RegExp, string][] = [
  [/\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{6,}/gi, `$1 ${REDACTED}`],
  [
    /\b([A-Za-z_]*(?:token|passw(?:or)?d|secret|api[-_]?key|auth)[A-Za-z_]*)(["']?\s*[=:]\s*["']?)(?!bearer\b|basic\b|\[redacted\])[^\s"'&,;)}\]]+/gi,
    `$1$2${REDACTED}`,
  ],
  [/(\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]*):[^\s@/]+@/gi, `$1:${REDACTED}@`],
];
/** Nesting followed at most (reports are small; deeper parts are dropped). */
const MAX_DEPTH = 12;

/** Secret values of `config` worth looking for (at least 4 characters, so `redacted` never eats ordinary words). */
export function configSecrets(config: Config): string[] {
  const values = new Set<string>();
  for (const path of SECRET_KEYS) {
    const value = valueAt(config, path);
    if (typeof value !== "string") continue;
    values.add(value);
    if (URL.canParse(value)) {
      const url = new URL(value);
      if (url.password) {
        values.add(url.password);
        values.add(decodeURIComponent(url.password));
      }
      if (url.username && path === "sentry_dsn") values.add(url.username);
    }
  }
  return [...values].filter((v) => v.length >= 4).sort((a, b) => b.length - a.length);
}

/** A scrubber of report text and report objects. */
export class Scrubber {
  readonly #secrets: readonly string[];

  /** `secrets`: exact values to redact wherever they appear (a user's token when known, the config's). */
  constructor(secrets: readonly string[] = []) {
    this.#secrets = [...secrets].filter((s) => s.length >= 4).sort((a, b) => b.length - a.length);
  }

  /** Text with every secret and credential-shaped part replaced. */
  text(value: string): string {
    let out = value;
    for (const secret of this.#secrets) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
    for (const [pattern, replacement] of SECRET_TEXT) out = out.replace(pattern, replacement);
    return out;
  }

  /** A deep copy of a JSON-like value with secret fields and texts redacted. */
  value<T>(value: T, depth = 0): T {
    if (typeof value === "string") return this.text(value) as T;
    if (value === null || typeof value !== "object") return value;
    if (depth >= MAX_DEPTH) return REDACTED as T;
    if (Array.isArray(value)) return value.map((v) => this.value(v, depth + 1)) as T;
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
      out[key] =
        SECRET_FIELD.test(key) && v !== null && v !== undefined && typeof v !== "boolean" && typeof v !== "number"
          ? REDACTED
          : this.value(v, depth + 1);
    }
    return out as T;
  }
}
