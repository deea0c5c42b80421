/**
 * Loading: defaults < file < environment < command line, validated by the schema, with the source of every value.
 * A pure function of its inputs, so `config reload` simply calls it again.
 *
 * @module
 */

import { resolve } from "node:path";
import type * as z from "../util/zod.ts";
import { checkConfig } from "./checks.ts";
import { emptyLayer, type LayerResult } from "./coerce.ts";
import { type EnvVars, readEnv, type ReadTextFile } from "./env.ts";
import { ConfigError } from "./errors.ts";
import { parseFlags } from "./flags.ts";
import { keyByPath, LEAF_KEYS } from "./keys.ts";
import { formatProblem } from "./mask.ts";
import { type Config, ConfigSchema, TableRetentionSchema } from "./schema.ts";
import { type Assignment, type ConfigSource, DEFAULT_SOURCE, isPlainObject, sourcePhrase } from "./sources.ts";

/** The configuration file used when `--config` is not given; missing is fine (defaults apply). */
export const DEFAULT_CONFIG_FILE = "server_config.yml";

/** Inputs of {@link loadConfig}; each defaults to the real process (`Deno.args`, `Deno.env`, `Deno.cwd()`, disk). */
export interface LoadOptions {
  /** Command-line arguments, subcommand included; non-configuration arguments come back in `rest`. */
  readonly args?: readonly string[];
  readonly env?: EnvVars;
  /** Directory that relative paths (`--config`, `PM_DATABASE_URL_FILE`) are resolved against. */
  readonly cwd?: string;
  /** Reads a file by absolute path, `null` when it does not exist. */
  readonly readTextFile?: ReadTextFile;
}

/** A validated configuration with the origin of each value. */
export interface LoadedConfig {
  readonly config: Config;
  /** Source of every leaf key (dotted path, e.g. `openuds.enabled`), `default` when no layer set it. */
  readonly sources: Map<string, ConfigSource>;
  readonly warnings: string[];
  /** Absolute path of the configuration file read, or `null` when none was. */
  readonly file: string | null;
  /** Arguments that are not configuration flags (subcommands, `--tui`, `--help`, ...), in order. */
  readonly rest: string[];
  /**
   * What profile Production would refuse, one line per finding, in profile Development, where they are not warnings
   * (`check-config` lists them; the start-up log sums them up in one line: `productionSummary`).
   */
  readonly production?: readonly string[];
}

/** Reads a file from disk; `null` when it does not exist. */
export function readTextFileFromDisk(path: string): string | null {
  try {
    return Deno.readTextFileSync(path);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return null;
    throw e;
  }
}

/** Writes `value` at `segments`, replacing non-mapping intermediates (a later layer overrides an earlier one). */
function setPath(tree: Record<string, unknown>, segments: readonly string[], value: unknown): void {
  let node = tree;
  for (const segment of segments.slice(0, -1)) {
    const next = node[segment];
    node = isPlainObject(next) ? next : (node[segment] = {}) as Record<string, unknown>;
  }
  node[segments[segments.length - 1] ?? ""] = value;
}

/** Value at an issue path of the merged input. */
function getPath(tree: unknown, path: readonly PropertyKey[]): unknown {
  let node = tree;
  for (const segment of path) {
    if (typeof node !== "object" || node === null) return undefined;
    node = (node as Record<PropertyKey, unknown>)[segment];
  }
  return node;
}

/** Result of {@link merge}. */
interface Merged {
  tree: Record<string, unknown>;
  /** Source of each assigned path (leaf keys, or sections given whole). */
  assigned: Map<string, ConfigSource>;
  /** Sources of keys and items inside assigned mapping and list values (file layer), by full path. */
  nested: Map<string, ConfigSource>;
}

/** True when `path` is `base` or lies under it (`base.x`, `base[0]`). */
function isAtOrUnder(path: string, base: string): boolean {
  return path === base || path.startsWith(base + ".") || path.startsWith(base + "[");
}

/** Merges assignments in layer order; `""` means unset (`null`) for nullable keys, whatever the source. */
function merge(assignments: readonly Assignment[]): Merged {
  const tree: Record<string, unknown> = {};
  const assigned = new Map<string, ConfigSource>();
  const nested = new Map<string, ConfigSource>();
  for (const { path, value, source, nested: inner } of assignments) {
    const info = keyByPath(path);
    setPath(tree, path.split("."), info?.nullable && value === "" ? null : value);
    for (const key of [...assigned.keys()]) if (key.startsWith(path + ".")) assigned.delete(key);
    // A later layer replaces the value whole, so the positions inside the earlier value no longer apply; the same
    // goes for a section that was given whole (not as a mapping) and is now replaced by one of its keys.
    const top = path.split(".")[0] ?? "";
    const replaced = assigned.delete(top) ? top : path;
    for (const key of [...nested.keys()]) if (isAtOrUnder(key, replaced) || isAtOrUnder(key, path)) nested.delete(key);
    assigned.set(path, source);
    for (const [key, at] of inner ?? []) nested.set(key, at);
  }
  return { tree, assigned, nested };
}

