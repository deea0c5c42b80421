/**
 * The configuration boundary's error.
 *
 * @module
 */

/** Thrown by `loadConfig` when the configuration cannot be used; lists every problem found, not just the first. */
export class ConfigError extends Error {
  /** Stable code for callers (the CLI maps it to exit status 3). */
  readonly code = "CONFIG_INVALID";
  /** One line per problem: `key = value (from source): reason`. */
  readonly problems: readonly string[];
  /** Warnings gathered before the failure, so the caller can still show them. */
  readonly warnings: readonly string[];

  constructor(problems: readonly string[], warnings: readonly string[] = []) {
    super(problems.map((p) => `Invalid configuration: ${p}`).join("\n"));
    this.name = "ConfigError";
    this.problems = problems;
    this.warnings = warnings;
  }
}
