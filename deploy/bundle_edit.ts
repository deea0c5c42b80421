/**
 * The two edits `deno task cache` makes to the bundle `deno bundle` writes
 * (`bundle.ts`), with its source map kept exact:
 *
 * - the sources' root URL written over the mark in
 *   `src/util/program_files.ts`, so that a bundle kept anywhere still finds
 *   the pages and scripts of its checkout;
 * - a dynamic import of a sibling module, `import("./x.js")`, written as
 *   `import(String("./x.js"))`. Deno loads every module that a literal
 *   dynamic import names when the program starts and keeps it in its
 *   module graph for the life of the process, run or not: the PGlite
 *   converter, the chart service, metrics and error reporting cost ~4 MiB
 *   there (issue 15). Written this way, a module is loaded when it is
 *   first imported, as in Node.
 *
 * Both edits change the length of a line, so the source map's generated
 * columns after an edit move by the same amount (the map's VLQ is read
 * and written by `@jridgewell/sourcemap-codec`).
 *
 * The maps also lose their copies of the sources (`sourcesContent`, two
 * thirds of their bytes): Deno reads a module's map when that module first
 * imports dynamically and keeps it, and stack traces need only the
 * mappings and the sources' paths (measured: 2.6 MiB less at start).
 *
 * @module
 */

import { decode, encode } from "@jridgewell/sourcemap-codec";

/** The string literal in `program_files.ts` that the build replaces with the root URL. */
export const ROOT_MARK = '"@@CHORUS_SOURCES_ROOT@@"';

/** One replacement inside a single line: columns `[start, end)` of `line` (0-based) become `text`. */
export interface LineEdit {
  readonly line: number;
  readonly start: number;
  readonly end: number;
  readonly text: string;
}

/** A bundled module and its source map (the `.map` file's JSON), or null when it has none. */
export interface BundledModule {
  readonly code: string;
  readonly map: string | null;
}

const SIBLING_IMPORT = /\bimport\(("\.\/[A-Za-z0-9_.-]+\.js")\)/g;

/** The edits for one module: every sibling dynamic import, and the root mark when `rootUrl` is given. */
export function bundleEdits(code: string, rootUrl: string): LineEdit[] {
  const edits: LineEdit[] = [];
  code.split("\n").forEach((text, line) => {
    for (const m of text.matchAll(SIBLING_IMPORT)) {
      edits.push({ line, start: m.index, end: m.index + m[0].length, text: `import(String(${m[1]}))` });
    }
    for (let at = text.indexOf(ROOT_MARK); at >= 0; at = text.indexOf(ROOT_MARK, at + ROOT_MARK.length)) {
      edits.push({ line, start: at, end: at + ROOT_MARK.length, text: JSON.stringify(rootUrl) });
    }
  });
  return edits;
}

/** A source map (JSON) without the sources' text; the mappings and the sources' paths stay. */
export function withoutSourcesContent(map: string): string {
  const parsed = JSON.parse(map) as { sourcesContent?: unknown };
  if (!("sourcesContent" in parsed)) return map;
  delete parsed.sourcesContent;
  return JSON.stringify(parsed);
}

/** Applies `edits` (non-overlapping) to `module`, moving the source map's generated columns with them. */
export function applyEdits(module: BundledModule, edits: readonly LineEdit[]): BundledModule {
  if (edits.length === 0) return module;
  const lines = module.code.split("\n");
  const byLine = Map.groupBy(edits, (e) => e.line);
  for (const [line, list] of byLine) {
    let text = lines[line] ?? "";
    // Right to left, so that earlier columns stay valid.
    for (const e of list.toSorted((a, b) => b.start - a.start)) {
      text = text.slice(0, e.start) + e.text + text.slice(e.end);
    }
    lines[line] = text;
  }
  const code = lines.join("\n");
  if (module.map === null) return { code, map: null };
  const map = JSON.parse(module.map) as { mappings: string };
  const decoded = decode(map.mappings);
  for (const [line, list] of byLine) {
    const segments = decoded[line];
    if (!segments) continue;
    for (const segment of segments) {
      let shift = 0;
      for (const e of list) if (e.end <= segment[0]) shift += e.text.length - (e.end - e.start);
      segment[0] += shift;
    }
  }
  map.mappings = encode(decoded);
  return { code, map: JSON.stringify(map) };
}
