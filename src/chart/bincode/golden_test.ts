// Golden vectors of `(ChartInfo, Chart)` in bincode 1.3 varint (extended.md §5.5), one small chart per format.
// The expected bytes are derived by hand from the rules, written out below; they are not produced by the encoder.
//
// Rules used: struct fields in declaration order; u8/bool one byte; other integers varint (< 251 one byte);
// signed integers zigzag (n ≥ 0 → 2n, n < 0 → −2n − 1); f32 4 bytes little-endian IEEE 754; String = varint byte
// length + UTF-8; Vec = varint length + items; Option = 00 | 01 + value; enum = varint variant index + fields.

import { deepEqual, equal } from "node:assert/strict";
import { loadChart } from "../build/load.ts";
import { decodeChart } from "./decode.ts";
import { encodeChart } from "./encode.ts";

/** Hex bytes ("00 01 ff") and strings (written as varint length + UTF-8) to one array. */
function bytes(...parts: (string | { s: string })[]): Uint8Array {
  const out: number[] = [];
  for (const p of parts) {
    if (typeof p === "string") out.push(...p.split(/\s+/).filter(Boolean).map((h) => parseInt(h, 16)));
    else {
      const b = new TextEncoder().encode(p.s);
      if (b.length >= 251) throw new Error("test strings are short");
      out.push(b.length, ...b);
    }
  }
  return new Uint8Array(out);
}

// f32 constants, by hand: 0.0 = 0x00000000; 0.25 = 2^-2 → 0x3E800000; 0.5 = 0x3F000000; −0.5 = 0xBF000000;
// 1.0 = 0x3F800000; 1.5 = 0x3FC00000; 2.0 = 0x40000000; 2.5 = 1.25·2^1 → 0x40200000; 6.0 = 1.5·2^2 → 0x40C00000;
// 12.5 = 1.5625·2^3 → 0x41480000; 60 = 1.875·2^5 → 0x42700000; 120 = 1.875·2^6 → 0x42F00000;
// 0.6 → 0x3F19999A (mantissa 0x19999A, rounded up); 3.91/6 = 0.651666… → 0x3F26D3A0. Written little-endian:
const F0 = "00 00 00 00", F025 = "00 00 80 3e", F05 = "00 00 00 3f", FM05 = "00 00 00 bf", F1 = "00 00 80 3f";
const F15 = "00 00 c0 3f", F2 = "00 00 00 40", F25 = "00 00 20 40", F6 = "00 00 c0 40", F125 = "00 00 48 41";
const F60 = "00 00 70 42", F120 = "00 00 f0 42", F06 = "9a 99 19 3f", FSCALE = "a0 d3 26 3f";

// Anim<T>::default(): time f32 0, keyframes Vec len 0, cursor u32 varint 0, next Option None.
const EMPTY = `${F0} 00 00 00`;
// Anim::fixed(v): time 0, one keyframe {time 0, value v, tween TweenFn::TweenId (variant 0) u8 0}, cursor 0, next None.
const fixed = (v: string) => `${F0} 01 ${F0} ${v} 00 00 00 00`;
// Object {alpha, scale: {x, y}, rotation, translation: {x, y}} with all animations empty.
const OBJECT_EMPTY = Array(6).fill(EMPTY).join(" ");
// CtrlObject {alpha, size, pos, y}, all empty.
const CTRL_EMPTY = Array(4).fill(EMPTY).join(" ");

const INFO_YML = `id: 42
uploader: -3
name: Golden
difficulty: 12.5
level: IN Lv.12
charter: C
composer: M
illustrator: I
chart: CHART
music: song.ogg
previewStart: 1.5
aspectRatio: 2
tags: [a, bc]
chartUpdated: 2024-05-06T09:08:09+02:00
`;

