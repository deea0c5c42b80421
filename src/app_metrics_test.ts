import assert from "node:assert/strict";
import process from "node:process";
import { lazyMetrics } from "./app_metrics.ts";
import { defaultConfig } from "./config/mod.ts";
import { EventBus } from "./events/mod.ts";
import { GameServer } from "./server/mod.ts";
import { ManualClock } from "./util/clock.ts";
import { LogHub } from "./util/log.ts";
import { SeededRandom } from "./util/random.ts";

Deno.test("lazyMetrics: built on the first render; CPU time counts from the process's start", async () => {
  const clock = new ManualClock();
  const log = new LogHub({ level: "error", sink: () => {} }).logger();
  const server = new GameServer({
    config: defaultConfig(),
    clock,
    random: new SeededRandom(1),
    log,
    upstream: { me: () => Promise.reject(new Error("no upstream")) } as never,
    bus: new EventBus(() => clock.now(), { log }),
  });
  const metrics = lazyMetrics({ core: server.core, version: "9.9.9" });
  assert.equal(metrics.contentType, "text/plain; version=0.0.4; charset=utf-8");
  // Spend some CPU before the registry exists: the counter must include it.
  const spin = performance.now() + 60;
  while (performance.now() < spin) Math.sqrt(Math.random());
  const used = process.cpuUsage();
  const text = await metrics.render();
  assert.match(text, /^chorus_sessions 0$/m);
  const cpu = Number(/^process_cpu_seconds_total ([0-9.e-]+)$/m.exec(text)?.[1]);
  assert.ok(cpu >= (used.user + used.system) / 1e6, `process_cpu_seconds_total ${cpu} counts from the process's start`);
  assert.equal(await metrics.render() !== "", true);
  assert.match(metrics.contentType, /^text\/plain; version=0\.0\.4/);
});
