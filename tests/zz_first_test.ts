import { equal, deepEqual } from "node:assert/strict";
import { startPluginHarness } from "/work/wt/wasm/tests/support/plugins.ts";
Deno.test("probe loads", async () => {
  const p = await startPluginHarness({ plugins: [{ id: "probe", source: "test/probe" }] });
  try {
    console.log(await p.run("plugin list"));
    console.log(await p.run("plugin call probe log"));
    console.log(await p.run("plugin call probe grow"));
    console.log(await p.run("plugin call probe nothing"));
    console.log(await p.run("plugin info probe"));
  } finally {
    await p.close();
  }
});
