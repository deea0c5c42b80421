/**
 * Module sources stay within Latin-1 (issue 15, start-up memory). V8 keeps
 * every loaded module's source text on its heap (Deno hands it over with an
 * inline source map), and one character beyond Latin-1 anywhere in a module
 * -- an em dash in a comment is enough -- makes V8 hold the whole text at two
 * bytes per character: 2.2 MiB of a started server's heap before this rule.
 * Comments write such characters in ASCII (`--`, `->`, `...`); strings that
 * need them use `\u` escapes. The exceptions are catalogues that are text in
 * other scripts by nature, and tests, which a server never loads.
 */
import { deepEqual } from "node:assert/strict";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

/** Modules whose text is another script by nature: the Chinese catalogues. */
const EXEMPT = new Set([
  "src/l10n/zh_cn.ts",
  "src/l10n/zh_tw.ts",
  // The first-generation room service's status words, kept as its clients read them (companions role only).
  "src/companions/room_service.ts",
]);

async function* modules(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) yield* modules(path);
    else if (entry.name.endsWith(".ts") && !/_(test|bench)\.ts$/.test(entry.name)) yield path;
  }
}

/** The first character beyond Latin-1 of `text` with its line, or null. */
export function firstWideChar(text: string): { line: number; char: string } | null {
  let at = 0;
  while (at < text.length && text.charCodeAt(at) <= 0xff) at++;
  if (at === text.length) return null;
  return { line: text.slice(0, at).split("\n").length, char: text[at]! };
}

Deno.test("module sources are Latin-1, so V8 holds them at one byte per character", async () => {
  const offenders: string[] = [];
  const roots = ["src", "legacy", "plugins"].map((d) => join(ROOT, d));
  for (const root of roots) {
    try {
      await Deno.stat(root);
    } catch {
      continue;
    }
    for await (const path of modules(root)) {
      const rel = relative(ROOT, path);
      if (EXEMPT.has(rel)) continue;
      const wide = firstWideChar(await Deno.readTextFile(path));
      if (wide) offenders.push(`${rel}:${wide.line} "${wide.char}" (U+${wide.char.codePointAt(0)!.toString(16)})`);
    }
  }
  const main = firstWideChar(await Deno.readTextFile(join(ROOT, "main.ts")));
  if (main) offenders.push(`main.ts:${main.line}`);
  deepEqual(offenders, []);
});

Deno.test("the check finds a wide character and its line, and passes Latin-1 text", () => {
  deepEqual(firstWideChar("a\nb \u2014 c"), { line: 2, char: "\u2014" });
  deepEqual(firstWideChar("\u00a7 3 \u00d7 4 caf\u00e9"), null);
});
