import { deepEqual, equal, rejects, throws } from "node:assert/strict";
import { CONFIG_LOG_SIZE, PluginConfig } from "./config_store.ts";

Deno.test("plugin configuration: dotted paths, JSON values, persisted, listed by prefix", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const config = await PluginConfig.open(`${dir}/p/config.json`);
    equal(config.get("api.timeout"), null);
    equal(await config.set("api.timeout", "30"), 1);
    await config.set("api.url", "https://x.example");
    await config.set("name", '"bot"');
    equal(config.get("api.timeout"), 30);
    deepEqual(config.get("api"), { timeout: 30, url: "https://x.example" });
    deepEqual(config.list("api."), { "api.timeout": 30, "api.url": "https://x.example" });
    deepEqual(JSON.parse(await Deno.readTextFile(`${dir}/p/config.json`)), {
      api: { timeout: 30, url: "https://x.example" },
      name: "bot",
    });
    const again = await PluginConfig.open(`${dir}/p/config.json`);
    equal(again.get("name"), "bot");
    throws(() => config.get("a..b"), /invalid key path/);
    await rejects(config.set("__proto__.x", "1"), /invalid key path/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("plugin configuration: changes since a version, reload of an edited file, truncation", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const config = await PluginConfig.open(`${dir}/config.json`);
    await config.set("a", "1");
    await config.set("b", "2");
    deepEqual(config.changesSince(1), { version: 2, changes: [{ version: 2, key: "b", value: 2 }], truncated: false });
    await Deno.writeTextFile(`${dir}/config.json`, JSON.stringify({ a: 1, c: { d: true } }));
    deepEqual(await config.reload(), { version: 4, changed: 2 });
    deepEqual(config.changesSince(2).changes.map((c) => [c.key, c.value]), [["b", null], ["c.d", true]]);
    for (let i = 0; i < CONFIG_LOG_SIZE + 5; i++) await config.set("n", String(i));
    const old = config.changesSince(0);
    equal(old.truncated, true);
    deepEqual(old.config, { a: 1, c: { d: true }, n: CONFIG_LOG_SIZE + 4 });
    await Deno.writeTextFile(`${dir}/config.json`, "[1]");
    await rejects(config.reload(), /does not hold a JSON object/);
    equal(config.get("a"), 1);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
