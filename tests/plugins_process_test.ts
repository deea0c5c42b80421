/**
 * The plugin host in the server as users run it (`deno task start`'s
 * permission flags, with `--allow-run=deno` for the plugin children):
 * `/health/ready` waits for the plugins and shows their states, a plugin
 * route answers over the network, and stopping the server stops every
 * plugin child.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { freePort, spawnServer } from "./support/child_server.ts";
import { COMPILE_CACHE, install } from "./support/plugins.ts";

/** Plugin children (runner.ts) of process `parent`, or of no live process when it is gone (orphans). */
async function pluginChildren(parent: number): Promise<number[]> {
  const pids: number[] = [];
  for await (const e of Deno.readDir("/proc")) {
    if (!/^\d+$/.test(e.name)) continue;
    const cmdline = await Deno.readTextFile(`/proc/${e.name}/cmdline`).catch(() => "");
    const stat = await Deno.readTextFile(`/proc/${e.name}/stat`).catch(() => "");
    const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    if (cmdline.includes("runner.ts") && ppid === parent) pids.push(Number(e.name));
  }
  return pids;
}

Deno.test({
  name: "plugins in the server process: readiness, a route over HTTP, children stopped with the server",
  ignore: Deno.build.os !== "linux",
  async fn() {
    const dataDir = await Deno.makeTempDir({ prefix: "plugins-proc-" });
    const pluginsDir = `${dataDir}/plugins-in`;
    await Deno.mkdir(pluginsDir);
    await install(pluginsDir, { id: "probe", source: "test/probe" });
    await install(pluginsDir, { id: "init_trap", source: "test/init_trap" });
    const httpPort = await freePort();
    let children: number[] = [];
    const server = spawnServer({
      dataDir,
      port: await freePort(),
      upstream: "http://127.0.0.1:9",
      flags: [
        "--no-cli",
        "--http-port",
        String(httpPort),
        "--plugins-dir",
        pluginsDir,
        "--wasm-runtime.cache-dir",
        COMPILE_CACHE,
      ],
    });
    try {
      await server.ready;
      const base = `http://127.0.0.1:${httpPort}`;
      let ready: { status: string; plugins?: Record<string, unknown> } = { status: "" };
      for (let i = 0; i < 300 && ready.status !== "ready"; i++) {
        ready = await (await fetch(`${base}/health/ready`)).json();
        if (ready.status !== "ready") await new Promise((r) => setTimeout(r, 50));
      }
      equal(ready.status, "ready", server.lines.join("\n"));
      equal(ready.plugins?.enabled, 1);
      equal(ready.plugins?.error, 1);
      deepEqual((ready.plugins?.quarantined as { id: string }[]).map((q) => q.id), ["init_trap"]);
      const res = await fetch(`${base}/api/probe/x`);
      deepEqual([res.status, await res.json()], [200, "v1"]);
      children = await pluginChildren(server.child.pid);
      equal(children.length, 1, "one plugin child runs");
    } finally {
      server.child.kill("SIGTERM");
      await server.child.status;
      await server.done;
    }
    ok(server.lines.some((l) => l.includes("plugin Enabled") && l.includes("plugin=probe")), server.lines.join("\n"));
    for (const pid of children) {
      ok(!(await Deno.stat(`/proc/${pid}`).catch(() => null)), "no plugin child outlives the server");
    }
    await Deno.remove(dataDir, { recursive: true });
  },
});
