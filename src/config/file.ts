/**
 * The file layer: `server_config.yml` parsed as YAML 1.2, with the line of every key kept for messages.
 *
 * @module
 */

import { isMap, isNode, isScalar, isSeq, LineCounter, parseDocument } from "yaml";
import { emptyLayer, expandValue, type LayerResult } from "./coerce.ts";
import { type ConfigSource, isPlainObject } from "./sources.ts";

/** Deeper structures are not walked for lines; no configuration value nests this far. */
const MAX_LINE_DEPTH = 8;

/**
 * Records the 1-based line of every key (dotted path) and list item (`path[i]`) under `node`, nested mappings and
 * lists included, so that a problem inside a map value (`welcome.messages.<tag>`) names the key's own line.
 */
function collectLines(node: unknown, prefix: string, counter: LineCounter, lines: Map<string, number>, depth = 0) {
  if (depth > MAX_LINE_DEPTH) return;
  if (isMap(node)) {
    for (const pair of node.items) {
      const key = pair.key;
      if (!isScalar(key) || !key.range) continue;
      const path = (prefix === "" ? "" : prefix + ".") + String(key.value);
      lines.set(path, counter.linePos(key.range[0]).line);
      collectLines(pair.value, path, counter, lines, depth + 1);
    }
  } else if (isSeq(node)) {
    node.items.forEach((item, i) => {
      const path = `${prefix}[${i}]`;
      const start = isNode(item) ? item.range?.[0] : undefined;
      if (start !== undefined) lines.set(path, counter.linePos(start).line);
      collectLines(item, path, counter, lines, depth + 1);
    });
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
  const sourceOf = (path: string): ConfigSource => ({ kind: "file", path: displayPath, line: lines.get(path) ?? null });
  for (const [key, v] of Object.entries(value)) expandValue([key], v, sourceOf, out);
  // Give each mapping or list value the lines of what lies inside it, for messages about its parts.
  const assignments = out.assignments.map((a) => {
    if (typeof a.value !== "object" || a.value === null) return a;
    const nested = new Map<string, ConfigSource>();
    for (const path of lines.keys()) {
      if (path.startsWith(a.path + ".") || path.startsWith(a.path + "[")) nested.set(path, sourceOf(path));
    }
    return nested.size === 0 ? a : { ...a, nested };
  });
  out.assignments.splice(0, out.assignments.length, ...assignments);
  return out;
}
