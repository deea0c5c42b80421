import { deepEqual, equal, throws } from "node:assert/strict";
import { anim, bezier, clamped, defaultChartInfo, fixedAnim, judgeLine, kf, note, TWEEN } from "../model/build.ts";
import type { Chart, ChartInfo } from "../model/types.ts";
import { testChart } from "../model/test_chart.ts";
import { finishChart } from "../parse/finish.ts";
import { decodeChart, MAX_ANIM_CHAIN } from "./decode.ts";
import { encodeChart, encodeChartTo } from "./encode.ts";
import { BincodeError, BincodeReader } from "./reader.ts";
import { CHUNK_BYTES, encodeToBytes } from "./writer.ts";

const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join(" ");

Deno.test("bincode varint: one byte below 251, then 251/252/253 with u16/u32/u64 little-endian", () => {
  const cases: [number, string][] = [
    [0, "00"],
    [250, "fa"],
    [251, "fb fb 00"],
    [65535, "fb ff ff"],
    [65536, "fc 00 00 01 00"],
    [2 ** 32 - 1, "fc ff ff ff ff"],
    [2 ** 32, "fd 00 00 00 00 01 00 00 00"],
    [2 ** 53 - 1, "fd ff ff ff ff ff ff 1f 00"],
  ];
  for (const [v, want] of cases) {
    equal(hex(encodeToBytes((w) => w.varint(v))), want, `varint ${v}`);
    equal(new BincodeReader(encodeToBytes((w) => w.varint(v))).varint(), v);
  }
});

Deno.test("bincode zigzag: 0 → 0, −1 → 1, 1 → 2, −2 → 3, i32 extremes", () => {
  for (const [v, want] of [[0, "00"], [-1, "01"], [1, "02"], [-2, "03"], [125, "fa"], [-126, "fb fb 00"]] as const) {
    equal(hex(encodeToBytes((w) => w.zigzag(v))), want);
  }
  for (const v of [2 ** 31 - 1, -(2 ** 31)]) equal(new BincodeReader(encodeToBytes((w) => w.zigzag(v))).zigzag(), v);
  equal(hex(encodeToBytes((w) => w.zigzag(-(2 ** 31)))), "fc ff ff ff ff");
});

Deno.test("bincode reader refuses truncated, non-canonical and malformed input", () => {
  const r = (h: string) => new BincodeReader(new Uint8Array(h.split(" ").map((x) => parseInt(x, 16))));
  throws(() => r("fb 01").varint(), /input ends/);
  throws(() => r("fb 10 00").varint(), /non-canonical varint at byte 0/);
  throws(() => r("fe 00").varint(), /over 2\^53/);
  throws(() => r("ff").varint(), /varint tag 255/);
  throws(() => r("02").bool(), /bool byte 2/);
  throws(() => r("02").option(), /option tag 2/);
  throws(() => r("05 61 62").str(), /length 5 exceeds/);
  throws(() => r("02 c3 28").str(), /invalid UTF-8/);
  throws(() => r("00 00").end(), /2 trailing bytes/);
  throws(
    () => r("09").variant(4, "NoteKind"),
    (e: unknown) => e instanceof BincodeError && /unknown NoteKind variant 9/.test(e.message),
  );
});

