/**
 * The corruption suite for segments of the old format 1 (data directories
 * written before format 2): they are still read, a damaged length no longer
 * passes for a torn tail (issue 14: one flipped length bit used to cost
 * every record after it), and new records go to a format-2 segment.
 */

import assert from "node:assert/strict";
import { flip, keysUpTo, layout, openAndRead, recordOffsets, snapshotDir } from "./corruption_test_util.ts";

const SEGMENTS = 2;
const PER = 5;
const TOTAL = SEGMENTS * PER;

const POSITIONS = { start: 0, middle: 2, end: PER - 1 } as const;

async function damage(path: string, rec: number, fn: (b: Uint8Array, o: number) => Uint8Array): Promise<number> {
  const bytes = await Deno.readFile(path);
  const offset = recordOffsets(bytes, 1)[rec]!;
  await Deno.writeFile(path, fn(bytes, offset));
  return offset;
}

Deno.test("journal format 1: a damaged length or checksum is repaired; new records go to a format-2 segment", async (t) => {
  const fields = {
    "length pointing past the end of the file": [2, 6],
    "length off by one": [0, 0],
    "length beyond any record": [3, 7],
    "checksum": [5, 3],
  } as const;
  for (const [segment, path] of [["first", 0], ["last", SEGMENTS - 1]] as const) {
    for (const [where, rec] of Object.entries(POSITIONS)) {
      for (const [field, [at, bit]] of Object.entries(fields)) {
        await t.step(`${field}, ${where} of the ${segment} segment`, async () => {
          const { dir, paths } = await layout(SEGMENTS, PER, 1);
          await damage(paths[path]!, rec, (b, o) => flip(b, o + at, bit));
          const { journal, keys, logs } = await openAndRead(dir);
          assert.deepEqual(keys, keysUpTo(TOTAL));
          assert.equal(journal.counters.records_repaired, 1);
          assert.ok(logs.history().some((r) => r.msg === "journal: repaired a damaged record header; nothing lost"));
          assert.equal(journal.append({ t: "setting", key: "next", value: 1, at: 0 }), TOTAL + 1);
          assert.equal(journal.segments().at(-1)!.version, 2, "new records go to a format-2 segment");
          await journal.close();
          const again = await openAndRead(dir);
          assert.deepEqual(again.keys, [...keysUpTo(TOTAL), "next"]);
          await again.journal.close();
          await Deno.remove(dir, { recursive: true });
        });
      }
    }
  }
});

Deno.test("journal format 1: a damaged sequence or body refuses the start, naming the sequences", async (t) => {
  for (const [field, at] of [["sequence", 8], ["version", 16], ["body", 20]] as const) {
    await t.step(field, async () => {
      const { dir, paths } = await layout(SEGMENTS, PER, 1);
      const offset = await damage(paths[0]!, 2, (b, o) => flip(b, o + at, 2));
      const before = await snapshotDir(dir);
      await assert.rejects(openAndRead(dir), (e: Error) => {
        assert.ok(e.message.includes(`"${paths[0]}" bytes ${offset}–`), e.message);
        assert.match(e.message, /\(checksum mismatch\): sequence 3\n/);
        return true;
      });
      assert.deepEqual(await snapshotDir(dir), before);
      const applied = await openAndRead(dir, { appliedSeq: 3 });
      assert.deepEqual(applied.keys, keysUpTo(TOTAL, [3]));
      await applied.journal.close();
      await Deno.remove(dir, { recursive: true });
    });
  }
});

Deno.test("journal format 1: the file cut at every byte of the last record loses that record only", async () => {
  const { dir, paths } = await layout(SEGMENTS, PER, 1);
  const last = paths.at(-1)!;
  const whole = await Deno.readFile(last);
  const start = recordOffsets(whole, 1).at(-1)!;
  for (let cut = start + 1; cut < whole.length; cut++) {
    await Deno.writeFile(last, whole.subarray(0, cut));
    // Each start moves new records to a format-2 segment; take it away again so the old one stays last.
    const { journal, keys } = await openAndRead(dir);
    assert.deepEqual(keys, keysUpTo(TOTAL - 1), `cut at ${cut}`);
    assert.equal(journal.counters.torn_tails_truncated, 1, `cut at ${cut}`);
    const fresh = journal.segments().at(-1)!.path;
    await journal.close();
    await Deno.remove(fresh);
  }
  await Deno.remove(dir, { recursive: true });
});
