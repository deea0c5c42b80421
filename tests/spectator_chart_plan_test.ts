// The spectator's chart layer as data (chart_plan.js), checked against the server's own parsers: the development
// charts in all three formats and the `test` chart, as `GET /chart/{id}.json` serves them. Timing: every note is on
// its line at its time, approaching one frame before and past one frame after; the height window never drops a note
// that is on screen; judgements hide, flash, hold and fade notes at their times, in their colours.

import { deepEqual, equal, ok } from "node:assert/strict";
import { chartJson, defaultChartInfo, parsePec, parsePgr, parseRpe, testChart } from "../src/chart/mod.ts";
import type { Chart, ChartInfo } from "../src/chart/mod.ts";
import { devChartFile } from "../src/upstream/mod.ts";
import * as model from "../static/chart/chart_model.js";
import {
  canvasMapping,
  chartTime,
  EFFECT_S,
  JudgeBook,
  JUDGEMENT_COLORS,
  judgementClass,
  LATE_S,
  lineColorFor,
  MISS_FADE_S,
  planFrame,
  type PlannedFrame,
  prepareChart,
  type PreparedChart,
  RUN_AHEAD_S,
} from "../static/spectator/chart_plan.js";
import { ChartSource } from "../static/spectator/chart_source.js";

const FRAME = 1 / 60;
const near = (a: number, b: number, eps: number, what: string) => ok(Math.abs(a - b) <= eps, `${what}: ${a} vs ${b}`);

/** The chart as a browser gets it from `/chart/{id}.json`. */
function served(info: ChartInfo, chart: Chart): PreparedChart {
  return prepareChart(JSON.parse(JSON.stringify(chartJson(info, chart))));
}

async function devCharts(seconds = 40): Promise<[string, PreparedChart][]> {
  const info = defaultChartInfo();
  return [
    ["pgr", served(info, parsePgr(devChartFile("pgr", seconds).text))],
    ["rpe", served(info, await parseRpe(devChartFile("rpe", seconds).text))],
    ["pec", served(info, parsePec(devChartFile("pec", seconds).text))],
    ["test", served(testChart().info, testChart().chart)],
  ];
}

function noteAt(frame: PlannedFrame, line: number, id: number) {
  return frame.lines.find((l) => l.index === line)?.notes.find((n) => n.id === id) ?? null;
}

Deno.test("chart plan: every note is on its line at its time, approaching a frame before, past a frame after", async () => {
  for (const [name, prep] of await devCharts()) {
    const book = new JudgeBook();
    let checked = 0;
    for (const line of prep.lines) {
      for (const n of line.notes) {
        const what = `${name} line ${line.index} note ${n.id} at ${n.time}`;
        const at = noteAt(planFrame(prep, n.time, book, model), line.index, n.id);
        ok(at, `${what}: drawn at its time`);
        near(at.y, 0, 1e-4, `${what}: on its line`);
        const before = noteAt(planFrame(prep, n.time - FRAME, book, model), line.index, n.id);
        ok(before && before.y > 1e-4, `${what}: approaching one frame before (${before?.y})`);
        const after = noteAt(planFrame(prep, n.time + FRAME, book, model), line.index, n.id);
        ok(after && after.state === "pending", `${what}: still shown (not judged yet) one frame after`);
        if (n.kind !== 3) ok(after.y < -1e-4, `${what}: past its line one frame after (${after.y})`);
        // On the canvas: the note's centre lies on the drawn line, within a pixel of a 1920 × 1080 canvas.
        const l = planFrame(prep, n.time, book, model).lines.find((x) => x.index === line.index)!;
        const map = canvasMapping(1920, 1080, prep.aspect);
        const [px, py] = map.fromChart(l.x + Math.cos(l.rotation) * at.x, l.y + Math.sin(l.rotation) * at.x);
        const [ax, ay] = map.fromChart(l.x, l.y);
        const [bx, by] = map.fromChart(l.x + Math.cos(l.rotation), l.y + Math.sin(l.rotation));
        const off = Math.abs((bx - ax) * (ay - py) - (ax - px) * (by - ay)) / Math.hypot(bx - ax, by - ay);
        ok(off < 1, `${what}: ${off} px off its line`);
        checked++;
      }
    }
    ok(checked > 20, `${name}: ${checked} notes checked`);
  }
});

