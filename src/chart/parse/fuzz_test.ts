// Seeded, bounded fuzzing of the chart parsers: valid charts of each format mutated at the byte level (flips,
// cuts, inserted junk) and at the JSON level (values replaced by other types, huge or negative numbers, deep
// nesting, emptied arrays). Every case must either parse to a model that encodes and decodes back, or fail with a
// ChartParseError — never another exception, a hang or a crash. Same seeds, same cases.

import { equal, fail, ok } from "node:assert/strict";
import { devChartFile } from "../../upstream/dev_chart_content.ts";
import { type Random, randomInt, SeededRandom } from "../../util/random.ts";
import { decodeChart } from "../bincode/decode.ts";
import { encodeChart } from "../bincode/encode.ts";
import { defaultChartInfo } from "../model/build.ts";
import type { Chart } from "../model/types.ts";
import { ChartParseError } from "./errors.ts";
import { parseInfo } from "./info.ts";
import { Budget, DEFAULT_LIMITS } from "./limits.ts";
import { parsePec } from "./pec.ts";
import { parsePgr } from "./pgr.ts";
import { parseRpe } from "./rpe.ts";

const CASES = 800;
// Small bounds keep each case fast even when a mutation makes a chart huge.
const limits = { ...DEFAULT_LIMITS, maxKeyframes: 200_000, maxNotes: 20_000, maxLines: 200 };

const WEIRD: unknown[] = [null, -1, 0, 1e308, -1e308, 1e-300, 2 ** 53, "x", "", true, [], {}, [1, 2], { a: 1 }, [[[
  [],
]]]];

function mutateJson(v: unknown, r: Random, depth = 0): unknown {
  if (Array.isArray(v)) {
    if (v.length === 0 || r.next() < 0.05) return r.next() < 0.5 ? [] : WEIRD[randomInt(r, WEIRD.length)];
    const i = randomInt(r, v.length);
    const out = [...v];
    out[i] = mutateJson(v[i], r, depth + 1);
    if (r.next() < 0.1) out.push(out[i]);
    return out;
  }
  if (typeof v === "object" && v !== null) {
    const keys = Object.keys(v);
    if (keys.length === 0 || r.next() < 0.05) return WEIRD[randomInt(r, WEIRD.length)];
    const k = keys[randomInt(r, keys.length)]!;
    const out: Record<string, unknown> = { ...(v as Record<string, unknown>) };
    if (r.next() < 0.1) delete out[k];
    else out[k] = mutateJson(out[k], r, depth + 1);
    return out;
  }
  if (typeof v === "number" && r.next() < 0.5) return [v * -1, v * 1e6, v + 0.5, 0, -0.000001, 1e30][randomInt(r, 6)];
  return WEIRD[randomInt(r, WEIRD.length)];
}

function mutateBytes(text: string, r: Random): string {
  const b = [...new TextEncoder().encode(text)];
  const n = 1 + randomInt(r, 8);
  for (let i = 0; i < n; i++) {
    const at = randomInt(r, b.length + 1);
    switch (randomInt(r, 4)) {
      case 0:
        b[at] = randomInt(r, 256);
        break;
      case 1:
        b.splice(at, 1 + randomInt(r, 40));
        break;
      case 2:
        b.splice(at, 0, ...Array.from({ length: 1 + randomInt(r, 8) }, () => randomInt(r, 128)));
        break;
      default:
        b.length = Math.min(b.length, at);
    }
  }
  return new TextDecoder().decode(new Uint8Array(b));
}

async function expectCleanOutcome(what: string, f: () => Chart | Promise<Chart>): Promise<"ok" | "error"> {
  let chart: Chart;
  try {
    chart = await f();
  } catch (e) {
    if (e instanceof ChartParseError) {
      ok(e.message.startsWith("Cannot "), `${what}: message ${e.message}`);
      return "error";
    }
    fail(`${what}: ${e instanceof Error ? `${e.name}: ${e.message}\n${e.stack}` : String(e)}`);
  }
  const bytes = encodeChart(defaultChartInfo(), chart);
  equal(encodeChart(defaultChartInfo(), decodeChart(bytes).chart).byteLength, bytes.byteLength, `${what}: round trip`);
  return "ok";
}

for (const format of ["pgr", "rpe", "pec"] as const) {
  Deno.test(`chart fuzz: mutated ${format} charts parse or fail with a ChartParseError`, async () => {
    const r = new SeededRandom(0xc0ffee + format.length);
    const base = devChartFile(format, 12).text;
    const parse = (t: string) =>
      format === "pgr"
        ? parsePgr(t, new Budget(limits))
        : format === "rpe"
        ? parseRpe(t, undefined, new Budget(limits))
        : parsePec(t, new Budget(limits));
    const outcomes = { ok: 0, error: 0 };
    for (let i = 0; i < CASES; i++) {
      let text: string;
      if (format !== "pec" && i % 2 === 0) {
        let doc = JSON.parse(base);
        for (let k = 1 + randomInt(r, 4); k > 0; k--) doc = mutateJson(doc, r);
        text = JSON.stringify(doc) ?? "null";
      } else text = mutateBytes(base, r);
      outcomes[await expectCleanOutcome(`${format} case ${i}`, () => parse(text))]++;
    }
    ok(outcomes.ok > 10 && outcomes.error > 10, `both outcomes seen: ${JSON.stringify(outcomes)}`);
  });
}

Deno.test("chart fuzz: deep nesting, huge files of brackets and numbers fail cleanly", async () => {
  const deep = '{"formatVersion":3,"judgeLineList":' + "[".repeat(200_000) + "]".repeat(200_000) + "}";
  await expectCleanOutcome("deep PGR", () => parsePgr(deep));
  await expectCleanOutcome("deep RPE", () => parseRpe('{"META":{},"BPMList":' + "[".repeat(200_000)));
  await expectCleanOutcome("number soup", () => parsePec("1".repeat(100_000)));
  await expectCleanOutcome("binary", () => parsePec("\u0000\u00ff".repeat(1000)));
});

Deno.test("chart fuzz: mutated info.yml parses or fails with a ChartParseError", () => {
  const r = new SeededRandom(7);
  const base = 'id: 1\nname: "x"\ndifficulty: 3\ntags: [a]\nchartUpdated: 2024-01-01T00:00:00Z\naspectRatio: 1.7\n';
  for (let i = 0; i < CASES; i++) {
    const text = mutateBytes(base, r);
    try {
      parseInfo(text);
    } catch (e) {
      if (!(e instanceof ChartParseError)) fail(`case ${i} ${JSON.stringify(text)}: ${e}`);
    }
  }
});
