// The chart service over loopback HTTP against the development upstream (serveDevApi): real ranged downloads,
// real archives of each chart format, the cache on a temporary directory.

import { deepEqual, equal, ok } from "node:assert/strict";
import { type Zippable, zipSync } from "fflate";
import { Hono } from "hono";
import { ManualClock } from "../../util/clock.ts";
import { type DevApiServer, serveDevApi, Upstream } from "../../upstream/mod.ts";
import { decodeChart } from "../bincode/decode.ts";
import { DEFAULT_LIMITS } from "../parse/limits.ts";
import { ChartService, type ChartServiceOptions } from "./service.ts";

interface Setup {
  server: DevApiServer;
  dir: string;
  service: ChartService;
  open(o?: Partial<ChartServiceOptions>): Promise<ChartService>;
  files(id: number): number;
  [Symbol.asyncDispose](): Promise<void>;
}

async function setup(o: Partial<ChartServiceOptions> = {}): Promise<Setup> {
  const server = serveDevApi();
  const dir = await Deno.makeTempDir({ prefix: "chorus-chart-test-" });
  const upstream = new Upstream({ baseUrl: server.url });
  const open = (more: Partial<ChartServiceOptions> = {}) =>
    ChartService.open({ upstream, cacheDir: dir, clock: new ManualClock(), ...o, ...more });
  return {
    server,
    dir,
    service: await open(),
    open,
    files: (id) => server.api.state.requests.filter((r) => r.path === `/files/chart-${id}.zip`).length,
    async [Symbol.asyncDispose]() {
      await server.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

async function get(s: ChartService, file: string): Promise<{ status: number; type: string | null; bytes: Uint8Array }> {
  const res = await s.serve(file);
  return { status: res.status, type: res.headers.get("content-type"), bytes: new Uint8Array(await res.arrayBuffer()) };
}

const json = (b: Uint8Array) => JSON.parse(new TextDecoder().decode(b));

Deno.test("chart service: the test chart without upstream, as bincode and JSON, also through Hono", async () => {
  await using s = await setup();
  const bin = await get(s.service, "test");
  equal(bin.status, 200);
  equal(bin.type, "application/octet-stream");
  const { info, chart } = decodeChart(bin.bytes);
  equal(info.name, "Chorus test chart");
  equal(chart.lines.length, 1);
  ok(chart.lines[0]!.notes.length >= 25);
  const j = json((await get(s.service, "test.json")).bytes);
  equal(j.info.name, "Chorus test chart");
  const times = j.chart.lines[0].notes.map((n: { time: number }) => n.time).sort((a: number, b: number) => a - b);
  deepEqual(times.slice(0, 4), [2, 3, 4, 4.5]);
  equal(s.server.api.state.requests.length, 0, "no upstream call");
  const app = new Hono();
  app.route("/api", s.service.app());
  equal((await app.request("/api/chart/test")).headers.get("content-type"), "application/octet-stream");
  const handled = await s.service.handle(new Request("http://x/monitor/chart/test.json"));
  equal(handled?.status, 200);
  equal(await s.service.handle(new Request("http://x/rooms/info")), null);
  equal((await s.service.handle(new Request("http://x/chart/%E0%A4%A")))?.status, 400);
  equal((await s.service.handle(new Request("http://x/chart/test", { method: "POST" })))?.status, 405);
});

Deno.test("chart service: real archives of each format, with music as PCM; JSON without samples", async (t) => {
  await using s = await setup();
  for (
    const [id, format, audio] of [[4, "pgr", "wav"], [105, "rpe", "flac"], [206, "pec", "ogg"], [
      307,
      "pgr",
      "mp3",
    ]] as const
  ) {
    await t.step(`chart ${id}`, async () => {
      const r = await get(s.service, String(id));
      equal(r.status, 200);
      const { info, chart } = decodeChart(r.bytes);
      equal(info.format, format);
      equal(info.music, `music.${audio}`);
      equal(chart.lines.length, 2);
      ok(chart.lines[0]!.notes.length > 20);
      const music = chart.music!;
      const seconds = music.samples.length / music.channel_count / music.sample_rate;
      ok(Math.abs(seconds - (30 + (id % 91))) < 0.1, `music of ${seconds} s`);
      const j = json((await get(s.service, `${id}.json`)).bytes);
      equal(j.info.format, format);
      deepEqual(Object.keys(j.chart.music).sort(), ["channel_count", "sample_count", "sample_rate"]);
      equal(j.chart.music.sample_count, music.samples.length);
      equal(typeof j.chart.lines[0].notes[0].kind === "string" || "Hold" in j.chart.lines[0].notes[0].kind, true);
      ok(j.chart.lines[0].height.keyframes.length > 0);
    });
  }
});

Deno.test("chart service: cache hits skip the download, a new chartUpdated rebuilds, files are replaced atomically", async () => {
  await using s = await setup();
  const first = await get(s.service, "42");
  const downloads = s.files(42);
  ok(downloads > 0);
  const again = await get(s.service, "42");
  deepEqual(again.bytes, first.bytes);
  equal(s.files(42), downloads, "served from the cache");
  const names = () => [...Deno.readDirSync(s.dir)].map((e) => e.name).sort();
  equal(names().filter((n) => n.startsWith("42.")).length, 2, "one .bin and one .json");
  s.server.api.state.addChart({ id: 42, chartUpdated: "2030-01-01T00:00:00.000Z", name: "Renamed" });
  const rebuilt = await get(s.service, "42");
  equal(decodeChart(rebuilt.bytes).info.name, "Renamed");
  ok(s.files(42) > downloads);
  equal(names().filter((n) => n.startsWith("42.")).length, 2, "the old version is gone");
  ok(!names().some((n) => n.startsWith(".tmp-")));
  // A restarted service finds the cache.
  const restarted = await s.open();
  const n = s.files(42);
  deepEqual((await get(restarted, "42")).bytes, rebuilt.bytes);
  equal(s.files(42), n);
});

Deno.test("chart service: concurrent requests for one chart share one build", async () => {
  await using s = await setup();
  const all = await Promise.all(Array.from({ length: 6 }, (_, i) => get(s.service, i % 2 ? "9" : "9.json")));
  ok(all.every((r) => r.status === 200));
  const shared = s.files(9);
  await using alone = await setup();
  await get(alone.service, "9");
  equal(shared, alone.files(9), "as many archive requests as one build");
});

Deno.test("chart service: upstream failures and bad ids are JSON errors, never chart bytes", async (t) => {
  await using s = await setup();
  const expectError = async (file: string, status: number, re: RegExp) => {
    const r = await get(s.service, file);
    equal(r.status, status, new TextDecoder().decode(r.bytes));
    equal(r.type, "application/json");
    const body = json(r.bytes);
    equal(body.code, status);
    ok(re.test(body.error), body.error);
  };
  await t.step("bad ids", async () => {
    await expectError("abc", 400, /invalid chart id "abc"/);
    await expectError("-1", 400, /invalid chart id/);
    await expectError("99999999999", 400, /invalid chart id/);
  });
  await t.step("unknown chart", () => expectError("1234567", 404, /chart 1234567 not found/));
  await t.step("metadata 500", async () => {
    s.server.api.state.setFault("chart", { status: 500, times: 10 });
    await expectError("11", 502, /cannot fetch chart 11 info/);
    s.server.api.state.setFault("chart", { times: 0 });
  });
  await t.step("archive 404", async () => {
    s.server.api.state.setFault("files", { status: 404, times: 1 });
    await expectError("12", 502, /cannot download chart 12/);
  });
  const serveZip = (files: Zippable) => {
    const zip = zipSync(files);
    // A server ignoring Range: the reader asks again for the whole archive when it is over 8 KiB.
    s.server.api.state.setFault("files", { hook: () => new Response(zip), times: 2 });
  };
  const enc = (x: string) => new TextEncoder().encode(x);
  await t.step("not a zip", async () => {
    s.server.api.state.setFault("files", { hook: () => new Response("<html>oops</html>"), times: 1 });
    await expectError("13", 422, /chart 13 cannot be used: .*end-of-central-directory/);
  });
  await t.step("no info.yml", async () => {
    serveZip({ "chart.json": enc("{}") });
    await expectError("14", 422, /no info\.yml/);
  });
  await t.step("broken chart, remembered for a while", async () => {
    serveZip({ "info.yml": enc("chart: c.json\n"), "c.json": enc('{"judgeLineList": 5}') });
    await expectError("15", 422, /judgeLineList: expected an array, got 5/);
    const before = s.files(15);
    await expectError("15", 422, /judgeLineList/);
    equal(s.files(15), before, "not downloaded again");
  });
  await t.step("zip bomb: declared size over the limit", async () => {
    serveZip({ "info.yml": enc("chart: c.json\n"), "c.json": [new Uint8Array(40 << 20), { level: 9 }] });
    await expectError("16", 422, /over 33554432/);
  });
  await t.step("zip bomb: inflating past the declared size", async () => {
    const zip = zipSync({ "info.yml": enc("chart: c.json\n"), "c.json": [new Uint8Array(1 << 20), { level: 9 }] });
    // Lie in the central directory: c.json is 100 bytes.
    const cd = findLast(zip, [0x50, 0x4b, 0x01, 0x02]);
    new DataView(zip.buffer).setUint32(cd + 24, 100, true);
    s.server.api.state.setFault("files", { hook: () => new Response(zip), times: 1 });
    await expectError("17", 422, /exceeds the declared size/);
  });
});

function findLast(b: Uint8Array, sig: number[]): number {
  for (let i = b.length - 4; i >= 0; i--) if (sig.every((x, k) => b[i + k] === x)) return i;
  throw new Error("not found");
}

Deno.test("chart service: the cache stays under its bound, evicting the least recently used chart", async () => {
  await using s = await setup();
  // Charts 1, 5, 9, 13: FLAC music of 31, 35, 39 and 43 s.
  const one = (await get(s.service, "1")).bytes.byteLength;
  const bound = Math.round(one * 3.2);
  const small = await s.open({ maxCacheBytes: bound });
  for (const id of ["1", "5", "9"]) equal((await get(small, id)).status, 200);
  ok(small.cache.totalBytes <= bound);
  deepEqual(small.cache.ids(), ["5", "9"], "chart 1 was least recently used");
  await get(small, "5"); // now 9 is the oldest
  await get(small, "13");
  deepEqual(small.cache.ids(), ["5", "13"]);
  const names = (await Array.fromAsync(Deno.readDir(s.dir))).map((e) => e.name);
  ok(!names.some((n) => n.startsWith("1.") || n.startsWith("9.")), names.join());
  // A chart bigger than the whole cache is served and not kept.
  const tiny = await s.open({ maxCacheBytes: 1000 });
  equal((await get(tiny, "5")).status, 200);
  deepEqual(tiny.cache.ids(), []);
});

Deno.test("chart service: builds beyond the slots and queue are refused with 503", async () => {
  await using s = await setup();
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  s.server.api.state.setFault("files", { hook: async () => (await gate, undefined), times: 1 });
  const busy = await s.open({ maxConcurrentBuilds: 1, maxQueuedBuilds: 0 });
  const first = busy.serve("21");
  // Wait until the first build holds the slot (its archive request arrived).
  for (let i = 0; i < 200 && s.files(21) === 0; i++) await new Promise((r) => setTimeout(r, 0));
  const refused = await get(busy, "22");
  equal(refused.status, 503);
  equal(json(refused.bytes).code, 503);
  release();
  equal((await first).status, 200);
  equal((await get(busy, "22")).status, 200);
});

Deno.test("chart service: limits apply to real archives (music over the sample bound is left out)", async () => {
  await using s = await setup();
  const limited = await s.open({ limits: { ...DEFAULT_LIMITS, maxMusicSamples: 1000 } });
  const r = await get(limited, "6");
  equal(r.status, 200);
  equal(decodeChart(r.bytes).chart.music, null);
});

Deno.test("chart service: a cache that cannot be written still answers with the chart", async () => {
  await using s = await setup();
  const other = await Deno.makeTempDir({ prefix: "chorus-chart-gone-" });
  const service = await s.open({ cacheDir: `${other}/cache` });
  await Deno.remove(other, { recursive: true }); // the cache directory disappears under the service
  const r = await get(service, "8");
  equal(r.status, 200);
  equal(decodeChart(r.bytes).info.name, "Chart 8");
  deepEqual(service.cache.ids(), []);
});
