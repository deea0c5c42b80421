/**
 * The plugin host over real child processes (spec 3 §3.3, §4.6): plugins
 * load from `plugins_dir`, every state transition shows in `plugin
 * list|info`, the operations and the `runtime` report, and plugins that must
 * not run are refused with the reason (unknown capability, the older world,
 * a trap or memory exhaustion in init, a file that is not a component).
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { startPluginHarness } from "./support/plugins.ts";

type Summary = { id: string; state: string; reason: string | null; name: string | null };

Deno.test("plugins: states and reasons after loading, through the console, the operations and the runtime report", async () => {
  const notComponent = await Deno.makeTempFile({ suffix: ".wasm" });
  await Deno.writeFile(notComponent, new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]));
  const p = await startPluginHarness({
    plugins: [
      { id: "probe", source: "test/probe" },
      { id: "forbidden", source: "test/forbidden", capabilities: '{ "capabilities": ["state.read", "teleport"] }' },
      { id: "world_v2", source: "test/world_v2" },
      { id: "init_trap", source: "test/init_trap" },
      { id: "memory_hog", source: "test/memory_hog" },
      { id: "game_spelling", source: "test/game_spelling", capabilities: ["state.read", "room.manage"] },
      { id: "core_module", wasm: notComponent },
    ],
    limits: { max_memory_mb: 4 },
  });
  try {
    const list = (await p.ch.ops.call("plugin.list", {}, { kind: "openuds", session: "s" })) as { plugins: Summary[] };
    const byId = Object.fromEntries(list.plugins.map((x) => [x.id, x]));
    equal(byId.probe?.state, "Enabled");
    equal(byId.probe?.name, "probe");
    equal(byId.game_spelling?.state, "Enabled");
    for (const id of ["forbidden", "world_v2", "init_trap", "memory_hog", "core_module"]) {
      equal(byId[id]?.state, "Error", id);
    }
    match(byId.forbidden!.reason!, /unknown capability "teleport"/);
    match(byId.world_v2!.reason!, /built for phira:plugin@0\.2\.0 \(world phira-plugin-v2\)/);
    match(byId.init_trap!.reason!, /init failed: RuntimeError: wasm trap: wasm `unreachable` instruction executed/);
    match(byId.memory_hog!.reason!, /init failed: RuntimeError: wasm trap/);
    match(byId.core_module!.reason!, /not a WebAssembly component/);

    const lines = (await p.run("plugin list")).lines;
    ok(lines.includes("probe 0.1.0: Enabled"), lines.join("\n"));
    ok(lines.some((l) => l.startsWith("forbidden: Error — ") && l.includes("teleport")), lines.join("\n"));

    const runtime = await p.ch.ops.call("runtime.status", {}, { kind: "console" }) as {
      plugins: Record<string, unknown>;
    };
    equal(runtime.plugins.enabled, 2);
    equal(runtime.plugins.error, 5);
    equal((runtime.plugins.quarantined as unknown[]).length, 5);
    const stats = await p.ch.ops.call("server.stats", {}, { kind: "console" }) as { loaded_plugins: number };
    equal(stats.loaded_plugins, 2);

    // The specification's spelling reaches the same operation: room.set_api_endpoint answers for the unknown room.
    deepEqual((await p.run("plugin call game_spelling endpoint")).lines, ["error: room not found: nope"]);
  } finally {
    await p.close();
    await Deno.remove(notComponent);
  }
});

Deno.test("plugins: disable, enable, reload and remove, with routes following the plugin", async () => {
  const p = await startPluginHarness({ plugins: [{ id: "probe", source: "test/probe" }] });
  try {
    deepEqual(await p.json("/api/probe/a"), { status: 200, body: "v1" });
    deepEqual((await p.run("plugin disable probe")).lines, ["probe 0.1.0: Disabled — disabled by an operator"]);
    equal((await p.json("/api/probe/a")).status, 404);
    const refused = await p.run("plugin call probe log");
    equal(refused.ok ? "ok" : refused.code, "UNAVAILABLE");
    deepEqual((await p.run("plugin disable probe")).lines, ["error: plugin probe is Disabled already"]);
    deepEqual((await p.run("plugin enable probe")).lines, ["probe 0.1.0: Enabled"]);
    deepEqual(await p.json("/api/probe/a"), { status: 200, body: "v1" });

    // Reload keeps the route; a changed file is compiled again and answers with its new code.
    const pid = (p.system.host.info("probe") as { pid: number }).pid;
    const during = p.json("/api/probe/during");
    deepEqual((await p.run("plugin reload probe")).lines, ["probe 0.1.0: Enabled"]);
    deepEqual(await during, { status: 200, body: "v1" });
    ok((p.system.host.info("probe") as { pid: number }).pid !== pid, "a new process");
    deepEqual(await p.json("/api/probe/a"), { status: 200, body: "v1" });

    const text = await Deno.readTextFile(new URL("../plugins/test/probe/plugin.wat", import.meta.url));
    const v2 = await Deno.makeTempDir({ prefix: "probe-v2-" });
    const dir = `${v2}/probe`;
    await Deno.mkdir(dir);
    await Deno.writeTextFile(`${dir}/plugin.wat`, text.replace('"v1"', '"v2"'));
    const { builtPlugin } = await import("./support/plugins.ts");
    await Deno.copyFile(await builtPlugin(dir), `${p.pluginsDir}/probe.wasm`);
    await p.run("plugin reload");
    deepEqual(await p.json("/api/probe/a"), { status: 200, body: "v2" });
    await Deno.remove(v2, { recursive: true });

    const removed = await p.run("plugin remove probe");
    deepEqual(removed.lines, ["probe 0.1.0: Removed"]);
    equal((await p.json("/api/probe/a")).status, 404);
    deepEqual((await p.run("plugin list")).lines, ["no plugins"]);
    ok((await Deno.stat(`${p.pluginsDir}/probe.wasm.removed`)).isFile);
    deepEqual((await p.run("plugin info probe")).lines, ["error: no plugin probe"]);
  } finally {
    await p.close();
  }
});