/** ChartInfo of INFO_YML with the chart file `chart` detected as `formatVariant`. */
function infoBytes(chart: string, formatVariant: string): Uint8Array {
  return bytes(
    "01 54", // id: Some(42) → zigzag 84 = 0x54
    "01 05", // uploader: Some(-3) → zigzag 5
    { s: "Golden" }, // name
    F125, // difficulty 12.5
    { s: "IN Lv.12" }, // level
    { s: "C" }, // charter
    { s: "M" }, // composer
    { s: "I" }, // illustrator
    { s: chart }, // chart
    `01 ${formatVariant}`, // format: Some(detected); ChartFormat Rpe=0, Pec=1, Pgr=2, Pbc=3
    { s: "song.ogg" }, // music
    { s: "background.png" }, // illustration (default)
    "00", // unlock_video: None
    F15, // preview_start 1.5
    "00", // preview_end: None
    F2, // aspect_ratio 2
    F06, // background_dim 0.6 (default)
    F6, // line_length 6 (default)
    F0, // offset 0
    "00", // tip: None
    "02",
    { s: "a" },
    { s: "bc" }, // tags: 2 strings
    "00", // intro: ""
    "00 00", // hold_partial_cover, note_uniform_scale
    "00 00", // created, updated: None
    "01",
    { s: "2024-05-06T07:08:09Z" }, // chart_updated: Some, normalised to UTC as chrono writes it
  );
}

/** `Chart` tail shared by the three: bpm_list, settings, hitsounds. */
function chartTail(bpm: string): string {
  // BpmList {elements: Vec<(f32, f32, f32)> = [(0 beats, 0 s, bpm)], cursor: usize 0}; ChartSettings two bools;
  // hitsounds: HashMap len 0.
  return `01 ${F0} ${F0} ${bpm} 00   00 00   00`;
}

async function build(chartName: string, chartText: string) {
  const files = new Map<string, Uint8Array>([
    ["info.yml", new TextEncoder().encode(INFO_YML.replace("CHART", chartName))],
    [chartName, new TextEncoder().encode(chartText)],
  ]);
  const { info, chart } = await loadChart({ read: (n) => Promise.resolve(files.get(n) ?? null) });
  return encodeChart(info, chart);
}

function expectBytes(actual: Uint8Array, expected: Uint8Array): void {
  const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join(" ");
  equal(hex(actual), hex(expected));
  // …and the decoder reads it back to the same bytes.
  const d = decodeChart(actual);
  deepEqual(encodeChart(d.info, d.chart), actual);
}

Deno.test("bincode golden: official (PGR) chart, one tap", async () => {
  const pgr = JSON.stringify({
    formatVersion: 3,
    offset: 0.25,
    judgeLineList: [{
      bpm: 120,
      notesAbove: [{ type: 1, time: 64, positionX: 0, holdTime: 0, speed: 1, floorPosition: 0 }],
      notesBelow: [],
      speedEvents: [],
      judgeLineDisappearEvents: [],
      judgeLineMoveEvents: [],
      judgeLineRotateEvents: [],
    }],
  });
  const expected = new Uint8Array([
    ...infoBytes("chart.json", "02"),
    ...bytes(
      "00", // music: None (song.ogg is not in the archive)
      F025, // offset 0.25
      "01", // lines: 1
      OBJECT_EMPTY, // line object: no events → all animations empty
      CTRL_EMPTY,
      "00", // kind: JudgeLineKind::Normal
      EMPTY, // height: no speed events
      EMPTY, // incline
      EMPTY, // color: Anim<Color>
      "01", // notes: 1
      // note object: alpha, scale.x, scale.y, rotation empty; translation.x = fixed(positionX 0 × 0.1125); .y empty
      `${EMPTY} ${EMPTY} ${EMPTY} ${EMPTY} ${fixed(F0)} ${EMPTY}`,
      "00", // kind: NoteKind::Click
      F1, // time: 64/32 beat at 120 BPM = 1 s
      F0, // height: 0 (no height animation)
      F1, // speed 1
      "01 00 00", // above, multiple_hint, fake
      "00", // hitsound: None
      "00", // parent: None
      "00", // z_index 0
      "00", // show_below false
      "00", // attach_ui: None
      chartTail(F120), // official charts use the default 120 BPM list
    ),
  ]);
  expectBytes(await build("chart.json", pgr), expected);
});

