/**
 * The key table derived from {@link ConfigSchema}: dotted paths, value kinds, docs, defaults, secrecy, and the
 * environment variable and command-line flag of each key.
 *
 * @module
 */

import * as z from "../util/zod.ts";
import { ConfigSchema, defaultConfig, type KeyMeta } from "./schema.ts";

/** How a key's value is typed, which decides how text from the environment or a flag is coerced. */
export type KeyKind = "integer" | "number" | "boolean" | "string" | "enum" | "list" | "map" | "section";

/** One configuration key (a leaf) or section. */
export interface KeyInfo {
  /** Dotted path, e.g. `port` or `openuds.enabled`. */
  readonly path: string;
  /** Path segments, e.g. `["openuds", "enabled"]`. */
  readonly segments: readonly string[];
  readonly kind: KeyKind;
  /** Kind of list items (`integer`, `string`, ...) for `list` keys. */
  readonly itemKind: KeyKind | null;
  /** Whether `null` is a valid value (unset / off). */
  readonly nullable: boolean;
  /** Enum options for `enum` keys. */
  readonly options: readonly string[];
  readonly doc: string;
  readonly secret: boolean;
  readonly defaultValue: unknown;
  /** Environment variable: `PM_` + upper-case segments joined by `__`. */
  readonly env: string;
  /** Command-line flag: `--` + kebab-case segments joined by `.`. */
  readonly flag: string;
}

const WRAPPERS = new Set(["default", "prefault", "nullable", "optional"]);

/** Strips default/nullable wrappers and reports whether `null` was allowed on the way. */
function unwrap(schema: z.ZodMiniType): { inner: z.ZodMiniType; nullable: boolean } {
  let inner = schema;
  let nullable = false;
  while (WRAPPERS.has(inner.def.type)) {
    if (inner.def.type === "nullable") nullable = true;
    inner = (inner.def as unknown as { innerType: z.ZodMiniType }).innerType;
  }
  return { inner, nullable };
}

/** True for a number schema of an integer format: `z.int()` is its own `number_format` check, as in `.check(z.int())`. */
function isInt(schema: z.ZodMiniType): boolean {
  const checks: { _zod: { def: unknown } }[] = [schema, ...(schema.def.checks ?? [])];
  return checks.some(({ _zod }) => {
    const def = _zod.def as { check?: string; format?: string };
    return def.check === "number_format" && def.format?.includes("int") === true;
  });
}

/** Kind of an unwrapped schema. */
function kindOf(inner: z.ZodMiniType): KeyKind {
  switch (inner.def.type) {
    case "number":
      return isInt(inner) ? "integer" : "number";
    case "boolean":
      return "boolean";
    case "enum":
      return "enum";
    case "array":
      return "list";
    case "record":
      return "map";
    case "object":
      return "section";
    default:
      return "string"; // strings, string formats and unions of string formats
  }
}

function describe(schema: z.ZodMiniType, segments: string[], defaultValue: unknown): KeyInfo {
  const { inner, nullable } = unwrap(schema);
  const kind = kindOf(inner);
  const meta = (z.globalRegistry.get(schema) ?? {}) as Partial<KeyMeta>;
  const item = kind === "list" ? (inner.def as unknown as { element: z.ZodMiniType }).element : null;
  return {
    path: segments.join("."),
    segments,
    kind,
    itemKind: item ? kindOf(unwrap(item).inner) : null,
    nullable,
    options: kind === "enum"
      ? Object.values((inner.def as unknown as { entries: Record<string, string> }).entries)
      : [],
    doc: meta.description ?? "",
    secret: meta.secret === true,
    defaultValue,
    env: "PM_" + segments.map((s) => s.toUpperCase()).join("__"),
    flag: "--" + segments.map((s) => s.replaceAll("_", "-")).join("."),
  };
}

function build(): readonly KeyInfo[] {
  const defaults = defaultConfig() as Record<string, unknown>;
  const out: KeyInfo[] = [];
  for (const [name, schema] of Object.entries(ConfigSchema.shape) as [string, z.ZodMiniType][]) {
    const info = describe(schema, [name], defaults[name]);
    out.push(info);
    if (info.kind !== "section") continue;
    const shape = (unwrap(schema).inner as unknown as { shape: Record<string, z.ZodMiniType> }).shape;
    const sectionDefaults = defaults[name] as Record<string, unknown>;
    for (const [child, childSchema] of Object.entries(shape)) {
      out.push(describe(childSchema, [name, child], sectionDefaults[child]));
    }
  }
  return Object.freeze(out.map((k) => Object.freeze(k)));
}

/** Every section and key in schema order (a section precedes its keys). */
export const CONFIG_KEYS: readonly KeyInfo[] = build();

/** Leaf keys only (no sections), in schema order. */
export const LEAF_KEYS: readonly KeyInfo[] = CONFIG_KEYS.filter((k) => k.kind !== "section");

/** Dotted paths of the secret keys, derived from the `secret` marks in the schema. */
export const SECRET_KEYS: readonly string[] = LEAF_KEYS.filter((k) => k.secret).map((k) => k.path);

const BY_PATH: ReadonlyMap<string, KeyInfo> = new Map(CONFIG_KEYS.map((k) => [k.path, k]));
const BY_ENV: ReadonlyMap<string, KeyInfo> = new Map(CONFIG_KEYS.map((k) => [k.env, k]));
const BY_FLAG: ReadonlyMap<string, KeyInfo> = new Map(CONFIG_KEYS.map((k) => [k.flag, k]));

/** Looks a key or section up by dotted path. */
export function keyByPath(path: string): KeyInfo | undefined {
  return BY_PATH.get(path);
}

/** Looks a key or section up by environment variable name (exact, upper case). */
export function keyByEnv(name: string): KeyInfo | undefined {
  return BY_ENV.get(name);
}

/** Looks a key or section up by flag name; `_` is accepted for `-` (`--http_port` = `--http-port`). */
export function keyByFlag(flag: string): KeyInfo | undefined {
  return BY_FLAG.get(flag.slice(0, 2) + flag.slice(2).toLowerCase().replaceAll("_", "-"));
}