/** A chart using every variant of the model. */
function everything(): { info: ChartInfo; chart: Chart } {
  const base = testChart();
  const png = { data: new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]) };
  const clip = (n: number) => ({
    samples: new Float32Array(n).map((_, i) => Math.sin(i) / 2),
    sample_rate: 44100,
    channel_count: 2,
  });
  const colorAnim = anim([
    kf(0, { r: 1, g: 0.5, b: 0.25, a: 1 }, bezier([0.1, 0.2], [0.3, 0.9])),
    kf(2, { r: 0, g: 0, b: 0, a: 0 }, 0),
  ]);
  const chain = fixedAnim(1);
  chain.next = anim([kf(0, 0, clamped(TWEEN.quadOut, 0, 0.5)), kf(1, 2, 0)]);
  const lines = [
    judgeLine({
      kind: { Texture: [png, "tex.png"] },
      color: colorAnim,
      z_index: -7,
      parent: 2,
      show_below: true,
      attach_ui: "combonumber",
    }),
    judgeLine({
      kind: { TextureGif: [fixedAnim(0.5), { frames: [[100, png], [70000, png]], total_time: 70100 }, "a.gif"] },
    }),
    judgeLine({ kind: { Text: anim([kf(0, "", 2), kf(1, "héllo %P%", 0)]) }, attach_ui: "level" }),
    judgeLine({
      kind: { Paint: chain },
      notes: [
        note("Flick", 3, { hitsound: { Custom: "ding.ogg" }, fake: true, above: false }),
        note("Drag", 3, { hitsound: "Drag" }),
      ],
    }),
  ];
  const chart: Chart = {
    ...base.chart,
    music: clip(10_000),
    lines: [...base.chart.lines, ...lines],
    bpm_list: { elements: [[0, 0, 120], [8, 4, 240]], cursor: 0 },
    settings: { pe_alpha_extension: true, hold_partial_cover: true },
    hitsounds: [["Click", clip(3)], [{ Custom: "ding.ogg" }, clip(300)]],
  };
  finishChart(chart);
  const info: ChartInfo = {
    ...defaultChartInfo(),
    id: -(2 ** 31),
    uploader: 2 ** 31 - 1,
    format: "pbc",
    unlock_video: "v.mp4",
    preview_end: 12.5,
    tip: "ティップ",
    tags: ["a", "b".repeat(300)],
    created: "2024-01-01T00:00:00.5Z",
    updated: null,
    chart_updated: "2024-01-02T00:00:00Z",
  };
  return { info, chart };
}

Deno.test("bincode round trip: every variant decodes to the same model and re-encodes to the same bytes", () => {
  const { info, chart } = everything();
  const bytes = encodeChart(info, chart);
  const back = decodeChart(bytes);
  deepEqual(back.chart, chart);
  deepEqual(back.info, {
    ...info,
    difficulty: Math.fround(info.difficulty),
    aspect_ratio: Math.fround(info.aspect_ratio),
    background_dim: Math.fround(info.background_dim),
  });
  deepEqual(encodeChart(back.info, back.chart), bytes);
});

Deno.test("bincode streaming: chunks of at most 64 KiB except PCM passed as views, same bytes as one buffer", () => {
  const { info, chart } = everything();
  chart.music = { samples: new Float32Array(100_000).fill(0.25), sample_rate: 48000, channel_count: 1 };
  const chunks: Uint8Array[] = [];
  const n = encodeChartTo(info, chart, (c) => chunks.push(c));
  const pcm = chunks.find((c) => c.buffer === chart.music!.samples.buffer);
  equal(pcm?.byteLength, 400_000, "the samples are handed over without a copy");
  for (const c of chunks) if (c !== pcm) equal(c.byteLength <= CHUNK_BYTES, true);
  const whole = encodeChart(info, chart);
  equal(n, whole.byteLength);
  deepEqual(new Uint8Array(chunks.flatMap((c) => [...c])), whole);
});

Deno.test("bincode decoder refuses damaged charts with an offset, never a partial model", () => {
  const { info, chart } = testChart();
  const bytes = encodeChart(info, chart);
  for (const cut of [1, 10, 100, bytes.length - 1]) throws(() => decodeChart(bytes.subarray(0, cut)), BincodeError);
  throws(() => decodeChart(new Uint8Array([...bytes, 0])), /1 trailing bytes/);
  // Anim::next nested deeper than the bound.
  let a = fixedAnim(1);
  for (let i = 0; i < MAX_ANIM_CHAIN + 1; i++) a = { ...fixedAnim(i), next: a };
  chart.lines[0]!.height = a;
  throws(() => decodeChart(encodeChart(info, chart)), /nested over 64/);
});
