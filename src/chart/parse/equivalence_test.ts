// The same chart written as official JSON, RPE and PEC (the development charts of dev_chart_content.ts) parses to
// models that draw the same: judge line positions, rotations, alpha and heights at every time, and the same notes.
// The models are not byte-equal — each format's conversion keeps its own shape (RPE notes carry scale and a default
// hit sound, PGR keyframes are deduplicated, …) — so the comparison evaluates them as a drawer would.

import { ok } from "node:assert/strict";
import { evalAnimOr, lineStateAt } from "../../../static/chart/chart_model.js";
import { devChartFile } from "../../upstream/dev_chart_content.ts";
import type { Chart } from "../model/types.ts";
import { parsePec } from "./pec.ts";
import { parsePgr } from "./pgr.ts";
import { parseRpe } from "./rpe.ts";

const SECONDS = 40;
const close = (a: number, b: number, what: string, eps = 1e-3) =>
  ok(Math.abs(a - b) <= eps * Math.max(1, Math.abs(a)), `${what}: ${a} vs ${b}`);

function sameDrawing(a: Chart, b: Chart, names: string): void {
  ok(a.lines.length === b.lines.length, `${names}: line count`);
  for (let t = 0; t < SECONDS - 2; t += 0.1) {
    a.lines.forEach((_, i) => {
      const [sa, sb] = [lineStateAt(a, null, i, t), lineStateAt(b, null, i, t)];
      for (const k of ["x", "y", "rotation", "alpha", "height"] as const) {
        close(sa[k], sb[k], `${names} line ${i} ${k} at ${t}`);
      }
    });
  }
  a.lines.forEach((la, i) => {
    const lb = b.lines[i]!;
    ok(la.notes.length === lb.notes.length, `${names} line ${i}: note count`);
    const byTime = (n: Chart["lines"][number]["notes"]) => [...n].sort((x, y) => x.time - y.time);
    const [na, nb] = [byTime(la.notes), byTime(lb.notes)];
    na.forEach((x, j) => {
      const y = nb[j]!;
      const what = `${names} line ${i} note ${j}`;
      close(x.time, y.time, `${what} time`);
      close(x.height, y.height, `${what} height`);
      close(evalAnimOr(x.object.translation.x, x.time, 0), evalAnimOr(y.object.translation.x, y.time, 0), `${what} x`);
      ok(
        JSON.stringify(typeof x.kind === "string" ? x.kind : "Hold") ===
          JSON.stringify(typeof y.kind === "string" ? y.kind : "Hold"),
        `${what} kind`,
      );
      if (typeof x.kind === "object" && typeof y.kind === "object") {
        close(x.kind.Hold.end_time, y.kind.Hold.end_time, `${what} end time`);
        close(x.kind.Hold.end_height, y.kind.Hold.end_height, `${what} end height`);
      }
      ok(x.above === y.above && x.fake === y.fake && x.multiple_hint === y.multiple_hint, `${what} flags`);
    });
  });
}

Deno.test("chart formats: the same chart as PGR, RPE and PEC draws the same", async () => {
  const pgr = parsePgr(devChartFile("pgr", SECONDS).text);
  const rpe = await parseRpe(devChartFile("rpe", SECONDS).text);
  const pec = parsePec(devChartFile("pec", SECONDS).text);
  ok(pgr.lines[0]!.notes.length > 60, "a real amount of notes");
  ok(pgr.lines[1]!.notes.every((n) => n.multiple_hint), "line 1 notes share their times with line 0");
  sameDrawing(pgr, rpe, "PGR/RPE");
  sameDrawing(pgr, pec, "PGR/PEC");
  // The glide line really moves and turns.
  close(lineStateAt(pgr, null, 1, 0).x, -0.5, "start x");
  close(lineStateAt(pgr, null, 1, (SECONDS - 2) / 2 + 1).rotation, 15, "rotation half way", 0.05);
});
