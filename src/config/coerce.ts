/**
 * Turning raw input into assignments: text from the environment or a flag is coerced by the key's schema kind,
 * and mappings (a YAML file, a JSON section) are expanded into one assignment per key.
 *
 * @module
 */

import { keyByPath, type KeyInfo, type KeyKind } from "./keys.ts";
import { type Assignment, type ConfigSource, isPlainObject, sourcePhrase } from "./sources.ts";
import { formatProblem } from "./mask.ts";
import { suggestKey, unknownName } from "./suggest.ts";

/** Result of coercing one text value. */
export type Coerced = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly message: string };

const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
const BOOLEANS: Readonly<Record<string, boolean>> = {
  true: true,
  false: false,
  "1": true,
  "0": false,
  yes: true,
  no: false,
  on: true,
  off: false,
};

/** True when `text` is one of the accepted boolean words (`true/false/1/0/yes/no/on/off`, any case). */
export function isBooleanWord(text: string): boolean {
  return Object.hasOwn(BOOLEANS, text.trim().toLowerCase());
}

/**
 * Coerces a scalar. Text that does not fit is passed on unchanged so that validation reports it with the key's own
 * message (`expected an integer between 1 and 65535`) and the original value.
 */
function scalar(kind: KeyKind, text: string, nullable: boolean, options: readonly string[]): unknown {
  const t = text.trim();
  if (nullable && (t === "" || (kind !== "string" && t.toLowerCase() === "null"))) return null;
  switch (kind) {
    case "integer":
    case "number":
      return NUMBER.test(t) ? Number(t) : text;
    case "boolean":
      return BOOLEANS[t.toLowerCase()] ?? text;
    case "enum":
      return options.find((o) => o.toLowerCase() === t.toLowerCase()) ?? text;
    default:
      return text;
  }
}

function json(text: string): Coerced {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (e) {
    return { ok: false, message: `invalid JSON (${e instanceof Error ? e.message : String(e)})` };
  }
}

/**
 * Coerces text for a key: numbers, booleans, case-insensitive enum options, `""`/`null` for nullable keys,
 * JSON (or comma-separated items) for lists and JSON objects for maps and sections.
 */
export function coerceText(info: KeyInfo, text: string): Coerced {
  const t = text.trim();
  switch (info.kind) {
    case "list": {
      if (t.startsWith("[")) return json(t);
      if (t === "") return { ok: true, value: [] };
      const kind = info.itemKind ?? "string";
      return { ok: true, value: t.split(",").map((item) => scalar(kind, item.trim(), false, [])) };
    }
    case "map":
    case "section": {
      if (t === "") return { ok: true, value: {} };
      const parsed = json(t);
      if (parsed.ok && !isPlainObject(parsed.value)) return { ok: false, message: "expected a JSON object" };
      return parsed;
    }
    default:
      return { ok: true, value: scalar(info.kind, text, info.nullable, info.options) };
  }
}

/** Sink for expansion results. */
export interface LayerResult {
  readonly assignments: Assignment[];
  readonly problems: string[];
  readonly warnings: string[];
}

/** A fresh empty {@link LayerResult}. */
export function emptyLayer(): LayerResult {
  return { assignments: [], problems: [], warnings: [] };
}

/**
 * Records `value` for the key at `segments`: sections given as mappings are expanded key by key, unknown keys are
 * warned about with their source and the nearest known key (refused when that key is a secret: `suggest.ts`),
 * everything else becomes one assignment.
 */
export function expandValue(
  segments: readonly string[],
  value: unknown,
  sourceOf: (path: string) => ConfigSource,
  out: LayerResult,
): void {
  const path = segments.join(".");
  const info = segments.some((s) => s.includes(".")) ? undefined : keyByPath(path);
  if (!info) {
    const unknown = unknownName(
      `Unknown configuration key "${path}" (${sourcePhrase(sourceOf(path))})`,
      suggestKey(path),
    );
    (unknown.problem ? out.problems : out.warnings).push(unknown.message);
    return;
  }
  if (info.kind === "section" && (isPlainObject(value) || value === null)) {
    for (const [k, v] of Object.entries(value ?? {})) expandValue([...segments, k], v, sourceOf, out);
    return;
  }
  out.assignments.push({ path, value, source: sourceOf(path) });
}

/** Coerces `text` for `info` and expands it into `out`, or records a problem naming key, value and source. */
export function assignText(info: KeyInfo, text: string, source: ConfigSource, out: LayerResult): void {
  const coerced = coerceText(info, text);
  if (!coerced.ok) {
    out.problems.push(formatProblem(info.path, text, source, coerced.message));
    return;
  }
  expandValue(info.segments, coerced.value, () => source, out);
}
