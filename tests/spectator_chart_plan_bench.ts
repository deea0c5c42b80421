/**
 * The spectator's chart layer, planning side (`static/spectator/chart_plan.js`): one frame of the dense 3-minute RPE
 * chart of `src/chart/bench_chart.ts` (16 moving lines, 1621 notes, 30 640 keyframes) at times spread over the chart,
 * with every note judged (flashes and hold states looked up). A page draws one such frame per player panel per
 * animation frame: 8 panels at 60 fps are 480 frames a second. Results and method in BENCHMARKS.md.
 */
import { benchChartRpe } from "../src/chart/bench_chart.ts";
import { chartJson, defaultChartInfo, parseRpe } from "../src/chart/mod.ts";
import * as model from "../static/chart/chart_model.js";
import { JudgeBook, planFrame, prepareChart } from "../static/spectator/chart_plan.js";

const parsed = await parseRpe(benchChartRpe());
const data = JSON.parse(JSON.stringify(chartJson(defaultChartInfo(), parsed)));
const prep = prepareChart(data);
const book = new JudgeBook();
book.add(
  prep.lines.flatMap((l) =>
    l.notes.map((n) => ({ time: n.time, line_id: l.index, note_id: n.id, judgement: "Perfect" }))
  ),
);
const empty = new JudgeBook();
const times = Array.from({ length: 480 }, (_, i) => 5 + (i * 170) / 480);
let notes = 0;
for (const t of times) notes += planFrame(prep, t, book, model).counts.notes;
console.log(
  `${prep.lines.length} lines, ${prep.notes} notes; ${(notes / times.length).toFixed(1)} notes drawn per frame`,
);

Deno.bench("prepare the chart (once per chart)", () => {
  prepareChart(data);
});

let i = 0;
Deno.bench("plan one frame, every note judged", () => {
  planFrame(prep, times[i++ % times.length]!, book, model);
});

Deno.bench("plan one frame, nothing judged", () => {
  planFrame(prep, times[i++ % times.length]!, empty, model);
});
