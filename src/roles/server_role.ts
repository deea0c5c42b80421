/**
 * The game-server roles (`start`, `dev`, `check-config`) share one
 * configuration -- the game server's keys, from `server_config.yml`, `PM_*`
 * environment variables and `--<key>` flags (README "Configuration") -- and
 * the front-end flags `--tui` / `--no-cli`. This module is their common
 * front end: it loads the configuration over all arguments (so
 * `chorus --port 5 dev` works as `chorus dev --port 5`), takes each role's
 * own options out, refuses unknown options with the nearest flag, and runs
 * the role named.
 *
 * @module
 */

import { ConfigError, loadConfig, type LoadedConfig } from "../config/mod.ts";
import { suggestFlag } from "../config/flags.ts";
import { EXIT, isHelp, print, type Role } from "./role.ts";

/** What a game-server role runs with. */
export interface ServerRun {
  readonly loaded: LoadedConfig;
  /** The arguments the configuration was loaded from (`config reload` reads them again). */
  readonly args: readonly string[];
  /** `--tui`: the full-screen terminal UI. */
  readonly tui: boolean;
  /** Not `--no-cli`: the interactive console on this terminal. */
  readonly console: boolean;
}

/** Result of taking a role's own options out of the leftover arguments. */
export type OwnOptions<O> =
  | { readonly ok: true; readonly rest: string[]; readonly given: string | null; readonly value: O }
  | { readonly ok: false; readonly message: string };

/** A game-server role: reads the game server's configuration; may have options of its own. */
export interface ServerRole<O = unknown> {
  readonly name: string;
  readonly summary: string;
  /** Usage lines particular to this role (the common part is added). */
  readonly usage: readonly string[];
  /**
   * Takes this role's own options (not configuration keys) out of `rest`;
   * `given` names one that was present, so that the other roles can refuse
   * it ("applies to the dev command only").
   */
  takeOptions?(rest: readonly string[]): OwnOptions<O>;
  run(run: ServerRun, options: O | undefined): Promise<number>;
}

/** Flags of the front end that are not configuration keys. */
const FRONT_END_FLAGS = new Set(["--tui", "--no-cli"]);

const COMMON_USAGE = [
  "",
  "Configuration: every key can be set in server_config.yml (--config <file> names another), as PM_<KEY> in",
  "the environment, or as --<key-in-kebab-case> on the command line, in that order of precedence (README.md).",
];

/** The full usage text of a game-server role. */
export function serverRoleUsage(role: ServerRole): string {
  return [`Usage: chorus ${role.name} [--config <file>] [--<key> <value> \u2026]`, "", ...role.usage, ...COMMON_USAGE]
    .join("\n");
}

/** Arguments up to `--` (everything after it is positional). */
function beforeDashes(rest: readonly string[]): readonly string[] {
  const end = rest.indexOf("--");
  return end < 0 ? rest : rest.slice(0, end);
}

/**
 * Runs a game-server role. `chosen` is the role named first on the command
 * line; without it the role is the first positional argument (default
 * `start`). `family` are the roles that share the configuration.
 */
export async function runServerRole(
  args: string[],
  family: readonly ServerRole[],
  chosen: ServerRole | null,
  mainUsage: () => string,
): Promise<number> {
  let loaded: LoadedConfig;
  try {
    loaded = await loadConfig({ args });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    // Warnings (unknown keys, ...) often explain the failure: show them first.
    for (const warning of error.warnings) console.error(`! ${warning}`);
    console.error(error.message);
    return EXIT.config;
  }
  // Each role's own options, taken out (and checked) before anything else reads the leftovers.
  let rest = loaded.rest;
  const given = new Map<ServerRole, { option: string; value: unknown }>();
  for (const role of family) {
    if (!role.takeOptions) continue;
    const own = role.takeOptions(rest);
    if (!own.ok) return usageError(own.message, chosen, mainUsage);
    rest = own.rest;
    if (own.given !== null) given.set(role, { option: own.given, value: own.value });
  }
  const options = beforeDashes(rest);
  const unknown = options.find((a) => a.startsWith("-") && a.length > 1 && !FRONT_END_FLAGS.has(a) && !isHelp(a));
  if (unknown) {
    const near = suggestFlag(unknown);
    return usageError(
      `unknown option ${unknown.split("=")[0]}${near ? `; did you mean ${near}?` : ""}`,
      chosen,
      mainUsage,
    );
  }
  const positionals = rest.filter((a) => !FRONT_END_FLAGS.has(a) && !isHelp(a) && a !== "--");
  let role = chosen;
  if (!role && positionals.length) {
    const name = positionals.shift()!;
    if (name === "help") return print(mainUsage()), EXIT.ok;
    role = family.find((r) => r.name === name) ?? null;
    if (!role) return usageError(`Unknown command: ${name}`, null, mainUsage);
  }
  role ??= family.find((r) => r.name === "start")!;
  if (options.some(isHelp)) {
    print(chosen || role.name !== "start" || positionals.length ? serverRoleUsage(role) : mainUsage());
    return EXIT.ok;
  }
  for (const [owner, { option }] of given) {
    if (owner !== role) return usageError(`${option} applies to the ${owner.name} command only`, chosen, mainUsage);
  }
  if (positionals.length) {
    const s = positionals.length > 1 ? "s" : "";
    return usageError(`Unexpected argument${s}: ${positionals.join(" ")}`, chosen, mainUsage);
  }
  const run: ServerRun = { loaded, args, tui: rest.includes("--tui"), console: !rest.includes("--no-cli") };
  return await role.run(run, given.get(role)?.value);
}

function usageError(message: string, role: ServerRole | null, mainUsage: () => string): number {
  console.error(`${message}\n\n${role ? serverRoleUsage(role) : mainUsage()}`);
  return EXIT.usage;
}

/** A game-server role as an entry of the role table (`chorus <name> ...`). */
export function asRole(role: ServerRole, family: () => readonly ServerRole[], mainUsage: () => string): Role {
  return {
    name: role.name,
    summary: role.summary,
    get usage() {
      return serverRoleUsage(role);
    },
    run: (args) => runServerRole(args, family(), role, mainUsage),
  };
}
