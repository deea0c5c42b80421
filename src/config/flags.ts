/**
 * The command-line layer. Rule: `--<key-in-kebab-case>`; nested keys join kebab-case segments with a dot
 * (`--openuds.enabled`, `--wasm-runtime.max-memory-mb`), mirroring `__` in environment names. `_` is accepted for
 * `-`. Values: `--key value` or `--key=value`; booleans: `--key` (true), `--no-key` (false), `--key=false`, or
 * `--key` followed by a boolean word. `--config <file>` names the configuration file. Anything else (positionals,
 * `--tui`, `-h`, everything after `--`) is returned untouched, in order, for the caller.
 *
 * @module
 */

import { assignText, emptyLayer, isBooleanWord, type LayerResult } from "./coerce.ts";
import { keyByFlag, type KeyInfo, LEAF_KEYS } from "./keys.ts";
import { isSecretPath } from "./mask.ts";
import { editDistance } from "./suggest.ts";
import type { ConfigSource } from "./sources.ts";

/** The flag naming the configuration file. */
export const CONFIG_FLAG = "--config";

/** Flags split into configuration assignments and the caller's remaining arguments. */
export interface FlagResult extends LayerResult {
  /** Value of `--config`, or `null` when not given. */
  readonly configPath: string | null;
  /** Arguments that are not configuration flags, in their original order. */
  readonly rest: string[];
}

/** Finds the key a flag sets; `--no-<key>` only for boolean keys. */
function lookup(name: string, hasInline: boolean): { info: KeyInfo; negated: boolean } | null {
  const info = keyByFlag(name);
  if (info) return { info, negated: false };
  if (!name.startsWith("--no-") || hasInline) return null;
  const positive = keyByFlag("--" + name.slice(5));
  return positive?.kind === "boolean" ? { info: positive, negated: true } : null;
}

/** Splits `args` into configuration flags and the rest. Never throws; problems are collected. */
export function parseFlags(args: readonly string[]): FlagResult {
  const out = emptyLayer();
  const rest: string[] = [];
  let configPath: string | null = null;
  let i = 0;
  /** The next argument as a value, unless it is missing or looks like another long flag. */
  const takeValue = (): string | null => {
    const next = args[i + 1];
    if (next === undefined || next.startsWith("--")) return null;
    i++;
    return next;
  };
  for (; i < args.length; i++) {
    const arg = args[i] ?? "";
    if (arg === "--") {
      rest.push(...args.slice(i));
      break;
    }
    if (!arg.startsWith("--")) {
      rest.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    const name = eq < 0 ? arg : arg.slice(0, eq);
    const inline = eq < 0 ? null : arg.slice(eq + 1);
    if (name === CONFIG_FLAG) {
      configPath = inline ?? takeValue();
      if (configPath === null) out.problems.push(`flag ${CONFIG_FLAG} needs a file path`);
      continue;
    }
    const found = lookup(name, inline !== null);
    if (!found) {
      rest.push(arg);
      continue;
    }
    const { info, negated } = found;
    const source: ConfigSource = { kind: "flag", name };
    let text: string | null;
    if (negated) text = "false";
    else if (inline !== null) text = inline;
    else if (info.kind === "boolean") text = isBooleanWord(args[i + 1] ?? "") ? takeValue() : "true";
    else text = takeValue();
    if (text === null) {
      out.problems.push(`flag ${name} needs a value (${info.path})`);
      continue;
    }
    const before = out.assignments.length;
    assignText(info, text, source, out);
    if (out.assignments.slice(before).some((a) => isSecretPath(a.path))) {
      out.warnings.push(`Secret ${info.path} given on the command line (${name}) is visible in the process list`);
    }
  }
  return { ...out, configPath, rest };
}

/** A flag name compared loosely: lower case, with `_` and `.` read as `-` (`--openuds-enabled` ~ `--openuds.enabled`). */
function looseName(flag: string): string {
  return flag.replace(/^--/, "").toLowerCase().replace(/[_.]/g, "-");
}

/**
 * The configuration flag nearest to an unknown one (a typo, or `-` written
 * for the `.` of a nested key), or null when nothing is close enough to be a
 * useful suggestion. `--no-<x>` is matched against boolean keys as `--no-<key>`.
 */
export function suggestFlag(flag: string): string | null {
  const name = flag.split("=")[0]!;
  const negated = name.startsWith("--no-");
  const target = looseName(negated ? "--" + name.slice(5) : name);
  const candidates = [
    ...LEAF_KEYS.filter((k) => !negated || k.kind === "boolean").map((k) => k.flag),
    ...(negated ? [] : [CONFIG_FLAG]),
  ];
  let best: string | null = null;
  let bestDistance = Math.max(1, Math.floor(target.length / 3)) + 1;
  for (const candidate of candidates) {
    const distance = editDistance(target, looseName(candidate));
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  return best && negated ? "--no-" + best.slice(2) : best;
}

/**
 * Drops the `--` of `deno task start -- --port 8000`. With npm that `--` separates the runner's options from the
 * script's and is not passed on; `deno task` passes it on. Chorus takes no positional arguments, so a `--` first or
 * right after the command means only that.
 */
export function dropTaskSeparator(args: readonly string[]): string[] {
  if (args[0] === "--") return args.slice(1);
  if (args[1] === "--" && !(args[0] ?? "-").startsWith("-")) return [args[0]!, ...args.slice(2)];
  return [...args];
}
