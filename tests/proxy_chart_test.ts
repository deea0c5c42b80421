/**
 * `/chart/{id}` of the monitor proxy (spec 1 §4.1): the chart service of
 * `src/chart/` behind the proxy, its cache in `--cache-dir`: the bincode of
 * a chart of the development API decodes to the model its JSON form shows,
 * the generated `test` chart needs no game API, and errors are JSON.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { decodeChart } from "../src/chart/mod.ts";
import { startProxyHarness } from "./support/proxy.ts";

Deno.test("proxy /chart/{id}: bincode and JSON of the same chart, the test chart, cache files, JSON errors", async () => {
  const h = await startProxyHarness();
  try {
    const bin = await fetch(`${h.url}/chart/42`);
    equal(bin.status, 200, await bin.clone().text());
    equal(bin.headers.get("content-type"), "application/octet-stream");
    const { info, chart } = decodeChart(new Uint8Array(await bin.arrayBuffer()));
    const json = await h.json("/chart/42.json");
    equal(json.status, 200);
    const body = json.body as { info: { id: number | null; name: string }; chart: { lines: unknown[] } };
    equal(info.name, body.info.name);
    equal(chart.lines.length, body.chart.lines.length);
    ok(chart.lines.length > 0, "the development chart has judge lines");
    // Built once: the cache directory now holds it.
    const cached = (await Array.fromAsync(Deno.readDir(h.options.cacheDir))).map((e) => e.name);
    ok(cached.some((n) => n.startsWith("42.")), cached.join(","));

    const test = await fetch(`${h.url}/chart/test`);
    equal(test.status, 200);
    ok((await test.arrayBuffer()).byteLength > 0);

    const bad = await h.json("/chart/not-a-number");
    equal(bad.status, 400);
    ok(typeof (bad.body as { error: string }).error === "string");
    const missing = await h.json("/chart/1000000.json");
    deepEqual([missing.status, typeof (missing.body as { error: unknown }).error], [404, "string"]);
  } finally {
    await h.close();
  }
});
