import assert from "node:assert/strict";
import { rig } from "../upstream/test_support.ts";
import { ChartDurationCache } from "./cache.ts";
import { ChartProbeError } from "./errors.ts";
import { resolveChartDuration } from "./resolve.ts";

Deno.test("resolveChartDuration fetches the chart and probes its file", async () => {
  const { clock, api, up } = rig();
  const r = await resolveChartDuration(up, 42, { clock });
  assert.equal(r.chart.name, "The Answer");
  assert.equal(r.audio.durationSecs, api.state.archive(42)!.audio.durationSecs); // 42 % 4 = 2: ogg, 72 s
  assert.equal(r.audio.format, "ogg");
  assert.equal(r.cached, false);
  assert.deepEqual(api.state.requests.map((q) => q.endpoint), ["chart", "files"]);
});

Deno.test("resolveChartDuration re-fetches metadata and reuses the duration of an unchanged file", async () => {
  const { clock, api, up } = rig();
  const cache = new ChartDurationCache({ clock });
  const first = await resolveChartDuration(up, 7, { clock, cache });
  const second = await resolveChartDuration(up, 7, { clock, cache });
  assert.deepEqual([first.cached, second.cached], [false, true]);
  assert.equal(second.audio.durationSecs, first.audio.durationSecs);
  assert.deepEqual(api.state.requests.map((q) => q.endpoint), ["chart", "files", "chart"]);
  // A new chart file (new chartUpdated) is probed again.
  api.state.addChart({ id: 7, chartUpdated: "2030-01-01T00:00:00.000Z", audio: { durationSecs: 44 } });
  const third = await resolveChartDuration(up, 7, { clock, cache });
  assert.deepEqual([third.cached, third.audio.durationSecs], [false, api.state.archive(7)!.audio.durationSecs]);
});

Deno.test("resolveChartDuration accepts metadata already fetched", async () => {
  const { clock, api, up } = rig();
  const chart = await up.chart(5);
  api.state.clearRequests();
  const r = await resolveChartDuration(up, chart, { clock });
  assert.equal(r.chart, chart);
  assert.deepEqual(api.state.requests.map((q) => q.endpoint), ["files"]);
});

Deno.test("resolveChartDuration reports charts that cannot be resolved", async (t) => {
  const kind = (p: Promise<unknown>) => p.then(() => "resolved", (e) => (e instanceof ChartProbeError ? e.kind : e));
  await t.step("unknown chart", async () => {
    const { clock, up } = rig();
    assert.equal(await kind(resolveChartDuration(up, 1_234_567, { clock })), "not_found");
  });
  await t.step("chart without a file", async () => {
    const { clock, up } = rig();
    assert.equal(await kind(resolveChartDuration(up, { id: 3, name: "x", file: null }, { clock })), "no_file");
  });
  await t.step("chart metadata fails", async () => {
    const { clock, api, up } = rig();
    api.state.setFault("chart", { status: 400 });
    assert.equal(await kind(resolveChartDuration(up, 3, { clock })), "upstream");
  });
  await t.step("archive missing", async () => {
    const { clock, api, up } = rig();
    api.state.setFault("files", { status: 404 });
    assert.equal(await kind(resolveChartDuration(up, 3, { clock })), "not_found");
  });
});