Deno.test("chart plan: the height window never drops a note that is on screen", () => {
  const info = defaultChartInfo();
  // Notes of several speeds (slow, fast, standing still, below the line) on a line that also scrolls backwards.
  const base = parsePgr(devChartFile("pgr", 60).text);
  const notes = base.lines[0]!.notes;
  notes.forEach((n, i) => {
    n.speed = [1, 0.25, 3, 0][i % 4]!;
    n.above = i % 3 !== 0;
  });
  const h = base.lines[0]!.height.keyframes;
  h.push({ time: 40, value: h[h.length - 1]!.value, tween: { TweenId: 2 } }, {
    time: 50,
    value: 0,
    tween: { TweenId: 2 },
  });
  h.sort((a, b) => a.time - b.time);
  const prep = served(info, base);
  const book = new JudgeBook();
  for (let t = 0; t < 55; t += 0.37) {
    const frame = planFrame(prep, t, book, model);
    for (const line of prep.lines) {
      const s = model.lineStateAt(prep.chart, prep.info, line.index, t);
      const r = (s.rotation * Math.PI) / 180;
      for (const n of line.notes) {
        if (t > n.time) continue; // only notes still to come: past ones depend on judgements
        const o = model.noteOffsetAt(n.note, s.height, prep.info, t);
        const y = n.above ? o.y : -o.y;
        const wx = s.x + Math.cos(r) * o.x - Math.sin(r) * y, wy = s.y + Math.sin(r) * o.x + Math.cos(r) * y;
        if (Math.abs(wx) > 1 || Math.abs(wy) > 1 / prep.aspect) continue;
        ok(noteAt(frame, line.index, n.id), `t=${t}: on-screen note ${line.index}/${n.id} is drawn`);
      }
    }
  }
});

Deno.test("chart plan: judge lines follow their animations; a line with negative alpha hides its notes", async () => {
  const [, prep] = (await devCharts(40))[0]!;
  // Development chart line 1 glides from x −0.5 to 0.5 while turning 0 → 30° (counter-clockwise) over 40 s.
  const book = new JudgeBook();
  const start = planFrame(prep, 0, book, model).lines.find((l) => l.index === 1)!;
  near(start.x, -0.5, 1e-3, "line 1 starts left");
  near(start.rotation, 0, 1e-6, "line 1 starts level");
  const mid = planFrame(prep, 20, book, model).lines.find((l) => l.index === 1)!;
  near(mid.x, 0, 0.02, "line 1 half way");
  near(mid.rotation, (15 * Math.PI) / 180, 0.01, "line 1 turned 15°");
  near(mid.y, -0.4 / prep.aspect, 1e-3, "line 1 below the centre (0.3 of the height from the bottom, y up, ÷ aspect)");
  const centre = planFrame(prep, 20, book, model).lines.find((l) => l.index === 0)!;
  deepEqual([centre.x, centre.y, centre.alpha], [0, 0, 1]);
  equal(centre.color, JUDGEMENT_COLORS.perfect, "all perfect so far: the line is gold");

  const info = defaultChartInfo();
  const hidden = parsePgr(devChartFile("pgr", 40).text);
  hidden.lines[0]!.object.alpha = {
    time: 0,
    keyframes: [{ time: 0, value: -1, tween: { TweenId: 0 } }],
    cursor: 0,
    next: null,
  };
  const frame = planFrame(served(info, hidden), 3, new JudgeBook(), model);
  equal(frame.lines[0]!.alpha, 0);
  equal(frame.lines[0]!.notes.length, 0);
  ok(frame.lines[1]!.notes.length > 0);
});

