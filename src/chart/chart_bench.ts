/**
 * Chart service benchmarks (issue 19): parsing the 3-minute RPE chart of
 * `bench_chart.ts`, encoding the model with and without its music, decoding
 * 3 minutes of MP3, a whole build from in-memory files, and a cache hit of
 * `GET /chart/{id}` (file opened and streamed). Results and method in
 * BENCHMARKS.md; peak memory comes from `bench_memory.ts`.
 */
import { generateAudio } from "../upstream/dev_audio.ts";
import { createDevApi, Upstream } from "../upstream/mod.ts";
import { decodeAudio } from "./assets/audio_decode.ts";
import { encodeChart, encodeChartTo } from "./bincode/encode.ts";
import { loadChart } from "./build/load.ts";
import { ChartService } from "./build/service.ts";
import { BENCH_INFO_YML, benchChartRpe } from "./bench_chart.ts";
import { defaultChartInfo } from "./model/build.ts";
import { parseRpe } from "./parse/rpe.ts";

const text = benchChartRpe();
const chart = await parseRpe(text);
const mp3 = generateAudio({ format: "mp3", durationSecs: 180 }).bytes;
const music = await decodeAudio(mp3, "music.mp3", { maxSamples: 64 << 20 });
const info = defaultChartInfo();
const files = new Map<string, Uint8Array>([
  ["info.yml", new TextEncoder().encode(BENCH_INFO_YML)],
  ["chart.json", new TextEncoder().encode(text)],
  ["music.mp3", mp3],
]);
const notes = chart.lines.reduce((n, l) => n + l.notes.length, 0);
let keyframes = 0;
for (const l of chart.lines) {
  for (const a of [l.object.alpha, l.object.rotation, l.object.translation.x, l.object.translation.y, l.height]) {
    keyframes += a.keyframes.length;
  }
}
console.log(
  `bench chart: ${
    (text.length / 1e6).toFixed(2)
  } MB JSON, ${chart.lines.length} lines, ${notes} notes, ${keyframes} line keyframes`,
);

Deno.bench("parse RPE 3-minute chart (JSON → model)", async () => {
  await parseRpe(text);
});

Deno.bench("encode model without music (bincode)", () => {
  encodeChart(info, chart);
});

const withMusic = { ...chart, music };
Deno.bench("encode model with 3 min stereo PCM (streamed chunks)", () => {
  let n = 0;
  encodeChartTo(info, withMusic, (c) => (n += c.byteLength));
});

Deno.bench("decode 3 min MP3 to PCM", { n: 5 }, async () => {
  await decodeAudio(mp3, "music.mp3", { maxSamples: 64 << 20 });
});

Deno.bench("whole build from files (parse + decode + encode)", { n: 5 }, async () => {
  const built = await loadChart({ read: (n) => Promise.resolve(files.get(n) ?? null) });
  encodeChartTo(built.info, built.chart, () => {});
});

const api = createDevApi({});
const upstream = new Upstream({ baseUrl: "http://dev.invalid", fetch: api.fetch });
const dir = await Deno.makeTempDir({ prefix: "chorus-chart-bench-" });
const service = await ChartService.open({ upstream, cacheDir: dir });
await (await service.serve("105")).arrayBuffer();
await (await service.serve("105.json")).arrayBuffer();

Deno.bench("cache hit GET /chart/105 (open + stream 15.5 MB)", async () => {
  await (await service.serve("105")).arrayBuffer();
});

Deno.bench("cache hit GET /chart/105.json", async () => {
  await (await service.serve("105.json")).arrayBuffer();
});

globalThis.addEventListener("unload", () => Deno.removeSync(dir, { recursive: true }));