Deno.test("bincode golden: RPE chart, one fake tap below with size and hit sound", async () => {
  const rpe = JSON.stringify({
    META: { offset: -500 },
    BPMList: [{ bpm: 60, startTime: [0, 0, 1] }],
    judgeLineList: [{
      Texture: "line.png",
      isCover: 1,
      zOrder: -2,
      eventLayers: [],
      notes: [{
        type: 1,
        startTime: [2, 1, 2],
        endTime: [2, 1, 2],
        positionX: 337.5,
        above: 0,
        alpha: 255,
        isFake: 1,
        size: 2,
        speed: 1,
        yOffset: 0,
        visibleTime: 999999,
      }],
    }],
  });
  const expected = new Uint8Array([
    ...infoBytes("chart.json", "00"),
    ...bytes(
      "00", // music: None
      FM05, // offset: META.offset −500 ms → −0.5 s
      "01",
      OBJECT_EMPTY,
      CTRL_EMPTY,
      "00", // Normal ("line.png" without paint or text events)
      EMPTY, // height: no speed events
      EMPTY,
      EMPTY,
      "01",
      // note object: alpha empty (alpha 255, always visible); scale = (fixed(size 2), fixed(2)); rotation empty;
      // translation = (fixed(337.5 / 675 = 0.5), fixed(yOffset 0 × 2 / 900 × speed = 0))
      `${EMPTY} ${fixed(F2)} ${fixed(F2)} ${EMPTY} ${fixed(F05)} ${fixed(F0)}`,
      "00", // Click (RPE type 1)
      F25, // time: beat 2 + 1/2 at 60 BPM = 2.5 s
      F0, // height 0
      F1, // speed 1
      "00 00 01", // above false (above: 0), multiple_hint false, fake true
      "01 00", // hitsound: Some(HitSound::Click), the tap's default
      "00", // parent: None (no father)
      "03", // z_index −2 → zigzag 3
      "00", // show_below: isCover 1 → false
      "00",
      chartTail(F60),
    ),
  ]);
  expectBytes(await build("chart.json", rpe), expected);
});

Deno.test("bincode golden: PEC chart, one hold with speed", async () => {
  const pec = "650\nbp 0 120\nn2 0 1 2 -512 1 0\n# 2\n";
  const expected = new Uint8Array([
    ...infoBytes("chart.pec", "01"),
    ...bytes(
      "00", // music: None
      F05, // offset: 650 ms − 150 ms = 0.5 s
      "01",
      // line object: alpha empty, scale.x = fixed(3.91 / 6), scale.y empty, rotation and translation empty
      `${EMPTY} ${fixed(FSCALE)} ${EMPTY} ${EMPTY} ${EMPTY} ${EMPTY}`,
      CTRL_EMPTY,
      "00",
      EMPTY, // height: no cv events
      EMPTY,
      EMPTY,
      "01",
      `${EMPTY} ${EMPTY} ${EMPTY} ${EMPTY} ${fixed(FM05)} ${EMPTY}`, // translation.x = −512 / 1024
      `01 ${F1} ${F0}`, // NoteKind::Hold {end_time: beat 2 = 1 s, end_height 0}
      F05, // time: beat 1 at 120 BPM = 0.5 s
      F0, // height
      F2, // speed: "# 2"
      "01 00 00", // above, not multiple, not fake
      "00", // hitsound: None
      "00 00 00 00", // parent None, z_index 0, show_below false, attach_ui None
      chartTail(F120),
    ),
  ]);
  expectBytes(await build("chart.pec", pec), expected);
});
