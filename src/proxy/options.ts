/**
 * Options of `chorus proxy` (spec 1 §2.4, plus the visited-user store):
 * parsed with `node:util` `parseArgs`, checked, and refused with a one-line
 * reason -- `--allowed-origin` is required unless `--debug` (rule 1), and
 * the shared secret must be in `SERVICE_SECRET_KEY` or `HSN_SECRET_KEY`
 * (rule 2). Pure: the environment is passed in.
 *
 * @module
 */

import { join } from "node:path";
import { parseArgs } from "node:util";
import { MIN_SERVICE_SECRET_LENGTH, PUBLIC_SECRETS } from "../config/checks.ts";
import { DEFAULT_GAME_API_ENDPOINT } from "../upstream/mod.ts";
import type { LogLevel } from "../util/log.ts";
import type { ServerAddress } from "./room_link.ts";

/** The default multiplayer port of the game server. */
export const DEFAULT_MP_PORT = 12346;

/** Usage text of `chorus proxy --help`. */
export const PROXY_USAGE =
  `Chorus monitor proxy \u2014 rooms, room events and live rounds of a Phira server, for browsers

Usage: chorus proxy [options]        (deno task proxy -- [options])

Options:
  --port <port>             listening port (default 3080)
  --host <address>          listening address (default 0.0.0.0)
  --mp-server <host[:port]> the game server's multiplayer address (default 127.0.0.1:12346)
  --api-base <url>          the game API for logins and profiles (default ${DEFAULT_GAME_API_ENDPOINT})
  --allowed-origin <origin> origin of the page allowed to call the proxy from a browser, e.g.
                            https://monitor.example.org; repeatable; required unless --debug
  --debug                   development mode: any origin is allowed (CORS mirrors the caller)
  --cache-dir <dir>         where downloaded charts are kept (default <user cache dir>/chorus)
  --data-dir <dir>          directory of the embedded database (default data/proxy)
  --database-url <url>      PostgreSQL instead (postgres://\u2026); also env PROXY_DATABASE_URL
  --log-level <level>       debug, info (default), warn or error
  -h, --help                show this text

Environment:
  SERVICE_SECRET_KEY        the secret shared with the game server (its service_secret_key);
                            HSN_SECRET_KEY is read when it is unset. Required.

The spectator page is served at /spectator/. See docs/proxy.md.`;

/** Checked options. */
export interface ProxyOptions {
  readonly debug: boolean;
  readonly host: string;
  readonly port: number;
  readonly mpServer: ServerAddress;
  readonly apiBase: string;
  readonly allowedOrigins: readonly string[];
  readonly cacheDir: string;
  readonly dataDir: string;
  readonly databaseUrl: string | undefined;
  readonly logLevel: LogLevel;
  /** The shared secret (never logged). */
  readonly secret: string;
}

/** Result of {@link parseProxyArgs}: options, help, or a one-line refusal with its exit code. */
export type ParsedProxyArgs =
  | { readonly kind: "run"; readonly options: ProxyOptions }
  | { readonly kind: "help" }
  | { readonly kind: "error"; readonly code: 2 | 3; readonly message: string };

const LEVELS: readonly LogLevel[] = ["debug", "info", "warn", "error"];

