/**
 * The store suite's cases for telemetry as wire bytes (issue 15): a
 * `telemetry.segments` record takes one sequence per segment and becomes
 * `telemetry_segments` rows and per-player round data; `persist.touches` /
 * `persist.judges` read the segments' bytes from the files and decode them,
 * merged by sequence with JSON batches written before schema version 5.
 * Run on every backend by `store_suite_test_util.ts`.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { ClientCommand, encodeValue, type TouchFrame } from "../../protocol/mod.ts";
import { encodeEntry, encodeHeader } from "../../replay/mod.ts";
import { Queries } from "../queries/queries.ts";
import { forgetFiles, pruneSegments } from "../telemetry/retention.ts";
import type { SqlDb } from "../backends/sql_db.ts";
import type { Store } from "./store.ts";
import { entrySpan, type JournalEntry, type TelemetrySegment } from "../types.ts";

const T0 = 1_700_000_000_000;
const frames = (n: number): TouchFrame[] =>
  Array.from({ length: n }, (_, i) => ({ time: i, points: [[0, { x: 0.5, y: 0.25 }]] })) as TouchFrame[];
const judges = [{ time: 1, line_id: 2, note_id: 3, judgement: "Good" as const }];

async function applySpans(store: Store, entries: JournalEntry[]): Promise<void> {
  let seq = await store.appliedSeq();
  const batch = entries.map((entry) => ({ seq: seq += entrySpan(entry), entry }));
  await store.applyBatch(batch, seq, T0);
}

/** The index row of a segment of one `Touches` in room `abc`, round `r<user>`, at `at`. */
function oneTouch(user: number, file: string, at: number): TelemetrySegment {
  return {
    file,
    offset: 14,
    bytes: 8,
    room: "abc",
    round: `r${user}`,
    user,
    touches: 1,
    judges: 0,
    touch_items: 1,
    judge_items: 0,
    first_at: at,
    last_at: at,
  };
}

