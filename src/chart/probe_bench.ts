/**
 * Chart-probe benchmarks (issue 4): time of one `probeChartDuration` per
 * format on development archives (90 s of audio), stored and deflated,
 * through an injected in-process `fetch` that serves byte ranges (no sockets,
 * no network latency: this measures our CPU cost and request count), plus the
 * pure format probes on whole files. Results and method are in BENCHMARKS.md.
 */
import { serveBytes } from "../upstream/dev_range.ts";
import { AUDIO_FORMATS, createDevApi, type FetchLike, generateAudio, Upstream } from "../upstream/mod.ts";
import { ManualClock } from "../util/clock.ts";
import { ByteView, probeAudio, probeChartDuration } from "./mod.ts";

const clock = new ManualClock();
const dev = createDevApi({ clock });
const archives = new Map<string, Uint8Array>();
let id = 100_000;
const cases: { name: string; url: string }[] = [];
for (const compress of [false, true]) {
  for (const format of AUDIO_FORMATS) {
    const chartId = id++;
    dev.state.addChart({ id: chartId, audio: { format, durationSecs: 90 }, compress });
    const url = `http://bench.invalid/${chartId}.zip`;
    archives.set(url, dev.state.archive(chartId)!.bytes);
    cases.push({ name: `${format} ${compress ? "deflated" : "stored"}`, url });
  }
}

function files(ignoreRange: boolean): FetchLike {
  return (input, init) => {
    const req = new Request(input, init);
    const bytes = archives.get(req.url);
    if (!bytes) return Promise.resolve(new Response(null, { status: 404 }));
    return Promise.resolve(serveBytes(req, bytes, { contentType: "application/zip", ignoreRange }));
  };
}

const ranged = new Upstream({ baseUrl: "http://bench.invalid", fetch: files(false), clock });
const ignoring = new Upstream({ baseUrl: "http://bench.invalid", fetch: files(true), clock });

for (const c of cases) {
  Deno.bench(`probeChartDuration ${c.name}`, { group: "probe (Range honoured)" }, async () => {
    await probeChartDuration(ranged, c.url, { clock });
  });
}
for (const c of cases.filter((c) => c.name.endsWith("stored"))) {
  Deno.bench(`probeChartDuration ${c.name}, Range ignored`, { group: "probe (Range ignored)" }, async () => {
    await probeChartDuration(ignoring, c.url, { clock });
  });
}
for (const format of AUDIO_FORMATS) {
  const view = ByteView.of(generateAudio({ format, durationSecs: 90 }).bytes);
  Deno.bench(`probeAudio ${format} (whole file in memory)`, { group: "format probes" }, () => {
    probeAudio(view);
  });
}
