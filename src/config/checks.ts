/**
 * Checks across keys and the profile rules. `Production` refuses default or weak secrets and plain-http endpoints;
 * the other profiles only warn about the same findings.
 *
 * Decision on `openuds.enabled` with an empty `auth_token`: allowed in every profile, because an empty token means
 * approval mode (spec 3 §4.5: each client waits for `approve openuds <id>` at the console) rather than open access;
 * Production prints a warning.
 *
 * @module
 */

import type { Config } from "./schema.ts";
import { formatProblem } from "./mask.ts";
import { RETENTION_TIME_COLUMNS, retentionColumns } from "./retention_tables.ts";
import { type ConfigSource, DEFAULT_SOURCE } from "./sources.ts";

/** Well-known passwords refused for `admin_password` in Production (compared case-insensitively). */
export const WEAK_PASSWORDS: readonly string[] = [
  "admin",
  "administrator",
  "password",
  "passw0rd",
  "changeme",
  "change-me",
  "secret",
  "root",
  "123456",
  "12345678",
  "qwerty",
  "chorus",
  "phira",
];

/** Publicly known debug secrets refused for `service_secret_key` in Production (from public server sources). */
export const PUBLIC_SECRETS: readonly string[] = [
  "some_random_secret_key_for_debugging",
  "dev_secret_local",
  "super-secret-key",
];

/** Minimum lengths enforced in Production. */
export const MIN_ADMIN_PASSWORD_LENGTH = 8;
/** Minimum `service_secret_key` length enforced in Production. */
export const MIN_SERVICE_SECRET_LENGTH = 16;

/** Problems (refuse to start) and warnings. */
export interface CheckResult {
  readonly problems: string[];
  readonly warnings: string[];
  /** What Production would refuse, in full, in profile Development (not warnings there; empty otherwise). */
  readonly production: string[];
}

type Finding = { path: string; value: unknown; message: string };

function isHttps(url: string | null): boolean {
  return url === null || url.startsWith("https://");
}

/** Findings that Production refuses and other profiles warn about. */
function strictFindings(c: Config): Finding[] {
  const out: Finding[] = [];
  const add = (path: string, value: unknown, message: string) => out.push({ path, value, message });
  const pw = c.admin_password ?? "";
  if (pw === "") add("admin_password", pw, "must be set");
  else if (WEAK_PASSWORDS.includes(pw.toLowerCase())) add("admin_password", pw, "is a well-known password");
  else if (pw.length < MIN_ADMIN_PASSWORD_LENGTH) {
    add("admin_password", pw, `must be at least ${MIN_ADMIN_PASSWORD_LENGTH} characters`);
  }
  const key = c.service_secret_key ?? "";
  if (key === "") add("service_secret_key", key, "must be set (also read from SERVICE_SECRET_KEY)");
  else if (PUBLIC_SECRETS.includes(key)) add("service_secret_key", key, "is a publicly known debug value");
  else if (key.length < MIN_SERVICE_SECRET_LENGTH) {
    add("service_secret_key", key, `must be at least ${MIN_SERVICE_SECRET_LENGTH} characters`);
  }
  if (!isHttps(c.game_api_endpoint)) add("game_api_endpoint", c.game_api_endpoint, "must use https");
  if (!isHttps(c.sentry_dsn)) add("sentry_dsn", c.sentry_dsn, "must use https");
  // The manifest's TLS is what vouches for the binary the server installs (spec 3 §5.4).
  if (!isHttps(c.update.manifest_url)) add("update.manifest_url", c.update.manifest_url, "must use https");
  return out;
}

/** Findings worth a warning in Production only. */
function productionAdvice(c: Config): Finding[] {
  const out: Finding[] = [];
  if (c.openuds.enabled && c.openuds.auth_token === "") {
    out.push({
      path: "openuds.auth_token",
      value: "",
      message: "empty: local-socket clients use approval mode (approve openuds <id> at the console)",
    });
  }
  if (c.wasm_runtime.allow_private_network) {
    out.push({
      path: "wasm_runtime.allow_private_network",
      value: true,
      message: "plugins can reach private networks",
    });
  }
  if (c.log_level === "debug") out.push({ path: "log_level", value: "debug", message: "debug logging in Production" });
  return out;
}

