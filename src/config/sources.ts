/**
 * Where a configuration value came from, and the assignment records the file, environment and flag readers produce.
 *
 * @module
 */

/** Origin of one configuration value. */
export type ConfigSource =
  | { readonly kind: "default" }
  | { readonly kind: "file"; readonly path: string; readonly line: number | null }
  | { readonly kind: "env"; readonly name: string }
  | { readonly kind: "flag"; readonly name: string };

/** One value set by a layer, before validation. */
export interface Assignment {
  /** Dotted key path (a leaf key, or a section whose value was not a mapping). */
  readonly path: string;
  readonly value: unknown;
  readonly source: ConfigSource;
  /**
   * Sources of the keys and items inside a mapping or list value, by full path (`welcome.messages.en-US`,
   * `monitors[1]`), so that a problem deep in the value names its own line. Only the file layer has them.
   */
  readonly nested?: ReadonlyMap<string, ConfigSource>;
}

/** The default source, shared because it carries no data. */
export const DEFAULT_SOURCE: ConfigSource = Object.freeze({ kind: "default" });

/** Short form for listings: `default`, `file server_config.yml`, `env PM_PORT`, `flag --port`. */
export function sourceLabel(source: ConfigSource): string {
  switch (source.kind) {
    case "default":
      return "default";
    case "file":
      return `file ${source.path}`;
    case "env":
      return `env ${source.name}`;
    case "flag":
      return `flag ${source.name}`;
  }
}

/** Long form for messages: `from file server_config.yml line 3`, `from environment PM_PORT`, `from flag --port`. */
export function sourcePhrase(source: ConfigSource): string {
  switch (source.kind) {
    case "default":
      return "default value";
    case "file":
      return `from file ${source.path}${source.line === null ? "" : ` line ${source.line}`}`;
    case "env":
      return `from environment ${source.name}`;
    case "flag":
      return `from flag ${source.name}`;
  }
}

/** True for a non-null, non-array object (a YAML/JSON mapping). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
