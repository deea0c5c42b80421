/**
 * The `accounts` role: `deno task accounts` / `chorus accounts [options]`.
 * Own options (not game server configuration keys), parsed with
 * `node:util` `parseArgs`; secrets come from the environment only. Runs
 * until SIGINT or SIGTERM, then stops gracefully; SIGHUP and the end of
 * stdin do not stop it (unattended service).
 *
 * @module
 */

import { parseArgs } from "node:util";
import { openDb } from "../db/mod.ts";
import { roomMonitorKey } from "../net/mod.ts";
import { DEFAULT_GAME_API_ENDPOINT, Upstream } from "../upstream/mod.ts";
import { SystemClock } from "../util/clock.ts";
import { LogHub, type LogLevel } from "../util/log.ts";
import type { CookieSecure } from "./context.ts";
import { upstreamDirectory } from "./game_accounts.ts";
import { WorkerHasher } from "./password_pool.ts";
import { MonitorRoomSource } from "./room_source_monitor.ts";
import { ROOT_PASSWORD_ENV } from "./seed.ts";
import { startAccounts } from "./service.ts";

/** Usage text of the role. */
export const ACCOUNTS_USAGE =
  `chorus accounts \u2014 account backend (local accounts bound to game accounts, groups, room API)

Usage: chorus accounts [options]        (deno task accounts [options])

Options:
  --port <n>               HTTP port (default 5000; 0 = any free port)
  --host <address>         listen address (default 0.0.0.0)
  --mp-server <host:port>  game server speaking the room-monitor protocol (default 127.0.0.1:12346)
  --api-base <url>         Phira API base URL (default ${DEFAULT_GAME_API_ENDPOINT})
  --data-dir <dir>         directory of the embedded database accounts.sqlite (default data)
  --database-url <url>     PostgreSQL instead of the embedded database (better: ACCOUNTS_DATABASE_URL)
  --allowed-origin <url>   browser origin allowed to call with cookies, e.g. https://example.org (repeatable)
  --cookie-secure <mode>   auto | always | never (default auto: Secure when the client used https)
  --trust-proxy            believe X-Forwarded-For and X-Forwarded-Proto (only behind a reverse proxy)
  --log-level <level>      debug | info | warn | error (default info)
  --log-format <format>    text | json (default text)
  -h, --help               show this text

Environment:
  SERVICE_SECRET_KEY       the game server's service_secret_key (alias HSN_SECRET_KEY); required
  ${ROOT_PASSWORD_ENV}   password of the user root at first start; without it one is
                           generated and printed once
  ACCOUNTS_DATABASE_URL    like --database-url

See docs/accounts.md.`;

/** Exit codes: 0 ok, 1 runtime failure, 2 usage error. */
const EXIT = { ok: 0, runtime: 1, usage: 2 } as const;

/** Where to find the game server. */
export interface HostPort {
  readonly host: string;
  readonly port: number;
}

/** Parses `host:port`, `[v6]:port` or `host` (port 12346); null when malformed. */
export function parseHostPort(text: string, defaultPort = 12346): HostPort | null {
  const m = /^\[([0-9A-Fa-f:.]+)\](?::(\d{1,5}))?$/.exec(text) ?? /^([^:\s]+)(?::(\d{1,5}))?$/.exec(text);
  if (!m) return null;
  const port = m[2] === undefined ? defaultPort : Number(m[2]);
  return port >= 1 && port <= 65535 ? { host: m[1]!, port } : null;
}

/** Parsed options of the role. */
export interface AccountsCliOptions {
  readonly port: number;
  readonly host: string;
  readonly mpServer: HostPort;
  readonly apiBase: string;
  readonly dataDir: string;
  readonly databaseUrl: string | undefined;
  readonly allowedOrigins: string[];
  readonly cookieSecure: CookieSecure;
  readonly trustProxy: boolean;
  readonly logLevel: LogLevel;
  readonly logFormat: "text" | "json";
}

