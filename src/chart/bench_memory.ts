/**
 * Peak memory of parsing and encoding the 3-minute benchmark chart
 * (`bench_chart.ts`), for BENCHMARKS.md: run each phase in a fresh process
 * (`deno run -A src/chart/bench_memory.ts parse|build`) and sample RSS and
 * the V8 heap every 2 ms while it runs (decoding yields to the event loop, so
 * samples land inside it).
 */
import { generateAudio } from "../upstream/dev_audio.ts";
import { encodeChartTo } from "./bincode/encode.ts";
import { loadChart } from "./build/load.ts";
import { BENCH_INFO_YML, benchChartRpe } from "./bench_chart.ts";
import { defaultChartInfo } from "./model/build.ts";
import { parseRpe } from "./parse/rpe.ts";

const phase = Deno.args[0] ?? "build";
const text = benchChartRpe();
const mp3 = generateAudio({ format: "mp3", durationSecs: 180 }).bytes;
const mb = (n: number) => (n / 1048576).toFixed(1);
(globalThis as { gc?: () => void }).gc?.();
const base = Deno.memoryUsage();
let peakRss = base.rss, peakHeap = base.heapUsed;
const sample = () => {
  const m = Deno.memoryUsage();
  peakRss = Math.max(peakRss, m.rss);
  peakHeap = Math.max(peakHeap, m.heapUsed + m.external);
};
const timer = setInterval(sample, 2);
const t0 = performance.now();
let out = 0;
if (phase === "parse") {
  const chart = await parseRpe(text);
  sample();
  encodeChartTo(defaultChartInfo(), chart, (c) => (out += c.byteLength));
} else {
  const files = new Map([["info.yml", new TextEncoder().encode(BENCH_INFO_YML)], [
    "chart.json",
    new TextEncoder().encode(text),
  ], ["music.mp3", mp3]]);
  const { info, chart } = await loadChart({ read: (n) => Promise.resolve(files.get(n) ?? null) });
  sample();
  encodeChartTo(info, chart, (c) => (out += c.byteLength));
}
sample();
clearInterval(timer);
console.log(
  `${phase}: ${(performance.now() - t0).toFixed(0)} ms, output ${mb(out)} MiB; RSS ${mb(base.rss)} \u2192 peak ${
    mb(peakRss)
  } MiB ` +
    `(+${mb(peakRss - base.rss)}); heap+external ${mb(base.heapUsed + base.external)} \u2192 peak ${mb(peakHeap)} MiB`,
);
