/**
 * `/chart/{id}` and `/chart/{id}.json` on the game server's HTTP port
 * (issue 19, `src/app_charts.ts`): the chart service opened on the first
 * request with its cache under `data_dir`, serving only charts a room has
 * selected (and `test`), off with `chart_service: false`; and the wiring of
 * `main.ts dev` with its task permissions.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { gameChartHandler } from "../src/app_charts.ts";
import { decodeChart } from "../src/chart/mod.ts";
import { defaultConfig } from "../src/config/mod.ts";
import { connect } from "../src/client/mod.ts";
import { devToken, Upstream } from "../src/upstream/mod.ts";
import { memoryLogHub } from "../src/util/log.ts";
import { freePort, spawnServer } from "./support/child_server.ts";
import type { Harness } from "./support/harness.ts";
import { startHttpHarness } from "./support/http.ts";

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

/** The game server's chart route over the harness's development upstream, cache in `dataDir`. */
function chartRoute(dataDir: string, on = true) {
  return (h: Harness) =>
    gameChartHandler({
      config: { ...defaultConfig(), data_dir: dataDir, chart_service: on },
      upstream: new Upstream({ baseUrl: "http://dev.upstream", fetch: h.dev.fetch, clock: h.clock }),
      clock: h.clock,
      log: memoryLogHub("error").logger(),
      server: h.server,
    });
}

Deno.test("game server /chart: the test chart, only selected charts, bincode and JSON, cache in data_dir", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "chorus-chart-http-" });
  const h = await startHttpHarness({ chart: chartRoute(dataDir) });
  try {
    const test = await h.json("/chart/test.json");
    equal(test.status, 200);
    equal((test.body as { info: { name: string } }).info.name, "Chorus test chart");
    // No room has chart 7: refused before anything is downloaded.
    const refused = await h.json("/chart/7.json");
    deepEqual([refused.status, refused.body], [404, {
      error: "chart 7 is not selected in any room on this server",
      code: 404,
    }]);
    equal(h.dev.state.requests.filter((r) => r.path.startsWith("/chart/")).length, 0, "no upstream call");

    const alice = await h.login(100);
    await alice.createRoom("stage");
    await alice.selectChart(7);
    const json = await h.json("/chart/7.json");
    equal(json.status, 200, JSON.stringify(json.body));
    const body = json.body as { info: { name: string }; chart: { lines: unknown[] } };
    equal(body.info.name, "Lucky Seven");
    const bin = await h.http.request("/chart/7");
    equal(bin.headers.get("content-type"), "application/octet-stream");
    const decoded = decodeChart(new Uint8Array(await bin.arrayBuffer()));
    equal(decoded.chart.lines.length, body.chart.lines.length);
    const cached = (await Array.fromAsync(Deno.readDir(`${dataDir}/chart-cache`))).map((e) => e.name);
    ok(cached.some((n) => n.startsWith("7.")), cached.join(","));

    equal((await h.json("/chart/seven")).status, 400);
    equal((await h.http.request("/chart/7", { method: "POST" })).status, 405);
    // Another chart selected: the old one is no longer served.
    await alice.selectChart(8);
    equal((await h.json("/chart/7.json")).status, 404);
  } finally {
    await h.close();
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("game server /chart: a cache directory that cannot be made answers 503 and is tried again; off = no route", async () => {
  const parent = await Deno.makeTempDir({ prefix: "chorus-chart-http-" });
  const dataDir = `${parent}/data`;
  await Deno.writeTextFile(dataDir, "a file where the data directory should be");
  const h = await startHttpHarness({ chart: chartRoute(dataDir) });
  try {
    const down = await h.http.request("/chart/test");
    equal(down.status, 503);
    equal(down.headers.get("retry-after"), "30");
    ok(((await down.json()) as { error: string }).error.startsWith("the chart service is unavailable"));
    await Deno.remove(dataDir);
    equal((await h.http.request("/chart/test")).status, 200, "opened on the next request");
    ok(await exists(`${dataDir}/chart-cache`));
  } finally {
    await h.close();
  }
  const off = await startHttpHarness({ chart: chartRoute(`${parent}/off`, false) });
  try {
    equal((await off.http.request("/chart/test")).status, 404);
    equal(await exists(`${parent}/off`), false);
  } finally {
    await off.close();
    await Deno.remove(parent, { recursive: true });
  }
});

Deno.test("main.ts dev: /chart/{id}.json of a selected chart on the HTTP port, with the task's permissions", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "chorus-chart-dev-" });
  const [port, httpPort] = [freePort(), freePort()];
  const server = spawnServer({
    command: "dev",
    port,
    dataDir,
    upstream: "https://api.example.invalid",
    flags: ["--dev-upstream-port", "0", "--http-port", String(httpPort), "--no-cli", "--openuds.enabled=false"],
  });
  const { child } = server;
  try {
    await server.ready;
    const alice = await connect({ host: "127.0.0.1", port, pingIntervalMs: 0 });
    await alice.authenticate(devToken(100));
    await alice.createRoom("stage");
    await alice.selectChart(42);
    const res = await fetch(`http://127.0.0.1:${httpPort}/chart/42.json`);
    const body = await res.json();
    equal(res.status, 200, JSON.stringify(body));
    equal(body.info.name, "The Answer");
    ok(body.chart.lines.length > 0);
    await alice.close();
    child.kill("SIGTERM");
    equal((await child.status).code, 0, server.lines.join("\n"));
  } finally {
    try {
      child.kill("SIGKILL");
    } catch {
      // Already exited.
    }
    await child.status;
    await server.done.catch(() => {});
    await Deno.remove(dataDir, { recursive: true });
  }
});