/** Parses `args`; a string is a usage error, null means `--help`. */
export function parseAccountsArgs(
  args: string[],
  env: (name: string) => string | undefined,
): AccountsCliOptions | string | null {
  let v;
  try {
    v = parseArgs({
      args,
      strict: true,
      allowPositionals: false,
      options: {
        port: { type: "string" },
        host: { type: "string" },
        "mp-server": { type: "string" },
        "api-base": { type: "string" },
        "data-dir": { type: "string" },
        "database-url": { type: "string" },
        "allowed-origin": { type: "string", multiple: true },
        "cookie-secure": { type: "string" },
        "trust-proxy": { type: "boolean" },
        "log-level": { type: "string" },
        "log-format": { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    }).values;
  } catch (error) {
    return error instanceof Error ? error.message.split("\n")[0]! : String(error);
  }
  if (v.help) return null;
  const port = Number(v.port ?? "5000");
  if (!/^\d{1,5}$/.test(v.port ?? "5000") || port > 65535) return `--port: expected 0..65535, got "${v.port}"`;
  const mpServer = parseHostPort(v["mp-server"] ?? "127.0.0.1:12346");
  if (!mpServer) return `--mp-server: expected host:port, got "${v["mp-server"]}"`;
  const apiBase = v["api-base"] ?? DEFAULT_GAME_API_ENDPOINT;
  if (!/^https?:\/\/[^\s]+$/.test(apiBase) || !URL.canParse(apiBase)) return `--api-base: expected an http(s) URL`;
  const origins = v["allowed-origin"] ?? [];
  for (const o of origins) {
    if (!URL.canParse(o) || new URL(o).origin !== o) {
      return `--allowed-origin: expected an origin such as https://example.org (no path or trailing /), got "${o}"`;
    }
  }
  const cookieSecure = v["cookie-secure"] ?? "auto";
  if (cookieSecure !== "auto" && cookieSecure !== "always" && cookieSecure !== "never") {
    return `--cookie-secure: expected auto, always or never`;
  }
  const logLevel = v["log-level"] ?? "info";
  if (!["debug", "info", "warn", "error"].includes(logLevel)) return "--log-level: expected debug, info, warn or error";
  const logFormat = v["log-format"] ?? "text";
  if (logFormat !== "text" && logFormat !== "json") return "--log-format: expected text or json";
  const databaseUrl = v["database-url"] ?? env("ACCOUNTS_DATABASE_URL");
  return {
    port,
    host: v.host ?? "0.0.0.0",
    mpServer,
    apiBase,
    dataDir: v["data-dir"] ?? "data",
    databaseUrl: databaseUrl === "" ? undefined : databaseUrl,
    allowedOrigins: origins,
    cookieSecure,
    trustProxy: v["trust-proxy"] ?? false,
    logLevel: logLevel as LogLevel,
    logFormat,
  };
}

/** Runs the role until SIGINT or SIGTERM; returns the exit code. */
export async function runAccounts(args: string[]): Promise<number> {
  const env = (name: string) => Deno.env.get(name);
  const parsed = parseAccountsArgs(args, env);
  if (parsed === null) {
    console.log(ACCOUNTS_USAGE);
    return EXIT.ok;
  }
  if (typeof parsed === "string") {
    console.error(`${parsed}\n\n${ACCOUNTS_USAGE}`);
    return EXIT.usage;
  }
  const o = parsed;
  const secret = env("SERVICE_SECRET_KEY") || env("HSN_SECRET_KEY");
  if (!secret) {
    console.error(
      "Cannot start the account backend: set SERVICE_SECRET_KEY (or HSN_SECRET_KEY) to the game server's " +
        "service_secret_key; it authenticates the room-monitor link.",
    );
    return EXIT.usage;
  }
  const logs = new LogHub({ level: o.logLevel, format: o.logFormat });
  const log = logs.logger().child({ role: "accounts" });
  const clock = new SystemClock();
  let service;
  try {
    const db = await openDb({ url: o.databaseUrl, dataDir: o.dataDir, file: "accounts.sqlite" });
    const source = new MonitorRoomSource({
      host: o.mpServer.host,
      port: o.mpServer.port,
      key: await roomMonitorKey(secret),
      clock,
      log,
    });
    const upstream = new Upstream({ baseUrl: o.apiBase, clock });
    service = await startAccounts({
      db,
      ownsDb: true,
      source,
      games: upstreamDirectory(upstream),
      hasher: new WorkerHasher({ log }),
      clock,
      log,
      rootPassword: env(ROOT_PASSWORD_ENV),
      listen: { hostname: o.host, port: o.port, trustProxy: o.trustProxy },
      allowedOrigins: o.allowedOrigins,
      cookieSecure: o.cookieSecure,
    }).catch(async (error) => {
      await source.close();
      await db.close();
      throw error;
    });
  } catch (error) {
    log.error(`startup failed: ${error instanceof Error ? error.message : String(error)}`);
    return EXIT.runtime;
  }
  const { promise: stopped, resolve: stop } = Promise.withResolvers<string>();
  const signals: Deno.Signal[] = ["SIGINT", "SIGTERM"];
  const handlers = signals.map((s) => [s, () => stop(s)] as const);
  for (const [s, h] of handlers) Deno.addSignalListener(s, h);
  const hup = () => log.info("SIGHUP: nothing to reload; still running");
  if (Deno.build.os !== "windows") Deno.addSignalListener("SIGHUP", hup);
  const reason = await stopped;
  log.info("shutting down", { reason });
  await service.close();
  for (const [s, h] of handlers) Deno.removeSignalListener(s, h);
  if (Deno.build.os !== "windows") Deno.removeSignalListener("SIGHUP", hup);
  log.info("stopped");
  return EXIT.ok;
}