/** Findings that are refused in every profile. */
function crossKeyProblems(c: Config): Finding[] {
  const out: Finding[] = [];
  if (c.http_port !== 0 && c.http_port === c.port) {
    out.push({ path: "http_port", value: c.http_port, message: "must differ from port" });
  }
  const trusted = c.trusted_forwarded_http_port;
  if (trusted !== null && (trusted === c.port || trusted === c.http_port)) {
    out.push({ path: "trusted_forwarded_http_port", value: trusted, message: "must differ from port and http_port" });
  }
  return out;
}

/** Warnings in every profile. */
function crossKeyWarnings(c: Config): Finding[] {
  const out: Finding[] = [];
  for (const [table, rule] of Object.entries(c.table_retention)) {
    const path = `table_retention.${table}`;
    const cols = retentionColumns(table);
    if (!cols) {
      // Persistence ignores such a rule at startup; a typo would otherwise go unnoticed until then.
      const known = Object.keys(RETENTION_TIME_COLUMNS).join(", ");
      out.push({ path, value: rule, message: `is not a table retention manages (${known}); the rule is ignored` });
    } else if (rule.max_rows === undefined && rule.days === undefined) {
      out.push({ path, value: rule, message: "has neither max_rows nor days; the rule does nothing" });
    } else if (rule.time_col === undefined) {
      // retention.ts falls back to the table's default column (unlike PMP, which skips the rule).
      out.push({ path, value: rule, message: `has no time_col; the table's default "${cols[0]}" is used` });
    } else if (!cols.includes(rule.time_col)) {
      out.push({
        path,
        value: rule,
        message: `time_col "${rule.time_col}" is not a time column of ${table} (${cols.join(", ")}); ` +
          `"${cols[0]}" is used`,
      });
    }
  }
  return out;
}

/**
 * Runs the cross-key and profile checks on a validated configuration. `nestedSource` gives the source of a key
 * inside a map value (`table_retention.events`) when known, so that its own line is named.
 */
export function checkConfig(
  config: Config,
  sources: ReadonlyMap<string, ConfigSource>,
  nestedSource: (path: string) => ConfigSource | undefined = () => undefined,
): CheckResult {
  const sourceOf = (path: string) =>
    nestedSource(path) ?? sources.get(path) ?? sources.get(path.split(".")[0] ?? "") ?? DEFAULT_SOURCE;
  const format = (f: Finding, suffix = "") => formatProblem(f.path, f.value, sourceOf(f.path), f.message) + suffix;
  const production = config.profile === "Production";
  const strict = strictFindings(config);
  const refused = production ? [] : strict.map((f) => format(f, `; refused in profile Production`));
  // Development is where these are expected (no password yet, a local upstream): they are not warnings there, but
  // listed by check-config and summed up in one start-up line (productionSummary). Staging is the rehearsal for
  // Production: every finding is a warning in full.
  const development = config.profile === "Development";
  return {
    problems: [...crossKeyProblems(config), ...(production ? strict : [])].map((f) => format(f)),
    warnings: [
      ...crossKeyWarnings(config).map((f) => format(f)),
      ...(production ? productionAdvice(config).map((f) => format(f)) : []),
      ...(development ? [] : refused),
    ],
    production: development ? refused : [],
  };
}

/** The one start-up line about what Production would refuse (Development), or null when nothing would be. */
export function productionSummary(findings: readonly string[]): string | null {
  if (findings.length === 0) return null;
  const keys = [...new Set(findings.map((f) => f.split(" ")[0]))].join(", ");
  return `Development profile: fine here, but Production would refuse ${keys} (details: deno task check-config)`;
}
