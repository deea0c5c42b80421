/**
 * The dependency rules of docs/architecture.md ("Dependency rules") hold:
 * every import between modules of `src/` (and `main.ts`, `legacy/`,
 * `plugins/` when they exist) is an edge the document's table allows; every
 * folder of `src/` has a row; a transitional edge (marked `*`) that no
 * longer exists must leave the table. The table is the one source: this test
 * parses it, so the document cannot drift from what is checked.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const DOC = join(ROOT, "docs/architecture.md");

/** A module's rule: what it may import, and which of those edges are transitional. */
interface Rule {
  readonly allowed: ReadonlySet<string>;
  readonly transitional: ReadonlySet<string>;
}

/** The module a path (relative to the repository) belongs to, or null when it is none (tests/, deno.json, …). */
export function moduleOf(path: string): string | null {
  const parts = path.split("/");
  if (path === "main.ts") return "main";
  if (parts[0] === "legacy" || parts[0] === "plugins") return `${parts[0]}/`;
  if (parts[0] !== "src" || parts.length < 2) return null;
  if (parts.length === 2) return /^app(_[a-z_]+)?\.ts$/.test(parts[1]!) ? "app" : `src/${parts[1]}`;
  return parts[1]!;
}

/** The module named by a table cell: `src/x/` → `x`, `src/app.ts` → `app`, `main.ts` → `main`, `legacy/` as is. */
function cellModule(cell: string): string {
  if (cell === "main.ts") return "main";
  if (cell === "src/app.ts") return "app";
  const m = /^src\/([a-z0-9_]+)\/$/.exec(cell);
  return m ? m[1]! : cell;
}

/** Parses the "Dependency rules" table of docs/architecture.md. */
export function parseRules(markdown: string): Map<string, Rule> {
  const section = markdown.split(/^## /m).find((s) => s.startsWith("Dependency rules"));
  if (!section) {
    throw new Error("Cannot check the architecture: docs/architecture.md has no 'Dependency rules' section");
  }
  const rules = new Map<string, Rule>();
  for (const line of section.split("\n")) {
    const cells = /^\|\s*`([^`]+)`\s*\|(.*)\|\s*$/.exec(line);
    if (!cells) continue;
    const allowed = new Set<string>();
    const transitional = new Set<string>();
    for (const m of cells[2]!.matchAll(/`([^`]+)`(\\?\*)?/g)) {
      allowed.add(m[1]!);
      if (m[2]) transitional.add(m[1]!);
    }
    rules.set(cellModule(cells[1]!), { allowed, transitional });
  }
  return rules;
}

/** Relative import specifiers of a source file, with their line numbers (comments stripped first). */
export function importsOf(source: string): { spec: string; line: number }[] {
  // Blank out comments but keep line breaks, so that line numbers stay right and examples in docs do not count.
  const code = source
    .replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, " "))
    .replace(/^\s*\/\/.*$/gm, (c) => " ".repeat(c.length));
  const out: { spec: string; line: number }[] = [];
  const patterns = [/\bfrom\s*"([^"]+)"/g, /\bimport\s*\(\s*"([^"]+)"\s*\)/g, /^\s*import\s+"([^"]+)"/gm];
  for (const pattern of patterns) {
    for (const m of code.matchAll(pattern)) {
      const spec = m[1]!;
      if (!spec.startsWith(".")) continue;
      out.push({ spec, line: code.slice(0, m.index).split("\n").length });
    }
  }
  return out;
}

/** Source files of the checked trees (tests and benches excluded), relative to the repository. */
async function sources(): Promise<string[]> {
  const files: string[] = ["main.ts"];
  const walk = async (dir: string): Promise<void> => {
    const entries: Deno.DirEntry[] = [];
    try {
      for await (const e of Deno.readDir(join(ROOT, dir))) entries.push(e);
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return;
      throw error;
    }
    for (const e of entries) {
      const path = `${dir}/${e.name}`;
      if (e.isDirectory) await walk(path);
      else if (/\.(ts|tsx|js|mjs)$/.test(e.name) && !/(_test|_test_util|_bench)\.ts$/.test(e.name)) files.push(path);
    }
  };
  for (const dir of ["src", "legacy", "plugins"]) await walk(dir);
  return files;
}

