import { deepEqual, equal, match, ok, throws } from "node:assert/strict";
import { join } from "node:path";
import { discoverPlugins, loadOrder } from "./discover.ts";
import { ManifestError, parseManifest } from "./manifest.ts";

async function write(dir: string, files: Record<string, string>): Promise<void> {
  for (const [path, text] of Object.entries(files)) {
    await Deno.mkdir(join(dir, path, ".."), { recursive: true });
    await Deno.writeTextFile(join(dir, path), text);
  }
}

const manifest = (id: string, extra: Record<string, unknown> = {}) => JSON.stringify({ id, ...extra });

Deno.test("plugin.json: defaults, every field, and clear errors", () => {
  deepEqual(parseManifest(`{"id": "a"}`), {
    id: "a",
    name: "a",
    version: "0.0.0",
    description: "",
    author: "",
    enabled: true,
    dependencies: [],
  });
  // The original read a last `"enabled": true` as false; a real parser does not.
  equal(parseManifest(`{\n  "id": "b",\n  "enabled": true\n}\n`).enabled, true);
  equal(parseManifest(`{"id": "c", "version": 2}`).version, "2");
  throws(
    () => parseManifest(`{"name": "x"}`),
    (e: Error) => e instanceof ManifestError && /id is missing/.test(e.message),
  );
  throws(() => parseManifest(`{"id": "a b"}`), /id must be/);
  throws(() => parseManifest(`{"id": "a", "enabled": "yes"}`), /enabled must be true or false/);
  throws(() => parseManifest(`{"id": "a", "dependencies": "b"}`), /dependencies must be a list/);
  throws(() => parseManifest(`{"id": `), /not valid JSON/);
});

Deno.test("plugin discovery: main.lua wins, folders without plugin.json or script are reported, a later root overrides", async () => {
  const dir = await Deno.makeTempDir({ prefix: "plugins_" });
  try {
    await write(dir, {
      "builtin/a/plugin.json": manifest("a"),
      "builtin/a/init.lua": "",
      "builtin/b/plugin.json": manifest("b"),
      "builtin/b/init.lua": "",
      "user/b2/plugin.json": manifest("b"),
      "user/b2/init.lua": "",
      "user/b2/main.lua": "",
      "user/empty/readme.txt": "",
      "user/noscript/plugin.json": manifest("n"),
      "user/dup1/plugin.json": manifest("d"),
      "user/dup1/init.lua": "",
      "user/dup2/plugin.json": manifest("d"),
      "user/dup2/init.lua": "",
    });
    const found = await discoverPlugins([
      { path: join(dir, "builtin"), builtin: true },
      { path: join(dir, "user"), builtin: false },
      { path: join(dir, "missing"), builtin: false },
    ]);
    deepEqual(found.plugins.map((p) => [p.manifest.id, p.builtin, p.entry.slice(dir.length)]), [
      ["a", true, "/builtin/a/init.lua"],
      ["b", false, "/user/b2/main.lua"],
      ["d", false, "/user/dup1/init.lua"],
    ]);
    deepEqual(found.overridden, ["b"]);
    const problems = found.problems.map((p) => `${p.dir.slice(dir.length)}: ${p.message}`);
    ok(problems.some((p) => p.startsWith("/user/empty: no plugin.json")));
    ok(problems.some((p) => p.startsWith("/user/noscript: neither main.lua nor init.lua")));
    ok(problems.some((p) => /\/user\/dup2: another plugin .* has the id "d"/.test(p)));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("plugin load order: dependencies first; missing and cyclic ones are refused, the rest load", () => {
  const p = (id: string, dependencies: string[] = []) => ({
    manifest: { id, name: id, version: "1", description: "", author: "", enabled: true, dependencies },
    dir: `/p/${id}`,
    entry: `/p/${id}/init.lua`,
    builtin: false,
  });
  const { order, refused } = loadOrder([
    p("app", ["lib", "util"]),
    p("lib", ["util"]),
    p("util"),
    p("x", ["y"]),
    p("y", ["x"]),
    p("needs-x", ["x"]),
    p("lost", ["nowhere"]),
    p("solo"),
  ]);
  deepEqual(order.map((f) => f.manifest.id), ["util", "lib", "app", "solo"]);
  equal(refused.get("x"), "dependency cycle: x -> y -> x");
  equal(refused.get("y"), "dependency cycle: x -> y -> x");
  match(refused.get("needs-x")!, /dependency "x" cannot be loaded: dependency cycle/);
  equal(refused.get("lost"), `missing dependency "nowhere" (no plugin with that id was found)`);
});