/** The cases (same signature as the suite's). */
export const SEGMENT_CASES: [string, (db: SqlDb, store: Store) => Promise<void>][] = [
  ["telemetry segments: rows, round data, read from the files and merged with JSON batches", async (db, store) => {
    const dir = await Deno.makeTempDir({ prefix: "chorus-suite-" });
    try {
      const t1 = encodeValue(ClientCommand, { type: "Touches", frames: frames(3) });
      const j1 = encodeValue(ClientCommand, { type: "Judges", judges });
      const t2 = encodeValue(ClientCommand, { type: "Touches", frames: frames(1) });
      await Deno.mkdir(join(dir, "100", "7"), { recursive: true });
      await Deno.writeFile(
        join(dir, "100", "7", `${T0}.phirarec`),
        Uint8Array.from([
          ...encodeHeader({ chartId: 7, userId: 100, recordId: 0 }),
          ...encodeEntry(t1),
          ...encodeEntry(j1),
          ...encodeEntry(t2),
        ]),
      );
      const seg = (
        offset: number,
        bytes: number,
        touches: number,
        items: number,
        judged: number,
      ): TelemetrySegment => ({
        file: `100/7/${T0}.phirarec`,
        offset,
        bytes,
        room: "abc",
        round: "r1",
        user: 100,
        touches,
        judges: judged,
        touch_items: items,
        judge_items: judged,
        first_at: T0 + offset,
        last_at: T0 + offset + 10,
      });
      const first = seg(14, t1.length + j1.length + 8, 1, 3, 1);
      const second = seg(14 + first.bytes, t2.length + 4, 1, 1, 0);
      const old = {
        kind: "touches" as const,
        room: "abc",
        round: "r0",
        user: 100,
        items: [{ x: 1 }],
        first_at: T0,
        last_at: T0,
      };
      await applySpans(store, [
        { t: "telemetry", ...old },
        { t: "telemetry.segments", segments: [first, second] },
        { t: "telemetry", ...old, round: "r9" },
      ]);
      const rows = await db.query(
        "SELECT seq, file_offset, touch_count, judge_count FROM telemetry_segments ORDER BY seq",
      );
      assert.deepEqual(rows.map((r) => [r.seq, r.file_offset, r.touch_count, r.judge_count]), [[2, 14, 1, 1], [
        3,
        14 + first.bytes,
        1,
        0,
      ]]);
      const q = new Queries(db, dir);
      const touches = await q.telemetry("touches", {});
      assert.deepEqual(touches.map((b) => [b.seq, b.round_uuid, b.item_count]), [[1, "r0", 1], [2, "r1", 3], [
        3,
        "r1",
        1,
      ], [4, "r9", 1]]);
      assert.deepEqual(touches[1]!.items, frames(3));
      assert.deepEqual(await q.telemetry("judges", { round: "r1", player: 100 }).then((b) => b.map((x) => x.items)), [
        judges,
      ]);
      assert.deepEqual((await q.telemetry("touches", { since: 1, limit: 2 })).map((b) => b.seq), [2, 3]);
      const [d] = await db.query("SELECT * FROM round_player_data WHERE round_uuid = 'r1'");
      assert.deepEqual([d!.touch_items, d!.touch_batches, d!.judge_items, d!.judge_batches], [4, 2, 1, 1]);
      // A segment whose file is gone reads as an empty batch (its sequence still pages on).
      await Deno.remove(join(dir, "100", "7", `${T0}.phirarec`));
      assert.deepEqual((await q.telemetry("touches", { round: "r1" })).map((b) => [b.seq, b.items]), [[2, []], [
        3,
        [],
      ]]);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  }],
  ["telemetry retention: a file goes with its rows once its newest segment is old; a file still written stays", async (
    db,
    store,
  ) => {
    const dir = await Deno.makeTempDir({ prefix: "chorus-suite-" });
    try {
      const DAY = 86_400_000;
      const seg = (user: number, at: number) => oneTouch(user, `${user}/1/${T0}.phirarec`, at);
      for (const user of [1, 2]) {
        await Deno.mkdir(join(dir, String(user), "1"), { recursive: true });
        await Deno.writeFile(
          join(dir, String(user), "1", `${T0}.phirarec`),
          encodeHeader({ chartId: 1, userId: user, recordId: 0 }),
        );
      }
      // User 1's file is old throughout; user 2's has an old segment and a new one.
      await applySpans(store, [{
        t: "telemetry.segments",
        segments: [seg(1, T0), seg(1, T0 + 1), seg(2, T0), seg(2, T0 + 3 * DAY)],
      }]);
      const pruned = await pruneSegments(db, dir, T0 + 2 * DAY, 1);
      assert.deepEqual(pruned, { files: 1, rows: 2 });
      assert.deepEqual(
        (await db.query("SELECT player_id FROM telemetry_segments ORDER BY seq")).map((r) => r.player_id),
        [2, 2],
      );
      assert.deepEqual(
        (await Array.fromAsync(Deno.readDir(dir))).map((e) => e.name),
        ["2"],
        "the file and its folders went",
      );
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  }],
  [
    "telemetry segments: the rows of files removed elsewhere (legacy's replay sweep) are forgotten",
    async (db, store) => {
      const seg = (user: number, file: string) => oneTouch(user, file, T0);
      await applySpans(store, [{
        t: "telemetry.segments",
        segments: [
          seg(1, "1/1/5.phirarec"),
          seg(1, "1/1/5.phirarec"),
          seg(2, "2/1/6.phirarec"),
          seg(3, "3/1/7.phirarec"),
        ],
      }]);
      assert.equal(await forgetFiles(db, ["1/1/5.phirarec", "3/1/7.phirarec", "9/9/9.phirarec"], 1), 3);
      assert.deepEqual(
        (await db.query("SELECT file_path FROM telemetry_segments ORDER BY seq")).map((r) => r.file_path),
        ["2/1/6.phirarec"],
      );
      assert.equal(await forgetFiles(db, []), 0);
    },
  ],
];