/** Every import edge between modules: `from → to` with where it is. */
async function edges(): Promise<{ from: string; to: string; where: string }[]> {
  const out: { from: string; to: string; where: string }[] = [];
  for (const file of await sources()) {
    const from = moduleOf(file);
    if (!from) continue;
    for (const { spec, line } of importsOf(await Deno.readTextFile(join(ROOT, file)))) {
      const target = relative(ROOT, resolve(ROOT, file, "..", spec));
      const to = moduleOf(target);
      if (to === null || to === from) continue;
      out.push({ from, to, where: `${file}:${line} imports "${spec}"` });
    }
  }
  return out;
}

Deno.test("architecture: the rules table parses, and every module of src/ has a row", async () => {
  const rules = parseRules(await Deno.readTextFile(DOC));
  for (const m of ["util", "server", "room", "session", "app", "main", "roles", "ops", "legacy/", "plugins/"]) {
    ok(rules.has(m), `the table has a row for ${m}`);
  }
  const folders: string[] = [];
  for await (const e of Deno.readDir(join(ROOT, "src"))) if (e.isDirectory) folders.push(e.name);
  const missing = folders.filter((f) => !rules.has(f)).sort();
  deepEqual(
    missing,
    [],
    `src/ folders without a row in docs/architecture.md "Dependency rules": ${missing.join(", ")}`,
  );
});

Deno.test("architecture: every import between modules is allowed by docs/architecture.md", async () => {
  const rules = parseRules(await Deno.readTextFile(DOC));
  const found = await edges();
  ok(found.length > 100, "the import scan sees the code");
  const violations = found.filter((e) => !rules.get(e.from)?.allowed.has(e.to)).map((e) =>
    `${e.from} → ${e.to}: ${e.where}`
  );
  equal(
    violations.length,
    0,
    `imports that docs/architecture.md "Dependency rules" does not allow:\n  ${violations.join("\n  ")}\n` +
      "Import through an allowed module, or change the rule in the document (with the reason) if the layering changed.",
  );
});

Deno.test("architecture: each transitional edge still exists (tighten the table when one goes)", async () => {
  const rules = parseRules(await Deno.readTextFile(DOC));
  const present = new Set((await edges()).map((e) => `${e.from} → ${e.to}`));
  const stale = [...rules].flatMap(([from, rule]) =>
    [...rule.transitional].map((to) => `${from} → ${to}`).filter((edge) => !present.has(edge))
  );
  deepEqual(stale, [], `transitional edges that are gone: remove them from docs/architecture.md: ${stale.join(", ")}`);
});

Deno.test("architecture: the import scanner reads static, re-export, dynamic and side-effect imports, not comments", () => {
  const source = [
    "/** @example",
    ' * import { x } from "../http/mod.ts";',
    " */",
    'import { a } from "../util/clock.ts";',
    'export { b } from "./b.ts";',
    "import type {",
    "  C,",
    '} from "../room/mod.ts";',
    'const d = await import("../events/mod.ts");',
    'import "./side.ts";',
    '// import { e } from "../console/mod.ts";',
    'import { z } from "zod/mini";',
  ].join("\n");
  deepEqual(importsOf(source).map((i) => [i.spec, i.line]).sort(), [
    ["../events/mod.ts", 9],
    ["../room/mod.ts", 8],
    ["../util/clock.ts", 4],
    ["./b.ts", 5],
    ["./side.ts", 10],
  ]);
  equal(moduleOf("src/server/core.ts"), "server");
  equal(moduleOf("src/app_health.ts"), "app");
  equal(moduleOf("main.ts"), "main");
  equal(moduleOf("legacy/lua/host.ts"), "legacy/");
  equal(moduleOf("deno.json"), null);
  equal(moduleOf("tests/support/harness.ts"), null);
});
