/**
 * Configuration of the companion services (spec 2 §4.4): one YAML file
 * (`companions.yml` by default) validated by one zod schema that holds every
 * key, type and default. Each service can be switched off or moved; all of
 * them bind to loopback unless told otherwise. Role and command passwords
 * are Argon2id hashes (never plain passwords, issue 21): a value that is not
 * one is refused with the command that makes one.
 *
 * @module
 */

import * as z from "../util/zod.ts";
import { parseDocument } from "yaml";
import { isArgon2idHash } from "../net/argon2.ts";

const intIn = (min: number, max: number) =>
  z.number({ error: `expected an integer between ${min} and ${max}` }).check(
    z.int(`expected an integer between ${min} and ${max}`),
    z.gte(min, `expected an integer between ${min} and ${max}`),
    z.lte(max, `expected an integer between ${min} and ${max}`),
  );
const port = (def: number) => z._default(intIn(0, 65535), def);
const nonEmpty = () => z.string().check(z.minLength(1, "expected a non-empty string"));
const url = () =>
  z.pipe(
    z.string().check(z.refine((s) => /^https?:\/\/[^\s/]+/.test(s), "expected an http:// or https:// URL")),
    z.transform((s) => s.replace(/\/+$/, "")),
  );

/** An Argon2id PHC string, or empty for "not set" (the feature then refuses every request). */
const argon2Hash = () =>
  z._default(
    z.string().check(z.refine(
      (s) => s === "" || isArgon2idHash(s),
      "expected an Argon2id hash ($argon2id$v=19$m=\u2026,t=\u2026,p=\u2026$\u2026$\u2026, at most 1 GiB, 20 passes, 16 lanes); make one with `deno task companions hash-password`",
    )),
    "",
  );

const base = {
  /** Switch the service off. */
  enabled: z._default(z.boolean(), true),
  /** Address to bind; null = the top-level `bind_address`. */
  bind_address: z._default(z.nullable(z.string().check(z.minLength(1))), null),
};

/** Failure lockout: `max_failures` within `window_secs` locks the caller out for `lockout_secs`. */
const lockout = z.prefault(
  z.strictObject({
    max_failures: z._default(intIn(1, 1000), 5),
    window_secs: z._default(intIn(1, 86400), 600),
    lockout_secs: z._default(intIn(1, 86400), 900),
  }),
  {},
);

/** The whitelist the original shipped (peers §5.4) plus `status` for the admin page's check. */
export const DEFAULT_COMMANDS: Readonly<Record<string, readonly string[]>> = {
  start: ["bash", "start.sh"],
  restart: ["bash", "restart.sh"],
  stop: ["bash", "stop.sh"],
  status: ["bash", "check.sh"],
  serverinfo: ["uname", "-a"],
};

