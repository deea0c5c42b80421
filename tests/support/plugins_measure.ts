/**
 * Measurements of the plugin host for BENCHMARKS.md (not a test): events
 * per second to one and to eight plugins, `api-call` round trips, calls into
 * a plugin, start-up of a cached plugin, and the RSS of the server process
 * (`main.ts start` with the task's flags) with 0, 1 and 5 plugins.
 *
 *   deno run -A tests/support/plugins_measure.ts [events|calls|startup|rss]…
 *
 * @module
 */

import { install, type PluginHarness, startPluginHarness } from "./plugins.ts";
import { freePort, spawnServer } from "./child_server.ts";
import { settle } from "./harness.ts";

type Info = { queue: { delivered: number; queued: number; capacity: number }; load_ms: number };

async function events(plugins: number, total: number): Promise<void> {
  const p = await startPluginHarness({
    plugins: Array.from({ length: plugins }, (_, i) => ({ id: `probe${i}`, source: "test/probe" })),
  });
  const infos = () => p.system.host.list().map((s) => p.system.host.info(s.id) as unknown as Info);
  const started = performance.now();
  let published = 0;
  // Publish as fast as the queues take them (never past their capacity: nothing is refused).
  while (published < total) {
    const room = Math.min(...infos().map((i) => i.queue.capacity - i.queue.queued));
    for (let i = 0; i < room && published < total; i++, published++) {
      p.ch.h.bus.publish({ kind: "user.online", user: published + 1, name: "u", language: "en-US", ip: null });
    }
    await settle(1);
  }
  while (infos().some((i) => i.queue.delivered < total)) await new Promise((r) => setTimeout(r, 2));
  const secs = (performance.now() - started) / 1000;
  const delivered = infos().reduce((n, i) => n + i.queue.delivered, 0);
  console.log(
    `events to ${plugins} plugin(s): ${total} each, ${delivered} delivered in ${secs.toFixed(2)} s = ` +
      `${Math.round(delivered / secs)}/s in all, ${Math.round(total / secs)}/s per plugin`,
  );
  await p.close();
}

async function calls(): Promise<void> {
  const p: PluginHarness = await startPluginHarness({ plugins: [{ id: "probe", source: "test/probe" }] });
  const call = (method: string, args: unknown[]) =>
    p.ch.ops.call("plugin.call", { name: "probe", method, args }, { kind: "console" });
  await call("calls", [100]);
  let started = performance.now();
  const n = 20_000;
  await call("calls", [n]);
  let secs = (performance.now() - started) / 1000;
  console.log(`api-call round trips (guest → host → guest, server.status): ${Math.round(n / secs)}/s`);
  started = performance.now();
  const m = 5000;
  for (let i = 0; i < m; i++) await call("events", []);
  secs = (performance.now() - started) / 1000;
  console.log(`calls into the plugin (plugin.call → on-api, no host call): ${Math.round(m / secs)}/s`);
  await p.close();
}

async function startup(): Promise<void> {
  for (const source of ["test/probe", "examples/rooms_listen"]) {
    const times: number[] = [];
    for (let i = 0; i < 5; i++) {
      const p = await startPluginHarness({ plugins: [{ id: "x", source }] });
      times.push((p.system.host.info("x") as unknown as Info).load_ms);
      await p.close();
    }
    times.sort((a, b) => a - b);
    console.log(`start-up of a cached plugin (${source}): median ${times[2]} ms (min ${times[0]}, max ${times[4]})`);
  }
}

function rssKb(pid: number): number {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
}

function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const e of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(e.name)) continue;
    try {
      const stat = Deno.readTextFileSync(`/proc/${e.name}/stat`);
      if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === pid) out.push(Number(e.name));
    } catch {
      // Gone.
    }
  }
  return out;
}

async function rss(sets: Record<string, { id: string; source: string }[]>): Promise<void> {
  for (const [label, plugins] of Object.entries(sets)) {
    const dataDir = await Deno.makeTempDir();
    const pluginsDir = `${dataDir}/p`;
    await Deno.mkdir(pluginsDir);
    for (const plugin of plugins) await install(pluginsDir, plugin);
    // The first start creates the database and compiles the plugins; the second one is measured.
    for (const measured of [false, true]) {
      const httpPort = await freePort();
      const server = spawnServer({
        dataDir,
        port: await freePort(),
        upstream: "http://127.0.0.1:9",
        flags: ["--no-cli", "--http-port", String(httpPort), "--plugins-dir", pluginsDir],
      });
      await server.ready;
      for (let i = 0; i < 600; i++) {
        const ready = await (await fetch(`http://127.0.0.1:${httpPort}/health/ready`)).json();
        if (ready.status === "ready") break;
        await new Promise((r) => setTimeout(r, 50));
      }
      if (measured) {
        await new Promise((r) => setTimeout(r, 15_000));
        const pid = server.child.pid;
        const children = childrenOf(pid);
        const childKb = children.reduce((n, c) => n + rssKb(c), 0);
        console.log(
          `RSS with ${label}: server ${Math.round(rssKb(pid) / 1024)} MB; ${children.length} plugin processes ` +
            `${Math.round(childKb / 1024)} MB in all`,
        );
      }
      server.child.kill("SIGTERM");
      await server.child.status;
      await server.done;
    }
    await Deno.remove(dataDir, { recursive: true });
  }
}

const what = Deno.args.length ? Deno.args : ["events", "calls", "startup", "rss"];
if (what.includes("events")) {
  await events(1, 20_000);
  await events(8, 5_000);
}
if (what.includes("calls")) await calls();
if (what.includes("startup")) await startup();
if (what.includes("rss")) {
  await rss({
    "0 plugins": [],
    "1 plugin (chat_bot, JS)": [{ id: "chat_bot", source: "examples/chat_bot" }],
    "5 plugins (2 JS, 3 WAT)": [
      { id: "chat_bot", source: "examples/chat_bot" },
      { id: "rooms_listen", source: "examples/rooms_listen" },
      { id: "probe1", source: "test/probe" },
      { id: "probe2", source: "test/probe" },
      { id: "probe3", source: "test/probe" },
    ],
  });
}
