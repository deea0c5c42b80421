import assert from "node:assert/strict";
import { parse } from "yaml";
import { CONFIG_KEYS } from "./keys.ts";
import { loadConfig } from "./load.ts";
import { defaultConfig } from "./schema.ts";
import { generateConfigYaml } from "./yml.ts";

const COMMITTED = new URL("../../server_config.yml", import.meta.url);

Deno.test("server_config.yml equals the file generated from the schema", () => {
  const committed = Deno.readTextFileSync(COMMITTED);
  assert.equal(
    committed,
    generateConfigYaml(),
    "server_config.yml drifted from src/config/schema.ts; run `deno run --allow-write=server_config.yml src/config/yml.ts`",
  );
});

Deno.test("generated yml holds every key with its default and doc", () => {
  const text = generateConfigYaml();
  assert.deepEqual(parse(text), defaultConfig());
  for (const key of CONFIG_KEYS) {
    const name = key.segments.at(-1) ?? "";
    const indent = "  ".repeat(key.segments.length - 1);
    assert.ok(text.includes(`\n${indent}${name}:`), `${key.path} present`);
    assert.ok(text.includes(`# ${key.doc}`), `${key.path} documented`);
  }
  for (const line of text.split("\n")) assert.ok(line.length <= 120, `line too long: ${line}`);
});

Deno.test("loading the committed server_config.yml gives the defaults without unknown keys", async () => {
  const loaded = await loadConfig({
    args: [],
    env: {},
    cwd: "/srv",
    readTextFile: () => Deno.readTextFileSync(COMMITTED),
  });
  assert.deepEqual(loaded.config, defaultConfig());
  assert.deepEqual(loaded.warnings.filter((w) => w.startsWith("Unknown")), []);
  assert.equal(loaded.sources.get("openuds.max_connections")?.kind, "file");
});
