import { deepEqual, equal, notStrictEqual, ok } from "node:assert/strict";
import type { RecordData } from "../protocol/mod.ts";
import { record } from "./room_test_util.ts";
import { packRecords, RECORD_BYTES, SettledRound, unpackRecords } from "./settled_round.ts";

const base = { uuid: "r-1", chart: { id: 7, name: "Chart" }, aborted: [3], startedAt: 1000, finishedAt: 2000 };

Deno.test("settled round: records come back exactly, int32 extremes and any double included", () => {
  const records: RecordData[] = [
    record(1),
    {
      id: 0x7fffffff,
      player: -0x80000000,
      score: 1_000_000,
      perfect: 0,
      good: 2147483647,
      bad: -1,
      miss: 5,
      max_combo: 123,
      accuracy: 0.987654321,
      full_combo: false,
      std: 12.345678901234567,
      std_score: -0.5,
    },
  ];
  const view = packRecords(records)!;
  equal(view.byteLength, 2 * RECORD_BYTES);
  deepEqual(unpackRecords(view), records);
  const round = new SettledRound({ ...base, records });
  ok(round.packed);
  deepEqual(round.records, records);
  deepEqual([round.uuid, round.chart, round.aborted, round.startedAt, round.finishedAt], [
    "r-1",
    { id: 7, name: "Chart" },
    [3],
    1000,
    2000,
  ]);
});

Deno.test("settled round: each read is a new copy, so a reader cannot change the history", () => {
  const round = new SettledRound({ ...base, records: [record(1)] });
  const first = round.records;
  (first[0] as { score: number }).score = 1;
  notStrictEqual(round.records, first);
  equal(round.records[0]!.score, 900000);
  deepEqual(new SettledRound({ ...base, records: [] }).records, []);
});

Deno.test("settled round: a field that is not an int32 keeps the records as objects, unchanged", () => {
  const odd = { ...record(2), score: 2 ** 40 };
  equal(packRecords([record(1), odd]), null);
  const round = new SettledRound({ ...base, records: [record(1), odd] });
  ok(!round.packed);
  deepEqual(round.records, [record(1), odd]);
  equal(packRecords([{ ...record(1), miss: 1.5 }]), null);
});
