import { deepEqual, equal, match, throws } from "node:assert/strict";
import {
  builtinsOf,
  launcherConfig,
  launcherText,
  SERVER_ROLE_SOURCE,
  startBuiltins,
  staticImports,
} from "./bundle_launcher.ts";

Deno.test("static imports of minified modules: named, namespace, bare and default; never import(...) calls", () => {
  const code = 'import{a as b,c}from"./chunk-A.js";import*as n from"node:net";import"./side.js";' +
    'import d from"node:path";const x=()=>import(String("./lazy.js"));const y=import("node:http2");' +
    'const s="import\\"node:fake\\"";';
  deepEqual(staticImports(code), ["./chunk-A.js", "node:net", "./side.js", "node:path"]);
  deepEqual(staticImports('import {\n  q\n} from "./m.js";\nexport {q};'), ["./m.js"]);
});

Deno.test("the built-ins of entries follow static sibling imports only, once each, sorted", () => {
  const files: Record<string, string> = {
    "mod.js": 'import{a}from"./c1.js";import"node:zlib";const l=()=>import(String("./lazy.js"));',
    "serve-X.js": 'import{b}from"./c1.js";import{c}from"./c2.js";import*as p from"node:path";',
    "c1.js": 'import{d}from"./c2.js";import{createServer}from"node:net";',
    "c2.js": 'import{a}from"./c1.js";import{DatabaseSync}from"node:sqlite";',
    "lazy.js": 'import"node:tls";',
  };
  const read = (name: string) => {
    const code = files[name];
    if (code === undefined) throw new Error(`no ${name}`);
    return code;
  };
  deepEqual(builtinsOf(["mod.js"], read), ["node:net", "node:sqlite", "node:zlib"]);
  deepEqual(builtinsOf(["mod.js", "serve-X.js"], read), ["node:net", "node:path", "node:sqlite", "node:zlib"]);
});

Deno.test("a build without the server role's chunk is refused; the launcher imports the built-ins before the bundle", () => {
  const dir = Deno.makeTempDirSync({ prefix: "chorus-launcher-" });
  try {
    Deno.writeTextFileSync(`${dir}/mod.js`, 'import"node:zlib";');
    Deno.writeTextFileSync(`${dir}/mod.js.map`, JSON.stringify({ sources: ["../src/roles/mod.ts"] }));
    throws(() => startBuiltins(dir), /maps to src\/roles\/serve\.ts/);
    Deno.writeTextFileSync(`${dir}/serve-Q.js`, 'import*as n from"node:net";');
    Deno.writeTextFileSync(`${dir}/serve-Q.js.map`, JSON.stringify({ sources: [`../../${SERVER_ROLE_SOURCE}`] }));
    deepEqual(startBuiltins(dir), ["node:net", "node:zlib"]);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
  const text = launcherText("0123456789abcdef", ["node:net", "node:zlib"], "file:///srv/chorus/");
  const lines = text.split("\n");
  equal(
    lines.indexOf('import "node:net";') < lines.indexOf('import { runChorus } from "./0123456789abcdef/mod.js";'),
    true,
  );
  match(text, /Build 0123456789abcdef of file:\/\/\/srv\/chorus\//);
  match(text, /Deno\.exit\(await runChorus\(Deno\.args\)\);\n$/);
});

Deno.test("the launcher's configuration: the checkout's import map, no lockfile, nothing else", () => {
  const denoJson = JSON.stringify({
    tasks: { start: "deno run x" },
    imports: { zod: "npm:zod@4.6.7", "@electric-sql/pglite": "npm:@electric-sql/pglite@0.5.16" },
    compilerOptions: { strict: true },
  });
  const text = launcherConfig(denoJson);
  match(text, /^\/\/ Written by `deno task cache`/);
  const json = JSON.parse(text.split("\n").filter((l) => !l.startsWith("//")).join("\n"));
  deepEqual(json, {
    imports: { zod: "npm:zod@4.6.7", "@electric-sql/pglite": "npm:@electric-sql/pglite@0.5.16" },
    lock: false,
  });
  deepEqual(JSON.parse(launcherConfig("{}").split("\n").slice(2).join("\n")), { imports: {}, lock: false });
});
