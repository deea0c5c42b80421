/**
 * `chorus companions`: runs the first-generation companion services and the
 * site (spec 2 §4.4-4.5) until SIGINT or SIGTERM; `hash-password` makes
 * the Argon2id hashes the configuration wants; `check-config` prints the
 * effective configuration. Unattended: stdin is never read while serving,
 * SIGHUP does not stop it, logs go to stdout.
 *
 * @module
 */

import { LogHub } from "../util/log.ts";
import { CompanionsConfigError, loadCompanionsConfig, parseCompanionsConfig } from "./config.ts";
import { secretReader } from "./hash_password.ts";
import { argon2Hasher, joinFragments } from "./passwords.ts";
import { startCompanions } from "./run.ts";

/** Exit codes: 0 ok, 1 runtime failure, 2 usage error, 3 invalid configuration. */
const EXIT = { ok: 0, runtime: 1, usage: 2, config: 3 } as const;

/** Usage text. */
export const COMPANIONS_USAGE =
  `Chorus companions \u2014 user manager, room log, statistics, command and file services, and the site

Usage: chorus companions [--config <file>] [options]
       chorus companions hash-password [--fragments 3]
       chorus companions check-config [--config <file>]

Options:
  --config <file>        configuration file (default: companions.yml when it exists, else defaults)
  --data-dir <dir>       data directory (database, user_info.json); overrides data_dir
  --bind-address <addr>  address every service binds to unless its section says otherwise (default 127.0.0.1)
  --site-port <n>        port of the site (default 8080)
  --log-level <level>    debug | info | warn | error
  -h, --help             show this text

Services and default ports: user_manager 2345, room 5000, api 5001, command 7878, file 7880,
site 8080. Each can be switched off or moved in the configuration (docs/companions.md).

hash-password reads a password (or, with --fragments 3, the command service's three
fragments) from the terminal without echo, or one per line from standard input, and prints
the Argon2id hash to put into the configuration.`;

/** Parsed command line. */
interface Parsed {
  command: "run" | "hash-password" | "check-config" | "help";
  config: string | null;
  overrides: Record<string, unknown>;
  fragments: number;
}

class UsageError extends Error {}

function parseArgs(args: readonly string[]): Parsed {
  const out: Parsed = { command: "run", config: null, overrides: {}, fragments: 1 };
  const value = (i: number, flag: string) => {
    const v = args[i + 1];
    if (v === undefined || v.startsWith("--")) throw new UsageError(`${flag} needs a value`);
    return v;
  };
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const [flag, inline] = a.startsWith("--") && a.includes("=")
      ? [a.slice(0, a.indexOf("=")), a.slice(a.indexOf("=") + 1)]
      : [a, undefined];
    const take = () => inline ?? value(i++, flag);
    switch (flag) {
      case "-h":
      case "--help":
      case "help":
        out.command = "help";
        break;
      case "hash-password":
      case "check-config":
        if (i !== 0) throw new UsageError(`${a} must come first`);
        out.command = flag as "hash-password" | "check-config";
        break;
      case "--config":
        out.config = take();
        break;
      case "--data-dir":
        out.overrides.data_dir = take();
        break;
      case "--bind-address":
        out.overrides.bind_address = take();
        break;
      case "--log-level":
        out.overrides.log_level = take();
        break;
      case "--site-port": {
        const v = take();
        if (!/^\d{1,5}$/.test(v)) throw new UsageError(`--site-port: expected a port number, got "${v}"`);
        out.overrides.site = { port: Number(v) };
        break;
      }
      case "--fragments": {
        const v = take();
        if (v !== "1" && v !== "3") throw new UsageError("--fragments: expected 1 or 3");
        out.fragments = Number(v);
        break;
      }
      default:
        throw new UsageError(`unknown option ${flag}`);
    }
  }
  if (out.fragments !== 1 && out.command !== "hash-password") {
    throw new UsageError("--fragments applies to hash-password");
  }
  return out;
}