Deno.test("chart plan: judgements hide, flash, hold and fade notes at their times, in their colours", () => {
  const prep = served(testChart().info, testChart().chart);
  // The test chart from 2 s: click, click, drag, drag, flick, hold, then again from 7 s (stored in the game's order).
  const notes = [...prep.lines[0]!.notes].sort((a, b) => a.time - b.time);
  const [c0, c1, d0, d1, f0, h0] = notes;
  equal(h0!.kind, 3);
  const book = new JudgeBook();
  book.add([
    { time: c0!.time + 0.01, line_id: 0, note_id: c0!.id, judgement: "Perfect" },
    { time: c1!.time - 0.05, line_id: 0, note_id: c1!.id, judgement: "Good" },
    { time: d0!.time + 0.1, line_id: 0, note_id: d0!.id, judgement: "Bad" },
    { time: d1!.time + 0.16, line_id: 0, note_id: d1!.id, judgement: "Miss" },
    { time: f0!.time, line_id: 0, note_id: f0!.id, judgement: "Perfect" },
    { time: h0!.time + 0.02, line_id: 0, note_id: h0!.id, judgement: "HoldPerfect" },
    { time: h0!.endTime, line_id: 0, note_id: h0!.id, judgement: "Perfect" },
    { time: 1, line_id: 99, note_id: 0, judgement: "Perfect" }, // not in this chart: counted, never drawn
    { time: 1, line_id: 0, note_id: 0, judgement: "Bogus" },
  ]);
  equal(book.dropped, 1);

  const at = (t: number) => planFrame(prep, t, book, model);
  // Before its judgement a note is pending; after it a hit note is gone and its flash shows in its class colour.
  equal(noteAt(at(c0!.time), 0, c0!.id)?.state, "pending");
  const hit = at(c0!.time + 0.02);
  equal(noteAt(hit, 0, c0!.id), null);
  const flash = hit.effects.find((e) => e.kind === "hit")!;
  equal(flash.cls, "perfect");
  near(flash.x, c0!.note.object.translation.x.keyframes[0].value, 1e-6, "flash where the note met the line");
  near(flash.age, 0.01 / EFFECT_S, 1e-6, "flash age");
  equal(at(c0!.time + 0.01 + EFFECT_S + 0.01).effects.filter((e) => e.cls === "perfect").length, 0, "flash over");
  equal(at(c1!.time - 0.04).effects[0]?.cls, "good", "an early hit flashes before the note's time");
  equal(at(d0!.time + 0.11).effects.at(-1)?.cls, "bad");
  // A miss: the note goes on past its line in grey and fades out.
  const miss = noteAt(at(d1!.time + 0.2), 0, d1!.id)!;
  equal(miss.state, "miss");
  equal(miss.cls, "miss");
  ok(miss.y < 0 && miss.alpha < 1, "past the line, fading");
  equal(noteAt(at(d1!.time + 0.16 + MISS_FADE_S + 0.01), 0, d1!.id), null);
  // Not judged and past the late window: hidden (the test chart's line does not show notes below it).
  const unjudged = new JudgeBook();
  ok(noteAt(planFrame(prep, c0!.time + LATE_S / 2, unjudged, model), 0, c0!.id));
  equal(noteAt(planFrame(prep, c0!.time + LATE_S + 0.01, unjudged, model), 0, c0!.id), null);
  // A hold being held: head on the line, tail ahead, in the head's colour, a spark on the line; gone at its end.
  const held = at(h0!.time + 0.5);
  const hold = noteAt(held, 0, h0!.id)!;
  deepEqual([hold.state, hold.cls, hold.y], ["held", "perfect", 0]);
  ok(hold.endY! > 0);
  ok(held.effects.some((e) => e.kind === "hold" && e.cls === "perfect"));
  equal(noteAt(at(h0!.endTime + 0.01), 0, h0!.id), null);
  // What the spectator has been shown so far, by class; the line turns white after a bad or a miss.
  const end = at(h0!.endTime + 0.01);
  deepEqual(end.counts.shown, { perfect: 5, good: 1, bad: 1, miss: 1 });
  equal(end.lines[0]!.color, "#ffffff");
  deepEqual(at(c1!.time).counts.shown, { perfect: 2, good: 1, bad: 0, miss: 0 });
  equal(at(c1!.time).lines[0]!.color, JUDGEMENT_COLORS.good);
});

Deno.test("judge book: classes, order, recount when time goes back, bounded", () => {
  deepEqual(
    ["Perfect", "HoldPerfect", "Good", "HoldGood", "Bad", "Miss", "x"].map(judgementClass),
    ["perfect", "perfect", "good", "good", "bad", "miss", null],
  );
  deepEqual(JUDGEMENT_COLORS, { perfect: "#f5d76e", good: "#7fd4f5", bad: "#f29b72", miss: "#8b98a5" });
  equal(lineColorFor({ perfect: 3, good: 0, bad: 0, miss: 0 }), JUDGEMENT_COLORS.perfect);
  const book = new JudgeBook(3);
  book.add([{ time: 2, line_id: 0, note_id: 1, judgement: "Good" }]);
  deepEqual(book.advance(5), { perfect: 0, good: 1, bad: 0, miss: 0 });
  // Arriving late but earlier in time: placed in order, the tallies counted again.
  book.add([{ time: 1, line_id: 0, note_id: 0, judgement: "Perfect" }]);
  deepEqual(book.events.map((e) => e.time), [1, 2]);
  deepEqual(book.advance(5), { perfect: 1, good: 1, bad: 0, miss: 0 });
  deepEqual(book.advance(1.5), { perfect: 1, good: 0, bad: 0, miss: 0 });
  // A second final judgement of the same note does not replace the first.
  book.add([{ time: 3, line_id: 0, note_id: 0, judgement: "Miss" }, {
    time: 4,
    line_id: 0,
    note_id: 2,
    judgement: "Bad",
  }]);
  equal(book.record(0, 0)?.final?.cls, "perfect");
  equal(book.events.length, 3);
  equal(book.dropped, 1, "over the limit: dropped and counted");
  book.clear();
  deepEqual([book.events.length, book.advance(9).perfect, book.record(0, 0)], [0, 0, undefined]);
});

