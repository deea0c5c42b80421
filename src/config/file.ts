/**
 * The file layer: `server_config.yml` parsed as YAML 1.2, with the line of every key kept for messages.
 *
 * @module
 */

import { isMap, isScalar, LineCounter, parseDocument, type YAMLMap } from "yaml";
import { emptyLayer, expandValue, type LayerResult } from "./coerce.ts";
import { isPlainObject } from "./sources.ts";

/** Records the 1-based line of each key of `map` (and of nested mappings) under its dotted path. */
function collectLines(map: YAMLMap, prefix: string, counter: LineCounter, lines: Map<string, number>, depth = 0) {
  for (const pair of map.items) {
    const key = pair.key;
    if (!isScalar(key) || !key.range) continue;
    const path = prefix + String(key.value);
    lines.set(path, counter.linePos(key.range[0]).line);
    if (isMap(pair.value) && depth < 3) collectLines(pair.value, path + ".", counter, lines, depth + 1);
  }
}

/**
 * Parses configuration file text. `displayPath` is how the file is named in messages (as the user gave it).
 * Syntax errors become problems naming the file, line and column; unknown keys become warnings.
 */
export function readConfigFile(text: string, displayPath: string): LayerResult {
  const out = emptyLayer();
  const counter = new LineCounter();
  const doc = parseDocument(text, { lineCounter: counter, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    for (const error of doc.errors) {
      const at = counter.linePos(error.pos[0]);
      out.problems.push(`cannot parse ${displayPath} line ${at.line} column ${at.col}: ${error.message}`);
    }
    return out;
  }
  for (const warning of doc.warnings) out.warnings.push(`${displayPath}: ${warning.message}`);
  if (doc.contents === null) return out; // empty file: defaults apply
  if (!isMap(doc.contents)) {
    out.problems.push(`cannot use ${displayPath}: expected a mapping of configuration keys at the top level`);
    return out;
  }
  const lines = new Map<string, number>();
  collectLines(doc.contents, "", counter, lines);
  const value: unknown = doc.toJS({ maxAliasCount: 100 });
  if (!isPlainObject(value)) return out;
  const sourceOf = (path: string) => ({ kind: "file", path: displayPath, line: lines.get(path) ?? null }) as const;
  for (const [key, v] of Object.entries(value)) expandValue([key], v, sourceOf, out);
  return out;
}