function merge(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out = { ...base };
  for (const [k, v] of Object.entries(over)) {
    const b = out[k];
    out[k] = typeof v === "object" && v !== null && typeof b === "object" && b !== null
      ? merge(b as Record<string, unknown>, v as Record<string, unknown>)
      : v;
  }
  return out;
}

async function hashPassword(fragments: number): Promise<number> {
  const secrets: string[] = [];
  const readSecret = secretReader();
  for (let i = 1; i <= fragments; i++) {
    const label = fragments === 1 ? "Password" : `Fragment ${i} of ${fragments}`;
    const secret = await readSecret(`${label}: `);
    if (secret === null) {
      console.error("No password given (end of input).");
      return EXIT.usage;
    }
    if (secret.length < 8) {
      console.error(`${label} must have at least 8 characters.`);
      return EXIT.usage;
    }
    secrets.push(secret);
  }
  const secret = fragments === 1 ? secrets[0]! : joinFragments(secrets);
  if (secret === null) {
    console.error("Fragments must not be empty or contain NUL characters.");
    return EXIT.usage;
  }
  console.log(await argon2Hasher().hash(secret));
  return EXIT.ok;
}

/** Runs `chorus companions` with `args`; resolves with the exit code. */
export async function runCompanions(args: string[]): Promise<number> {
  let parsed: Parsed;
  try {
    parsed = parseArgs(args);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`${error.message}\n\n${COMPANIONS_USAGE}`);
    return EXIT.usage;
  }
  if (parsed.command === "help") {
    console.log(COMPANIONS_USAGE);
    return EXIT.ok;
  }
  if (parsed.command === "hash-password") return await hashPassword(parsed.fragments);

  let config;
  let file: string | null;
  try {
    const loaded = await loadCompanionsConfig(parsed.config);
    file = loaded.file;
    config = Object.keys(parsed.overrides).length
      ? parseCompanionsConfig(
        merge(loaded.config as unknown as Record<string, unknown>, parsed.overrides),
        "command line",
      )
      : loaded.config;
  } catch (error) {
    if (!(error instanceof CompanionsConfigError)) throw error;
    console.error(error.message);
    return EXIT.config;
  }
  if (parsed.command === "check-config") {
    console.log(`# ${file ?? "(defaults)"}`);
    console.log(JSON.stringify(config, null, 2));
    return EXIT.ok;
  }

  const logs = new LogHub({ level: config.log_level, format: config.log_format });
  const log = logs.logger();
  let handle;
  try {
    handle = await startCompanions(config, { log });
  } catch (error) {
    log.error(`companions did not start: ${error instanceof Error ? error.message : String(error)}`);
    return EXIT.runtime;
  }
  if (handle.ports.site !== undefined) {
    const host = config.site.bind_address ?? config.bind_address;
    log.info(`site ready: http://${host.includes(":") ? `[${host}]` : host}:${handle.ports.site}/`, {
      config: file ?? "(defaults)",
    });
  }
  const { promise: stopped, resolve } = Promise.withResolvers<string>();
  const onStop = (signal: Deno.Signal) => () => resolve(signal);
  const listeners: [Deno.Signal, () => void][] = [["SIGINT", onStop("SIGINT")], ["SIGTERM", onStop("SIGTERM")]];
  if (Deno.build.os !== "windows") {
    listeners.push(["SIGHUP", () => log.info("SIGHUP: still running (restart to apply a changed configuration)")]);
  }
  for (const [signal, fn] of listeners) Deno.addSignalListener(signal, fn);
  const reason = await stopped;
  log.info("companions shutting down", { reason });
  await handle.close();
  for (const [signal, fn] of listeners) Deno.removeSignalListener(signal, fn);
  log.info("companions stopped");
  return EXIT.ok;
}

if (import.meta.main) Deno.exit(await runCompanions(Deno.args));