/** The whole configuration. */
export const CompanionsConfigSchema = z.strictObject({
  bind_address: z._default(nonEmpty(), "127.0.0.1"),
  data_dir: z._default(nonEmpty(), "data/companions"),
  database_url: z._default(
    z.nullable(z.string().check(z.refine((s) => /^postgres(ql)?:\/\//.test(s), "expected a postgres:// URL"))),
    null,
  ),
  log_level: z._default(z.enum(["debug", "info", "warn", "error"]), "info"),
  log_format: z._default(z.enum(["text", "json"]), "text"),
  game_api_endpoint: z._default(url(), "https://phira.5wyxi.com"),
  game_site_url: z._default(url(), "https://phira.moe"),
  user_info_path: z._default(z.nullable(nonEmpty()), null),
  site: z.prefault(
    z.strictObject({
      ...base,
      port: port(8080),
      static_dir: z._default(z.nullable(nonEmpty()), null),
      title: z._default(nonEmpty(), "Chorus"),
      /** Behind a reverse proxy on the same host: take the caller's address from `X-Forwarded-For`. */
      trust_forwarded_for: z._default(z.boolean(), false),
    }),
    {},
  ),
  user_manager: z.prefault(
    z.strictObject({
      ...base,
      port: port(2345),
      admin_password_hash: argon2Hash(),
      super_admin_password_hash: argon2Hash(),
      game_server_url: z._default(z.nullable(url()), "http://127.0.0.1:12347"),
      refresh_interval_secs: z._default(intIn(0, 604800), 600),
      refresh_gap_ms: z._default(intIn(0, 60000), 250),
      max_backoff_secs: z._default(intIn(1, 604800), 21600),
      lockout,
    }),
    {},
  ),
  room: z.prefault(
    z.strictObject({
      ...base,
      port: port(5000),
      log_path: z._default(nonEmpty(), "server.log"),
      from_start: z._default(z.boolean(), false),
      poll_interval_ms: z._default(intIn(10, 60000), 100),
      stale_room_secs: z._default(intIn(1, 604800), 3600),
      cleanup_interval_secs: z._default(intIn(1, 86400), 60),
    }),
    {},
  ),
  api: z.prefault(
    z.strictObject({
      ...base,
      port: port(5001),
      url: z._default(url(), "http://127.0.0.1:12347/api/rooms/info"),
      interval_ms: z._default(intIn(100, 3600000), 1000),
      timeout_ms: z._default(intIn(100, 600000), 5000),
      sample_interval_secs: z._default(intIn(1, 86400), 60),
      retention_days: z._default(intIn(1, 36500), 90),
    }),
    {},
  ),
  command: z.prefault(
    z.strictObject({
      ...base,
      port: port(7878),
      password_hash: argon2Hash(),
      commands: z._default(
        z.record(
          z.string().check(z.regex(/^[a-z][a-z0-9_-]{0,31}$/, "alias: expected [a-z][a-z0-9_-]{0,31}")),
          z.array(z.string()).check(z.minLength(1, "expected a program and its arguments")),
        ).check(z.refine((m) => !("custom" in m), "the alias `custom` is reserved for custom commands")),
        () => structuredClone(DEFAULT_COMMANDS) as Record<string, string[]>,
      ),
      allow_custom: z._default(z.boolean(), false),
      cwd: z._default(nonEmpty(), "."),
      timeout_secs: z._default(intIn(1, 3600), 30),
      max_output_bytes: z._default(intIn(1024, 16 << 20), 64 << 10),
      max_concurrent: z._default(intIn(1, 16), 1),
      audit_retention_days: z._default(intIn(1, 36500), 365),
      lockout,
    }),
    {},
  ),
  file: z.prefault(
    z.strictObject({
      ...base,
      port: port(7880),
      path: z._default(z.nullable(nonEmpty()), null),
      max_bytes: z._default(intIn(1, 256 << 20), 16 << 20),
    }),
    {},
  ),
});

/** The validated configuration. */
export type CompanionsConfig = z.output<typeof CompanionsConfigSchema>;

/** Names of the services that listen on their own port. */
export const SERVICE_NAMES = ["user_manager", "room", "api", "command", "file", "site"] as const;

/** One service name. */
export type ServiceName = typeof SERVICE_NAMES[number];

/** A refused configuration; the message names the key and why. */
export class CompanionsConfigError extends Error {
  override readonly name = "CompanionsConfigError";
}

/** Defaults for every key. */
export function defaultCompanionsConfig(): CompanionsConfig {
  return CompanionsConfigSchema.parse({});
}

/** The path of `user_info.json` (the room service writes it; user manager and file service read it). */
export function userInfoPath(c: CompanionsConfig): string {
  return c.user_info_path ?? `${c.data_dir.replace(/\/+$/, "")}/user_info.json`;
}

/** The file the file service serves: `FILE_PATH` from the environment wins (as the original), then the key. */
export function servedFilePath(c: CompanionsConfig, env: (name: string) => string | undefined): string {
  const fromEnv = env("FILE_PATH");
  if (fromEnv) return fromEnv;
  return c.file.path ?? userInfoPath(c);
}

/** Address a service binds to. */
export function bindAddressOf(c: CompanionsConfig, name: ServiceName): string {
  return c[name].bind_address ?? c.bind_address;
}

/** Validates `raw` (parsed YAML or an object); `source` names it in messages. */
export function parseCompanionsConfig(raw: unknown, source = "configuration"): CompanionsConfig {
  const parsed = CompanionsConfigSchema.safeParse(raw ?? {});
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => {
      const key = issue.path.map(String).join(".") || "(top level)";
      const message = issue.code === "unrecognized_keys"
        ? `unknown key${issue.keys.length > 1 ? "s" : ""} ${issue.keys.join(", ")}`
        : issue.code === "invalid_key"
        ? "invalid alias: expected [a-z][a-z0-9_-]{0,31}"
        : issue.message;
      return `  ${key}: ${message}`;
    });
    throw new CompanionsConfigError(`Invalid companions configuration (${source}):\n${lines.join("\n")}`);
  }
  const config = parsed.data;
  const taken = new Map<string, ServiceName>();
  for (const name of SERVICE_NAMES) {
    const svc = config[name];
    if (!svc.enabled || svc.port === 0) continue;
    const key = `${bindAddressOf(config, name)}:${svc.port}`;
    const other = taken.get(key);
    if (other) {
      throw new CompanionsConfigError(
        `Invalid companions configuration (${source}):\n  ${name}.port: ${svc.port} is also the port of ${other}`,
      );
    }
    taken.set(key, name);
  }
  return config;
}

/** Parses YAML text of a configuration file. */
export function parseCompanionsYaml(text: string, path: string): CompanionsConfig {
  const doc = parseDocument(text, { uniqueKeys: true, prettyErrors: false });
  if (doc.errors.length > 0) {
    throw new CompanionsConfigError(`Cannot parse ${path}: ${doc.errors[0]!.message}`);
  }
  const value = doc.toJS();
  if (value !== null && value !== undefined && (typeof value !== "object" || Array.isArray(value))) {
    throw new CompanionsConfigError(`Cannot use ${path}: expected a mapping of keys at the top level`);
  }
  return parseCompanionsConfig(value, path);
}

/** The default configuration file name, read from the working directory when present. */
export const DEFAULT_COMPANIONS_FILE = "companions.yml";

/**
 * Reads the configuration: `path` when given (it must exist), else
 * `companions.yml` when it exists, else the defaults.
 */
export async function loadCompanionsConfig(
  path: string | null,
): Promise<{ config: CompanionsConfig; file: string | null }> {
  const file = path ?? DEFAULT_COMPANIONS_FILE;
  let text: string;
  try {
    text = await Deno.readTextFile(file);
  } catch (error) {
    if (path === null && error instanceof Deno.errors.NotFound) {
      return { config: defaultCompanionsConfig(), file: null };
    }
    throw new CompanionsConfigError(`Cannot read ${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
  return { config: parseCompanionsYaml(text, file), file };
}
