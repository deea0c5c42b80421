/**
 * The program roles of `chorus` (`main.ts` dispatches to them): one module
 * each, listed once in {@link ROLES}. A role brings its own options, usage
 * text (`chorus <role> --help`) and configuration. The game-server roles
 * (`start`, `dev`, `check-config`, `convert-store`) share the game server's configuration
 * and front end (`server_role.ts`); the load generator has its own options.
 * Other roles (`legacy`, `proxy`, `accounts`, `companions`) are added the
 * same way: a module here and one line in the table.
 *
 * @module
 */

import denoConfig from "../../deno.json" with { type: "json" };
import { accountsRole } from "./accounts.ts";
import { checkConfig } from "./check_config.ts";
import { companionsRole } from "./companions.ts";
import { convertStore } from "./convert_store.ts";
import { dev } from "./dev.ts";
import { legacyRole } from "./legacy.ts";
import { loadRole } from "./load.ts";
import { proxyRole } from "./proxy.ts";
import { dropTaskSeparator } from "../config/flags.ts";
import { EXIT, isHelp, print, type Role } from "./role.ts";
import { asRole, runServerRole, type ServerRole } from "./server_role.ts";
import { start } from "./start.ts";

export { EXIT, type Role } from "./role.ts";

/** The roles that read the game server's configuration; `start` is the default. */
const SERVER_ROLES: readonly ServerRole[] = [start, checkConfig, dev, convertStore] as ServerRole[];

/** Every role, in the order `chorus help` lists them. */
export const ROLES: readonly Role[] = [
  ...SERVER_ROLES.map((r) => asRole(r, () => SERVER_ROLES, usage)),
  legacyRole,
  loadRole,
  companionsRole,
  accountsRole,
  proxyRole,
];

/** `chorus --version`: this build's version, the Deno runtime, the platform and whether it is the compiled binary. */
export function versionLine(): string {
  const how = Deno.build.standalone ? "binary" : "source";
  return `chorus ${denoConfig.version} (${how}; deno ${Deno.version.deno}; ${Deno.build.target})`;
}

/** `chorus help`. */
export function usage(): string {
  const width = Math.max(...ROLES.map((r) => r.name.length), "help".length) + 3;
  return [
    "Chorus \u2014 multiplayer server for Phira",
    "",
    "Usage: chorus [role] [--config <file>] [--<key> <value> \u2026]",
    "       chorus <role> --help",
    "       chorus --version",
    "",
    "Roles:",
    ...ROLES.map((r) => `  ${r.name.padEnd(width)}${r.summary}`),
    `  ${"help".padEnd(width)}show this text`,
    "",
    "Every configuration key can be set in server_config.yml, as PM_<KEY> in the",
    "environment, or as --<key-in-kebab-case> on the command line (in that order of",
    "precedence). See README.md.",
  ].join("\n");
}

/** Runs `chorus <args>`; resolves with the exit code (see {@link EXIT}). */
export async function runChorus(given: string[]): Promise<number> {
  // `deno task start -- --port 5` passes the `--` on: it is not an argument of ours.
  const args = dropTaskSeparator(given);
  const [first, ...rest] = args;
  if (first === "--version" || first === "-V" || first === "version") {
    print(versionLine());
    return EXIT.ok;
  }
  const role = ROLES.find((r) => r.name === first);
  if (role) return await role.run(rest);
  if (isHelp(first)) {
    print(usage());
    return EXIT.ok;
  }
  // No role first: configuration flags may come before a game-server role's name (`chorus --port 5 dev`).
  return await runServerRole(args, SERVER_ROLES, null, usage);
}
