import { deepEqual, equal } from "node:assert/strict";
import { decode, encode } from "@jridgewell/sourcemap-codec";
import { applyEdits, bundleEdits, ROOT_MARK, withoutSourcesContent } from "./bundle_edit.ts";

Deno.test("bundleEdits: sibling dynamic imports stop being literal, the root mark becomes the root; nothing else moves", () => {
  const code = [
    `const a=await import("./chunk-AB12.js"),b=import("node:fs"),c=import("./x/y.js");`,
    `const r=${ROOT_MARK};const s=${ROOT_MARK};`,
  ].join("\n");
  const edits = bundleEdits(code, "file:///opt/chorus/src/");
  const done = applyEdits({ code, map: null }, edits);
  equal(
    done.code,
    [
      `const a=await import(String("./chunk-AB12.js")),b=import("node:fs"),c=import("./x/y.js");`,
      `const r="file:///opt/chorus/src/";const s="file:///opt/chorus/src/";`,
    ].join("\n"),
  );
  equal(done.map, null);
  deepEqual(applyEdits({ code: "x", map: "{}" }, []), { code: "x", map: "{}" });
});

Deno.test("applyEdits moves the source map's generated columns after each edit on its line, and no others", () => {
  const code = `f();import("./a.js");g();import("./b.js");h();\nk();`;
  // Segments: [generated column, source, line, column] for f, the first import, g, the second import, h; then k.
  const mappings = [[[0, 0, 1, 0], [4, 0, 2, 0], [21, 0, 3, 0], [25, 0, 4, 0], [42, 0, 5, 0]], [[0, 0, 6, 0]]];
  const map = JSON.stringify({ version: 3, sources: ["s.ts"], names: [], mappings: encode(mappings as never) });
  const done = applyEdits({ code, map }, bundleEdits(code, "file:///r/"));
  const grow = "String()".length;
  equal(done.code, `f();import(String("./a.js"));g();import(String("./b.js"));h();\nk();`);
  const columns = decode(JSON.parse(done.map!).mappings).map((line) => line.map((s) => s[0]));
  deepEqual(columns, [[0, 4, 21 + grow, 25 + grow, 42 + 2 * grow], [0]]);
  // Each moved column still points at the same token.
  const [line] = done.code.split("\n");
  deepEqual(columns[0]!.map((c) => line!.slice(c, c + 2)), ["f(", "im", "g(", "im", "h("]);
});

Deno.test("withoutSourcesContent: the sources' text goes, their paths and the mappings stay; a map without it is kept", () => {
  const map = JSON.stringify({
    version: 3,
    sources: ["../../src/a.ts"],
    sourcesContent: ["export const a = 1;\n"],
    mappings: "AAAA",
    names: [],
  });
  deepEqual(JSON.parse(withoutSourcesContent(map)), {
    version: 3,
    sources: ["../../src/a.ts"],
    mappings: "AAAA",
    names: [],
  });
  const bare = '{"version":3,"sources":[],"mappings":""}';
  equal(withoutSourcesContent(bare), bare);
});
