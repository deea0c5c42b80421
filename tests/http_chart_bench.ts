/**
 * `GET /chart/{id}` on the game server's HTTP port (`src/app_charts.ts`), cache hits over a real loopback socket:
 * development chart 105 (RPE, 77 s FLAC: 15.5 MB of bincode, 57 KB of JSON) selected in a room, built once before the
 * runs. Compare with `src/chart/chart_bench.ts` (the same hits through `ChartService.serve`, no socket). Results and
 * method in BENCHMARKS.md.
 */
import { gameChartHandler } from "../src/app_charts.ts";
import { defaultConfig } from "../src/config/mod.ts";
import { Upstream } from "../src/upstream/mod.ts";
import { memoryLogHub } from "../src/util/log.ts";
import { startHttpHarness } from "./support/http.ts";

const dataDir = await Deno.makeTempDir({ prefix: "chorus-chart-http-bench-" });
const h = await startHttpHarness({
  listen: true,
  config: { connection_rate_limit: 1000 },
  chart: (h) =>
    gameChartHandler({
      config: { ...defaultConfig(), data_dir: dataDir },
      upstream: new Upstream({ baseUrl: "http://dev.upstream", fetch: h.dev.fetch, clock: h.clock }),
      clock: h.clock,
      log: memoryLogHub("error").logger(),
      server: h.server,
    }),
});
const alice = await h.login(100);
await alice.createRoom("bench");
await alice.selectChart(105);
// A few rooms with other charts: the selection check looks at each room.
for (let i = 0; i < 50; i++) {
  const c = await h.login(1000 + i);
  await c.createRoom(`r${i}`);
  await c.selectChart(200 + i);
}
for (const path of ["/chart/105", "/chart/105.json"]) {
  const res = await fetch(h.url + path);
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  await res.arrayBuffer();
}

Deno.bench("game server HTTP: cache hit GET /chart/105.json (57 KB)", async () => {
  await (await fetch(`${h.url}/chart/105.json`)).arrayBuffer();
});

Deno.bench("game server HTTP: cache hit GET /chart/105 (15.5 MB)", async () => {
  await (await fetch(`${h.url}/chart/105`)).arrayBuffer();
});

Deno.bench("game server HTTP: refused GET /chart/7.json (not selected)", async () => {
  await (await fetch(`${h.url}/chart/7.json`)).arrayBuffer();
});

globalThis.addEventListener("unload", () => Deno.removeSync(dataDir, { recursive: true }));
