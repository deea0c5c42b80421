import { deepEqual, equal, ok, rejects, throws } from "node:assert/strict";
import { evalAnim, evalAnimOr } from "../../../static/chart/chart_model.js";
import { devChartFile } from "../../upstream/dev_chart_content.ts";
import { HEIGHT_RATIO } from "../model/build.ts";
import { detectFormat } from "./detect.ts";
import { ChartParseError } from "./errors.ts";
import { normalizeDateTime, parseInfo } from "./info.ts";
import { Budget, DEFAULT_LIMITS } from "./limits.ts";
import { parsePec } from "./pec.ts";
import { parsePgr } from "./pgr.ts";
import { parseRpe } from "./rpe.ts";

const enc = (s: string) => new TextEncoder().encode(s);
const isParse = (kind: string, re: RegExp) => (e: unknown) =>
  e instanceof ChartParseError && e.kind === kind && re.test(e.message);

Deno.test("chart format detection: META → RPE, { → PGR, ASCII → PEC, else PBC; BOM and spaces skipped", () => {
  equal(detectFormat(enc('{"META":{}}')), "rpe");
  equal(detectFormat(enc('\uFEFF  \n{"formatVersion":3}')), "pgr");
  equal(detectFormat(enc("0\nbp 0 120")), "pec");
  equal(detectFormat(new Uint8Array([0x80, 1])), "pbc");
});

Deno.test("info.yml: camelCase keys with prpr defaults, dates to UTC, wrong types named", () => {
  const i = parseInfo(
    "name: N\naspectRatio: 1.5\ntags: [x]\nformat: RPE\nupdated: 2024-02-03T04:05:06.789012+01:00\nunknownKey: 1\n",
  );
  equal(i.name, "N");
  equal(i.aspect_ratio, 1.5);
  equal(i.format, "rpe");
  equal(i.charter, "UK");
  equal(i.background_dim, 0.6);
  equal(i.updated, "2024-02-03T03:05:06.789012Z");
  equal(normalizeDateTime("2024-02-30T00:00:00Z"), null);
  equal(normalizeDateTime("2024-01-01T00:00:00.100000000Z"), "2024-01-01T00:00:00.100Z");
  throws(() => parseInfo("difficulty: hard\n"), isParse("invalid", /difficulty: expected a number, got "hard"/));
  throws(() => parseInfo("tags: 3\n"), isParse("invalid", /tags: expected a list of strings/));
  throws(() => parseInfo("- a\n- b\n"), isParse("invalid", /expected a mapping/));
  throws(() => parseInfo("created: yesterday\n"), isParse("invalid", /RFC 3339/));
  // Billion laughs: aliases are bounded.
  const laughs = ["a: &a [x,x,x,x,x,x,x,x,x,x]"];
  for (let i = 1; i < 10; i++) {
    laughs.push(`${"abcdefghij"[i]}: &${"abcdefghij"[i]} [${Array(10).fill("*" + "abcdefghij"[i - 1]).join(",")}]`);
  }
  throws(() => parseInfo(laughs.join("\n")), ChartParseError);
});

Deno.test("PGR: times from 1/32 beats, speed integrated into height, v1 packed positions, holds and sides", () => {
  const c = parsePgr(JSON.stringify({
    formatVersion: 1,
    offset: -0.1,
    judgeLineList: [{
      bpm: 60,
      speedEvents: [{ startTime: 0, endTime: 32, value: 2 }, { startTime: 32, endTime: 1e9, value: 1 }],
      judgeLineMoveEvents: [{ startTime: 0, endTime: 1e9, start: 440260, end: 440260 }],
      judgeLineRotateEvents: [],
      judgeLineDisappearEvents: [{ startTime: 0, endTime: 32, start: 0, end: 1 }, {
        startTime: 32,
        endTime: 1e9,
        start: 1,
        end: 1,
      }],
      notesAbove: [{ type: 3, time: 32, positionX: 2, holdTime: 32, speed: 3 }],
      notesBelow: [{ type: 4, time: 64, positionX: -1, holdTime: 0, speed: 2 }],
    }],
  }));
  const l = c.lines[0]!;
  // 440260 = x 440, y 260 on 880 × 520 → the centre.
  equal(evalAnim(l.object.translation.x, 0), 0);
  equal(evalAnim(l.object.translation.y, 0), 0);
  ok(Math.abs(evalAnimOr(l.object.alpha, 0.5, 0) - 0.5) < 1e-6, "fades in over the first beat");
  const [hold, flick] = l.notes;
  deepEqual([hold!.time, flick!.time, hold!.above, flick!.above, hold!.speed, flick!.speed], [1, 2, true, false, 1, 2]);
  // Height: 2 units/s for 1 s, then 1 unit/s, in 1/HEIGHT_RATIO screens.
  ok(Math.abs(hold!.height - 2 / HEIGHT_RATIO) < 1e-5);
  ok(typeof hold!.kind === "object" && Math.abs(hold!.kind.Hold.end_height - 3 / HEIGHT_RATIO) < 1e-5);
  equal(evalAnim(flick!.object.translation.x, 0), Math.fround(-0.1125));
  equal(c.offset, Math.fround(-0.1));
  throws(() => parsePgr('{"formatVersion": 2, "judgeLineList": []}'), isParse("invalid", /formatVersion 2/));
  throws(
    () => parsePgr('{"judgeLineList": [{"bpm": 120, "notesAbove": [{"type": 9, "time": 0}]}]}'),
    isParse("invalid", /judgeLineList\[0\]\.notesAbove\[0\]\.type: unknown note type 9/),
  );
  throws(
    () => parsePgr('{"judgeLineList": [{"bpm": "fast"}]}'),
    isParse("invalid", /judgeLineList\[0\]\.bpm: expected a number, got "fast"/),
  );
  throws(() => parsePgr('{"judgeLineList": [{"bpm": 0}]}'), isParse("invalid", /BPM 0 is not positive/));
});