Deno.test("canvas mapping: chart points (y up) and touches as the game sends them (y down × aspect) agree", () => {
  for (const aspect of [16 / 9, 4 / 3]) {
    const m = canvasMapping(1600, 900, aspect);
    deepEqual(m.fromChart(-1, 1 / aspect), [0, 0]);
    deepEqual(m.fromChart(1, -1 / aspect), [1600, 900]);
    deepEqual(m.fromTouch(-1, -1), [0, 0]);
    for (const [x, y] of [[0.3, 0.2], [-0.9, -0.5]] as const) {
      const [a, b] = m.fromChart(x, y / aspect);
      const [c, d] = m.fromTouch(x, -y);
      near(a, c, 1e-9, "x");
      near(b, d, 1e-9, "y");
    }
  }
});

Deno.test("chart source: loads once, keeps a few, says why a chart is unavailable, tries a failed one again", async () => {
  const test = JSON.stringify(chartJson(testChart().info, testChart().chart));
  const calls: string[] = [];
  let fail = true;
  const source = new ChartSource({
    url: (id: number | string) => `/chart/${id}.json`,
    fetch: (url: string, init: { signal: AbortSignal }) => {
      calls.push(url);
      if (url === "/chart/2.json") {
        return Promise.resolve(Response.json({ error: "chart 2 is not selected", code: 404 }, { status: 404 }));
      }
      if (url === "/chart/3.json") return Promise.resolve(new Response("<html>gateway</html>", { status: 502 }));
      if (url === "/chart/4.json") return Promise.resolve(Response.json({ hello: "world" }));
      if (url === "/chart/5.json" && fail) return Promise.reject(new TypeError("network down"));
      if (url === "/chart/6.json") {
        // Never answers until abandoned.
        return new Promise((_, reject) =>
          init.signal.addEventListener("abort", () => reject(new DOMException("aborted", "AbortError")))
        );
      }
      return Promise.resolve(new Response(test, { headers: { "content-type": "application/json" } }));
    },
  });
  // The page logs why a chart is unavailable; collected here instead.
  const warned: string[] = [];
  const warn = console.warn;
  console.warn = (line: string) => void warned.push(line);
  deepEqual([source.state, source.caption()], ["none", ""]);
  const loading = source.select(1);
  deepEqual([source.state, source.caption()], ["loading", "loading chart…"]);
  equal(source.select(1), loading, "the same chart: the same load");
  await loading;
  equal(source.state, "ready");
  equal(source.prepared.notes, testChart().chart.lines[0]!.notes.length);
  equal(source.caption(), "Chorus test chart · TEST Lv.1");

  for (
    const [id, why] of [[2, "chart 2 is not selected"], [3, "HTTP 502"], [4, "the server sent no chart"], [
      5,
      "network down",
    ]] as const
  ) {
    await source.select(id);
    deepEqual([source.state, source.prepared, source.caption()], ["error", null, `chart unavailable: ${why}`]);
  }
  fail = false;
  await source.select(5);
  equal(source.state, "ready", "a failed chart is fetched again");
  // Back to chart 1: from memory, no request.
  const before = calls.length;
  await source.select(1);
  deepEqual([source.state, calls.length], ["ready", before]);
  // A chart that never comes, then another one chosen: the first is abandoned and does not overwrite the second.
  const stuck = source.select(6);
  await source.select(1);
  await stuck;
  deepEqual([source.id, source.state], [1, "ready"]);
  // Only the last three charts stay in memory.
  for (const id of [7, 8, 9]) await source.select(id);
  equal(source.cache.has(1), false);
  await source.select(null);
  equal(source.id, 9, "an unknown chart changes nothing");
  console.warn = warn;
  deepEqual(
    warned,
    [2, 3, 4, 5].map((id) =>
      `spectator: chart ${id} unavailable: ${
        ({ 2: "chart 2 is not selected", 3: "HTTP 502", 4: "the server sent no chart", 5: "network down" })[id]
      }`
    ),
  );
});

Deno.test("chart time: the panel's playback time, stopped a moment after the player's newest frame", () => {
  equal(chartTime(12.5, null), 12.5, "nothing received yet");
  equal(chartTime(12.5, 13.2), 12.5, "playing: a second behind the newest frame");
  equal(chartTime(30, 20), 20 + RUN_AHEAD_S, "the player stopped at 20 s: so does the chart");
});