/** Source of the value at `path`: the deepest part of it whose source is known, else the default. */
function sourceAt(path: readonly PropertyKey[], merged: Merged): ConfigSource {
  for (let i = path.length; i > 0; i--) {
    const prefix = displayPath(path.slice(0, i));
    const found = merged.nested.get(prefix) ?? merged.assigned.get(prefix);
    if (found) return found;
  }
  return DEFAULT_SOURCE;
}

/** Fields a `table_retention` rule understands; anything else is warned about and ignored. */
const RETENTION_RULE_FIELDS: ReadonlySet<string> = new Set(Object.keys(TableRetentionSchema.shape));

/**
 * Unknown fields inside `table_retention` rules, as warnings like every other unknown key: a typo must not stop the
 * server (the rule then lacks the field, and `checks.ts` warns when that leaves it doing nothing).
 */
function unknownRuleFields(merged: Merged): string[] {
  const out: string[] = [];
  const rules = merged.tree.table_retention;
  if (!isPlainObject(rules)) return out;
  for (const [table, rule] of Object.entries(rules)) {
    if (!isPlainObject(rule)) continue;
    for (const field of Object.keys(rule)) {
      if (RETENTION_RULE_FIELDS.has(field)) continue;
      const segments = ["table_retention", table, field];
      const source = sourcePhrase(sourceAt(segments, merged));
      out.push(`Unknown configuration key "${segments.join(".")}" (${source}) is ignored`);
    }
  }
  return out;
}

/** `openuds.max_connections`, `monitors[1]`. */
function displayPath(path: readonly PropertyKey[]): string {
  return path.map((s, i) => typeof s === "number" ? `[${s}]` : (i === 0 ? "" : ".") + String(s)).join("");
}

/** Turns a schema issue into `key = value (from source): reason`. */
function describeIssue(issue: z.core.$ZodIssue, merged: Merged): string {
  let value = getPath(merged.tree, issue.path);
  let message = issue.message.replace(/^Invalid input: /, "");
  if (issue.code === "invalid_key") {
    value = issue.path[issue.path.length - 1];
    message = `invalid key: ${issue.issues[0]?.message ?? message}`;
  } else if (issue.code === "unrecognized_keys") {
    message = `unknown field ${issue.keys.map((k) => JSON.stringify(k)).join(", ")}`;
  }
  return formatProblem(displayPath(issue.path), value, sourceAt(issue.path, merged), message);
}

/**
 * Loads and validates the configuration. Throws {@link ConfigError} listing every problem: wrong types or values
 * (naming key, value and source), unreadable or invalid files, and the profile rules of `checks.ts`.
 */
export async function loadConfig(options: LoadOptions = {}): Promise<LoadedConfig> {
  const args = options.args ?? Deno.args;
  const env = options.env ?? Deno.env.toObject();
  const cwd = options.cwd ?? Deno.cwd();
  const read = options.readTextFile ?? readTextFileFromDisk;
  const resolvePath = (p: string) => resolve(cwd, p);

  const flags = parseFlags(args);
  const displayFile = flags.configPath ?? DEFAULT_CONFIG_FILE;
  const fileLayer = emptyLayer();
  let file: string | null = null;
  if (flags.configPath !== "") {
    const absolute = resolvePath(displayFile);
    let text: string | null = null;
    try {
      text = read(absolute);
    } catch (e) {
      fileLayer.problems.push(`cannot read ${displayFile}: ${e instanceof Error ? e.message : String(e)}`);
    }
    if (text === null && flags.configPath !== null && fileLayer.problems.length === 0) {
      fileLayer.problems.push(`configuration file ${displayFile} not found (from flag --config)`);
    }
    if (text !== null) {
      file = absolute;
      // The YAML parser is loaded only when there is a file to read: a server on its defaults never needs it.
      const { readConfigFile } = await import("./file.ts");
      const parsed = readConfigFile(text, displayFile);
      fileLayer.assignments.push(...parsed.assignments);
      fileLayer.problems.push(...parsed.problems);
      fileLayer.warnings.push(...parsed.warnings);
    }
  }
  const envLayer = readEnv(env, read, resolvePath);
  const layers: LayerResult[] = [fileLayer, envLayer, flags];
  const problems = layers.flatMap((l) => l.problems);
  const warnings = layers.flatMap((l) => l.warnings);

  const merged = merge(layers.flatMap((l) => l.assignments));
  warnings.push(...unknownRuleFields(merged));
  const parsed = ConfigSchema.safeParse(merged.tree);
  if (!parsed.success) {
    problems.push(...parsed.error.issues.map((issue) => describeIssue(issue, merged)));
    throw new ConfigError(problems, warnings);
  }
  // A file that did not parse, a bad variable: the checks below would judge a configuration that is not the one
  // meant, and their warnings (what Production would refuse) would only bury the real problem.
  if (problems.length > 0) throw new ConfigError(problems, warnings);
  const sources = new Map<string, ConfigSource>();
  for (const key of LEAF_KEYS) sources.set(key.path, merged.assigned.get(key.path) ?? DEFAULT_SOURCE);
  const checked = checkConfig(parsed.data, sources, (path) => merged.nested.get(path));
  problems.push(...checked.problems);
  warnings.push(...checked.warnings);
  if (problems.length > 0) throw new ConfigError(problems, warnings);
  return { config: parsed.data, sources, warnings, file, rest: flags.rest, production: checked.production };
}