Deno.test("RPE: BPM changes, layers add up, easings, colours, parents, hit sounds", async () => {
  const ev = (s: number, e: number, a: number, b: number, extra = {}) => ({
    startTime: [s, 0, 1],
    endTime: [e, 0, 1],
    start: a,
    end: b,
    easingType: 1,
    ...extra,
  });
  const chart = JSON.stringify({
    META: { offset: 100 },
    BPMList: [{ bpm: 120, startTime: [4, 0, 1] }, { bpm: 60, startTime: [0, 0, 1] }],
    judgeLineList: [
      {
        Texture: "line.png",
        father: -1,
        eventLayers: [{ moveXEvents: [ev(0, 2, 0, 675)] }, null, {
          moveXEvents: [ev(0, 2, 675, 675, { easingType: 4 })],
        }],
        extended: { colorEvents: [ev(1, 2, [255, 0, 0] as unknown as number, [0, 0, 255] as unknown as number)] },
        notes: [{ type: 1, startTime: [5, 0, 1], endTime: [5, 0, 1], hitsound: "drag.mp3" }, {
          type: 3,
          startTime: [6, 1, 2],
          endTime: [6, 1, 2],
          hitsound: "x.wav",
        }],
      },
      { Texture: "line.png", father: 0, attachUI: "combonumber", eventLayers: [] },
      { Texture: "line.png", father: 7, eventLayers: [] },
    ],
  });
  const c = await parseRpe(chart);
  // 60 BPM up to beat 4 (4 s), then 120 BPM: beat 5 → 4.5 s, beat 6.5 → 5.25 s.
  deepEqual(c.bpm_list.elements, [[0, 0, 60], [4, 4, 120]]);
  deepEqual(c.lines[0]!.notes.map((n) => n.time), [4.5, 5.25]);
  deepEqual(
    c.lines[0]!.notes.map((n) => n.hitsound),
    ["Drag", "Flick"],
    "a missing custom sound keeps the kind's sound",
  );
  // Two layers: linear 0 → 1 plus a constant 1.
  ok(Math.abs(evalAnimOr(c.lines[0]!.object.translation.x, 1, 0) - 1.5) < 1e-6);
  const red = evalAnim(c.lines[0]!.color, 0)!;
  deepEqual(red, { r: 1, g: 1, b: 1, a: 1 }, "white before the first colour event");
  deepEqual(evalAnim(c.lines[0]!.color, 2), { r: 0, g: 0, b: 1, a: 1 });
  equal(c.lines[1]!.parent, 0);
  equal(c.lines[1]!.attach_ui, "combonumber");
  equal(c.lines[2]!.parent, null, "a parent outside the chart is dropped");
  equal(c.offset, Math.fround(0.1));
  const cyc = JSON.stringify({
    META: {},
    BPMList: [{ bpm: 1, startTime: [0, 0, 1] }],
    judgeLineList: [{ father: 1 }, { father: 0 }],
  });
  await rejects(parseRpe(cyc), isParse("invalid", /judge line 0 is its own ancestor/));
  await rejects(
    parseRpe('{"META": {}, "BPMList": [], "judgeLineList": [{"Texture": "t.png"}]}'),
    isParse("invalid", /t\.png/),
  );
  await rejects(
    parseRpe(
      '{"META": {}, "BPMList": [], "judgeLineList": [{"notes": [{"type": 1, "startTime": [1, 2], "endTime": [1, 0, 1]}]}]}',
    ),
    isParse("invalid", /notes\[0\]\.startTime: expected a beat triple/),
  );
});

Deno.test("PEC: commands, modifiers, events, and errors with line numbers", () => {
  const c = parsePec(devChartFile("pec", 20).text);
  equal(c.lines.length, 2);
  ok(c.lines[0]!.notes.some((n) => typeof n.kind === "object"));
  throws(() => parsePec("0\nbp 0 120\nzz 1\n"), isParse("invalid", /line 3: unknown command "zz"/));
  throws(() => parsePec("0\nn1 0 x 0 1 0\n"), isParse("invalid", /line 2: expected a beat, got "x"/));
  throws(() => parsePec("0\nn1 0 1 0 1 0\nbp 0 120\n"), isParse("invalid", /line 3: a BPM change after/));
  throws(() => parsePec("0\nbp 0 120\nn1 99999999 1 0 1 0\n"), isParse("too_large", /judge line 99999999/));
  throws(() => parsePec("0\nbp 0 120\ncr 0 0 1 10 1\n"), isParse("invalid", /timed rotate event comes before/));
});

Deno.test("chart limits: notes, keyframes and lines over the bounds fail too_large", async () => {
  const small = new Budget({ ...DEFAULT_LIMITS, maxNotes: 10, maxKeyframes: 50, maxLines: 1 });
  throws(() => parsePgr(devChartFile("pgr", 30).text, small), isParse("too_large", /over 1/));
  const notes = new Budget({ ...DEFAULT_LIMITS, maxNotes: 10 });
  await rejects(parseRpe(devChartFile("rpe", 30).text, undefined, notes), isParse("too_large", /over 10 notes/));
  const kfs = new Budget({ ...DEFAULT_LIMITS, maxKeyframes: 20 });
  throws(() => parsePec(devChartFile("pec", 30).text, kfs), isParse("too_large", /over 20 keyframes/));
});
