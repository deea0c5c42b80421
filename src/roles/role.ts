/**
 * What a program role is (`chorus <role>`): one module under `src/roles/`
 * with its own options, usage text and configuration, listed once in the
 * table of `mod.ts`. Adding a role (`legacy`, `proxy`, `accounts`,
 * `companions`) is one new module and one line in that table.
 *
 * @module
 */

/** Exit codes: 0 ok, 1 runtime failure, 2 usage error, 3 invalid configuration. */
export const EXIT = { ok: 0, runtime: 1, usage: 2, config: 3 } as const;

/** One program role. */
export interface Role {
  /** The subcommand: `chorus <name>`. */
  readonly name: string;
  /** One line for `chorus help`. */
  readonly summary: string;
  /** What `chorus <name> --help` prints. */
  readonly usage: string;
  /**
   * Runs the role with the arguments after its name (or, for a game-server
   * role named after configuration flags, all of them); resolves with the
   * exit code. The role reads its own options and its own configuration.
   */
  run(args: string[]): Promise<number>;
}

/** Prints lines to stdout. */
export function print(lines: string | readonly string[]): void {
  console.log(typeof lines === "string" ? lines : lines.join("\n"));
}

/** True for the words that ask for usage. */
export function isHelp(arg: string | undefined): boolean {
  return arg === "help" || arg === "--help" || arg === "-h";
}