/** Parses and checks `args` (after `proxy`) with the environment `env`. */
export function parseProxyArgs(args: readonly string[], env: (name: string) => string | undefined): ParsedProxyArgs {
  let values;
  // `deno task proxy -- ...` passes the `--` through: a leading one separates nothing.
  const given = args[0] === "--" ? args.slice(1) : [...args];
  try {
    ({ values } = parseArgs({
      args: given,
      strict: true,
      allowPositionals: false,
      options: {
        debug: { type: "boolean" },
        port: { type: "string" },
        host: { type: "string" },
        "mp-server": { type: "string" },
        "api-base": { type: "string" },
        "allowed-origin": { type: "string", multiple: true },
        "cache-dir": { type: "string" },
        "data-dir": { type: "string" },
        "database-url": { type: "string" },
        "log-level": { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    }));
  } catch (error) {
    // node:util's wording, without its advice about positionals (this command takes none).
    const message = (error instanceof Error ? error.message : String(error)).replace(
      /\. To specify a positional.*$/s,
      "",
    );
    const unknown = /^Unknown option '(--?[^']*)'/.exec(message)?.[1];
    const near = unknown ? nearestOption(unknown) : null;
    return usage(near ? `${message}; did you mean ${near}?` : message);
  }
  if (values.help) return { kind: "help" };
  const debug = values.debug ?? false;

  const port = parsePort(values.port ?? "3080");
  if (port === null) return usage(`--port: expected a port number 0-65535, got ${JSON.stringify(values.port)}`);
  const mpServer = parseServerAddress(values["mp-server"] ?? `127.0.0.1:${DEFAULT_MP_PORT}`);
  if (typeof mpServer === "string") return usage(`--mp-server: ${mpServer}`);
  const apiBase = values["api-base"] ?? DEFAULT_GAME_API_ENDPOINT;
  if (!isHttpUrl(apiBase)) {
    return usage(`--api-base: expected an http:// or https:// URL, got ${JSON.stringify(apiBase)}`);
  }
  const origins: string[] = [];
  for (const raw of values["allowed-origin"] ?? []) {
    const origin = parseOrigin(raw);
    if (origin === null) {
      return usage(
        `--allowed-origin: expected an origin such as https://monitor.example.org, got ${JSON.stringify(raw)}`,
      );
    }
    origins.push(origin);
  }
  const databaseUrl = values["database-url"] ?? env("PROXY_DATABASE_URL") ?? undefined;
  if (databaseUrl !== undefined && databaseUrl !== "" && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    return usage("--database-url: expected a postgres:// or postgresql:// URL");
  }
  const level = values["log-level"] ?? "info";
  if (!LEVELS.includes(level as LogLevel)) return usage(`--log-level: expected one of ${LEVELS.join(", ")}`);

  // spec 1 §2.4 rule 1.
  if (!debug && origins.length === 0) {
    return refuse(
      "Refusing to start: --allowed-origin is required (the origin of the page that calls this proxy, e.g. https://monitor.example.org), or --debug for development",
    );
  }
  // spec 1 §2.4 rule 2, §5 rule 2.
  const secret = nonEmpty(env("SERVICE_SECRET_KEY")) ?? nonEmpty(env("HSN_SECRET_KEY"));
  if (secret === undefined) {
    return refuse(
      "Refusing to start: SERVICE_SECRET_KEY is not set (nor HSN_SECRET_KEY); it must equal the game server's service_secret_key",
    );
  }
  if (!debug && PUBLIC_SECRETS.includes(secret)) {
    return refuse("Refusing to start: SERVICE_SECRET_KEY is a publicly known debug value; choose a random secret");
  }
  if (!debug && secret.length < MIN_SERVICE_SECRET_LENGTH) {
    return refuse(
      `Refusing to start: SERVICE_SECRET_KEY is shorter than ${MIN_SERVICE_SECRET_LENGTH} characters; choose a longer random secret`,
    );
  }
  return {
    kind: "run",
    options: {
      debug,
      host: values.host ?? "0.0.0.0",
      port,
      mpServer,
      apiBase,
      allowedOrigins: origins,
      cacheDir: values["cache-dir"] ?? defaultCacheDir(env),
      dataDir: values["data-dir"] ?? join("data", "proxy"),
      databaseUrl: databaseUrl === "" ? undefined : databaseUrl,
      logLevel: level as LogLevel,
      secret,
    },
  };
}

const OPTION_NAMES = [
  "--debug",
  "--port",
  "--host",
  "--mp-server",
  "--api-base",
  "--allowed-origin",
  "--cache-dir",
  "--data-dir",
  "--database-url",
  "--log-level",
  "--help",
];

/** The option within two edits of `given`, if any (a typo's likely intent). */
function nearestOption(given: string): string | null {
  let best: string | null = null;
  let bestDistance = 3;
  for (const name of OPTION_NAMES) {
    const d = editDistance(given.split("=")[0]!, name);
    if (d < bestDistance) [best, bestDistance] = [name, d];
  }
  return best;
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = row;
  }
  return prev[b.length]!;
}

function usage(message: string): ParsedProxyArgs {
  return { kind: "error", code: 2, message: `${message} (see chorus proxy --help)` };
}

function refuse(message: string): ParsedProxyArgs {
  return { kind: "error", code: 3, message };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === "" ? undefined : value;
}

function parsePort(text: string): number | null {
  if (!/^[0-9]{1,5}$/.test(text)) return null;
  const n = Number(text);
  return n <= 65535 ? n : null;
}

/** `host`, `host:port`, `[v6]` or `[v6]:port`; the port defaults to 12346. A string is the problem. */
export function parseServerAddress(text: string): ServerAddress | string {
  const m = /^(?:\[([0-9A-Fa-f:.]+)\]|([^:\[\]\s]+))(?::([0-9]{1,5}))?$/.exec(text.trim());
  if (!m) return `expected host or host:port, got ${JSON.stringify(text)}`;
  const port = m[3] === undefined ? DEFAULT_MP_PORT : Number(m[3]);
  if (port < 1 || port > 65535) return `port out of range in ${JSON.stringify(text)}`;
  return { hostname: m[1] ?? m[2]!, port };
}

/** The origin `text` names (`https://host[:port]`), or null when it is no bare http(s) origin. */
export function parseOrigin(text: string): string | null {
  if (!URL.canParse(text)) return null;
  const url = new URL(text);
  if (url.protocol !== "http:" && url.protocol !== "https:") return null;
  // A path, query, fragment or credentials would never match a browser's Origin header.
  if (url.pathname !== "/" || /[?#@]/.test(text)) return null;
  return url.origin;
}

function isHttpUrl(text: string): boolean {
  return URL.canParse(text) && /^https?:$/.test(new URL(text).protocol);
}

/** `<user cache dir>/chorus`: `$XDG_CACHE_HOME`, else `~/.cache` (spec 1 §2.4 `--cache-dir`). */
function defaultCacheDir(env: (name: string) => string | undefined): string {
  const xdg = nonEmpty(env("XDG_CACHE_HOME"));
  if (xdg) return join(xdg, "chorus");
  const home = nonEmpty(env("HOME")) ?? nonEmpty(env("USERPROFILE"));
  return home ? join(home, ".cache", "chorus") : join("data", "cache");
}
