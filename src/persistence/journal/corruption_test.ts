/**
 * The journal corruption suite (issue 14 "Journal integrity"): one flipped
 * bit in each field of a record at the start, middle and end of a segment,
 * the file cut at every byte of the last record, damaged segment headers,
 * a duplicated segment, and the same for segments of the old format 1.
 * Each case ends one of two ways: every record recovered (with a log line
 * saying what was repaired), or startup refused with a message naming the
 * segment, the bytes and the sequences, changing nothing. The only records
 * that may be cut are a damaged last record (a torn write) and damaged ones
 * the database already holds — never a record silently gone.
 */

import assert from "node:assert/strict";
import { DAMAGED_DIR } from "./repair.ts";
import { segmentHeader, segmentName } from "./format.ts";
import { RecordEncoder } from "./record_v2.ts";
import { concat, flip, keysUpTo, layout, openAndRead, recordOffsets, snapshotDir } from "./corruption_test_util.ts";

/** Three segments of five records: sequences 1–5, 6–10, 11–15. */
const SEGMENTS = 3;
const PER = 5;
const TOTAL = SEGMENTS * PER;

/** Where in the journal a record is damaged: segment index and record index in it. */
const POSITIONS = {
  "start of a segment": [0, 0],
  "middle of a segment": [0, 2],
  "end of a segment": [0, PER - 1],
  "start of the last segment": [SEGMENTS - 1, 0],
  "middle of the last segment": [SEGMENTS - 1, 2],
} as const;

/** Header fields of a format-2 record: byte offset in the record and bit. */
const HEADER_FIELDS = {
  "marker": [1, 3],
  "length (low bit)": [4, 0],
  "length (points past the end of the file)": [6, 4],
  "length (beyond any record)": [7, 7],
  "sequence": [8, 0],
  "sequence (high byte)": [15, 6],
  "body checksum": [17, 2],
  "header checksum": [22, 5],
} as const;

/** Damages record `rec` of segment `seg` with `damage` (given the segment bytes and the record's offset). */
async function damage(
  paths: string[],
  seg: number,
  rec: number,
  fn: (bytes: Uint8Array, offset: number) => Uint8Array,
): Promise<{ offset: number; seq: number }> {
  const bytes = await Deno.readFile(paths[seg]!);
  const offset = recordOffsets(bytes)[rec]!;
  await Deno.writeFile(paths[seg]!, fn(bytes, offset));
  return { offset, seq: seg * PER + rec + 1 };
}

Deno.test("journal corruption: one flipped bit in any header field of any record is repaired; nothing is lost", async (t) => {
  for (const [where, [seg, rec]] of Object.entries(POSITIONS)) {
    for (const [field, [at, bit]] of Object.entries(HEADER_FIELDS)) {
      await t.step(`${field} at the ${where}`, async () => {
        const { dir, paths } = await layout(SEGMENTS, PER);
        const { seq } = await damage(paths, seg, rec, (b, o) => flip(b, o + at, bit));
        const { journal, keys, logs } = await openAndRead(dir);
        assert.deepEqual(keys, keysUpTo(TOTAL));
        assert.equal(journal.counters.records_repaired, 1);
        assert.equal(journal.counters.segments_rewritten, 1);
        const line = logs.history().find((r) => r.msg === "journal: repaired a damaged record header; nothing lost");
        assert.equal(line?.fields?.seq, seq);
        assert.equal(journal.append({ t: "setting", key: "next", value: 1, at: 0 }), TOTAL + 1);
        await journal.close();
        const again = await openAndRead(dir);
        assert.deepEqual(again.keys, [...keysUpTo(TOTAL), "next"], "the repaired segment reads cleanly");
        assert.equal(again.journal.counters.records_repaired, 0);
        await again.journal.close();
        await Deno.remove(dir, { recursive: true });
      });
    }
  }
  await t.step("the same bit in the last record of the journal", async () => {
    for (const [at, bit] of Object.values(HEADER_FIELDS)) {
      const { dir, paths } = await layout(SEGMENTS, PER);
      await damage(paths, SEGMENTS - 1, PER - 1, (b, o) => flip(b, o + at, bit));
      const { journal, keys } = await openAndRead(dir);
      assert.deepEqual(keys, keysUpTo(TOTAL), `bit ${bit} of byte ${at}`);
      assert.equal(journal.counters.records_repaired, 1);
      await journal.close();
      await Deno.remove(dir, { recursive: true });
    }
  });
});

Deno.test("journal corruption: a flipped body bit refuses the start, naming segment, bytes and sequence", async (t) => {
  for (const [where, [seg, rec]] of Object.entries(POSITIONS)) {
    await t.step(where, async () => {
      const { dir, paths } = await layout(SEGMENTS, PER);
      const { offset, seq } = await damage(paths, seg, rec, (b, o) => flip(b, o + 30, 1));
      const before = await snapshotDir(dir);
      await assert.rejects(openAndRead(dir), (e: Error) => {
        assert.match(e.message, /^Cannot recover the journal in ".*": it is damaged where it holds records/);
        const line = `- "${paths[seg]}" bytes ${offset}–`;
        assert.ok(e.message.includes(line), e.message);
        assert.match(e.message, new RegExp(`\\(body checksum mismatch\\): sequence ${seq}\\n`));
        assert.match(
          e.message,
          /Nothing was changed\. Restore these files from a backup.*--journal-damaged-records skip/s,
        );
        return true;
      });
      assert.deepEqual(await snapshotDir(dir), before, "a refused start changes nothing");

      // The database already holds it: the record is not needed, and the start goes on.
      const applied = await openAndRead(dir, { appliedSeq: seq });
      assert.deepEqual(applied.keys, keysUpTo(TOTAL, [seq]));
      assert.equal(applied.journal.counters.damaged_already_applied, 1);
      await applied.journal.close();
      await Deno.remove(dir, { recursive: true });
    });
  }
  await t.step("skip: the operator starts without it; the rest is kept and the original saved", async () => {
    const { dir, paths } = await layout(SEGMENTS, PER);
    const { seq } = await damage(paths, 1, 2, (b, o) => flip(b, o + 30, 1));
    const { journal, keys, logs } = await openAndRead(dir, { damaged: "skip" });
    assert.deepEqual(keys, keysUpTo(TOTAL, [seq]));
    assert.equal(journal.counters.damaged_skipped, 1);
    const line = logs.history().find((r) =>
      r.level === "error" && r.msg.startsWith("journal: skipped a damaged record")
    );
    assert.equal(line?.fields?.sequences, String(seq));
    const saved = await Array.fromAsync(Deno.readDir(`${dir}/${DAMAGED_DIR}`));
    assert.deepEqual(saved.map((e) => e.name), [`${segmentName(6)}.2026-01-01T00-00-00-000Z`]);
    await journal.close();
    const again = await openAndRead(dir);
    assert.deepEqual(again.keys, keysUpTo(TOTAL, [seq]), "the next start is clean");
    await again.journal.close();
    await Deno.remove(dir, { recursive: true });
  });
  await t.step("the last record of the journal is cut as a torn write, with a log line", async () => {
    const { dir, paths } = await layout(SEGMENTS, PER);
    await damage(paths, SEGMENTS - 1, PER - 1, (b, o) => flip(b, o + 30, 1));
    const { journal, keys, logs } = await openAndRead(dir);
    assert.deepEqual(keys, keysUpTo(TOTAL - 1));
    assert.equal(journal.counters.torn_tails_truncated, 1);
    const line = logs.history().find((r) => r.msg === "journal: truncated a torn record at the end of a segment");
    assert.equal(line?.fields?.sequences, String(TOTAL));
    await journal.close();
    await Deno.remove(dir, { recursive: true });
  });
});

Deno.test("journal corruption: the file cut at every byte of the last record loses that record only", async () => {
  const { dir, paths } = await layout(SEGMENTS, PER);
  const last = paths.at(-1)!;
  const whole = await Deno.readFile(last);
  const start = recordOffsets(whole).at(-1)!;
  for (let cut = start; cut < whole.length; cut++) {
    await Deno.writeFile(last, whole.subarray(0, cut));
    const { journal, keys } = await openAndRead(dir);
    assert.deepEqual(keys, keysUpTo(TOTAL - 1), `cut at ${cut}`);
    assert.equal(journal.counters.torn_tails_truncated, cut === start ? 0 : 1, `cut at ${cut}`);
    assert.equal((await Deno.stat(last)).size, start);
    assert.equal(journal.lastSeq, TOTAL - 1, "the sequence continues after the last intact record");
    await journal.close();
  }
  await Deno.remove(dir, { recursive: true });
});

Deno.test("journal corruption: damaged stretches between records", async (t) => {
  await t.step("a zeroed record header: refused, naming the one sequence it held", async () => {
    const { dir, paths } = await layout(SEGMENTS, PER);
    const { offset } = await damage(paths, 0, 2, (b, o) => {
      const out = b.slice();
      out.fill(0, o, o + 24);
      return out;
    });
    await assert.rejects(openAndRead(dir), (e: Error) => {
      assert.ok(e.message.includes(`"${paths[0]}" bytes ${offset}–`), e.message);
      assert.match(e.message, /\(no record marker\): sequence 3\n/);
      return true;
    });
    await Deno.remove(dir, { recursive: true });
  });
  await t.step("garbage between two records that holds no sequence: dropped, nothing lost", async () => {
    const { dir, paths } = await layout(SEGMENTS, PER);
    await damage(paths, 0, 3, (b, o) => concat(b.subarray(0, o), new Uint8Array(40).fill(0x5a), b.subarray(o)));
    const { journal, keys, logs } = await openAndRead(dir);
    assert.deepEqual(keys, keysUpTo(TOTAL));
    assert.ok(logs.history().some((r) => r.msg === "journal: dropped damaged bytes that hold no record"));
    await journal.close();
    await Deno.remove(dir, { recursive: true });
  });
});

Deno.test("journal corruption: segment headers and duplicated segments", async (t) => {
  await t.step("a flipped bit in a segment's magic: rewritten from the file name", async () => {
    const { dir, paths } = await layout(SEGMENTS, PER);
    await Deno.writeFile(paths[1]!, flip(await Deno.readFile(paths[1]!), 2));
    const { journal, keys } = await openAndRead(dir);
    assert.deepEqual(keys, keysUpTo(TOTAL));
    assert.equal(journal.counters.segments_rewritten, 1);
    await journal.close();
    await Deno.remove(dir, { recursive: true });
  });
  for (const [name, at, bit] of [["low", 8, 1], ["high", 14, 3]] as const) {
    await t.step(`a flipped ${name} bit in a segment's first sequence: the name stands`, async () => {
      const { dir, paths } = await layout(SEGMENTS, PER);
      await Deno.writeFile(paths[1]!, flip(await Deno.readFile(paths[1]!), at, bit));
      const { journal, keys } = await openAndRead(dir);
      assert.deepEqual(keys, keysUpTo(TOTAL));
      assert.equal(journal.counters.segments_rewritten, 1);
      await journal.close();
      await Deno.remove(dir, { recursive: true });
    });
  }
  for (const [copy, as] of [[0, 100], [1, 3], [SEGMENTS - 1, 99]] as const) {
    await t.step(`segment ${copy} copied as ${segmentName(as)}: moved aside, nothing lost`, async () => {
      const { dir, paths } = await layout(SEGMENTS, PER);
      await Deno.copyFile(paths[copy]!, `${dir}/${segmentName(as)}`);
      const { journal, keys, logs } = await openAndRead(dir);
      assert.deepEqual(keys, keysUpTo(TOTAL));
      assert.equal(journal.counters.segments_set_aside, 1);
      assert.ok(logs.history().some((r) => r.msg.startsWith("journal: moved a duplicate segment aside")));
      const aside = await Array.fromAsync(Deno.readDir(`${dir}/${DAMAGED_DIR}`));
      assert.deepEqual(aside.map((e) => e.name), [`${segmentName(as)}.duplicate.2026-01-01T00-00-00-000Z`]);
      assert.equal(journal.append({ t: "setting", key: "next", value: 1, at: 0 }), TOTAL + 1);
      await journal.close();
      const again = await openAndRead(dir);
      assert.deepEqual(again.keys, [...keysUpTo(TOTAL), "next"]);
      await again.journal.close();
      await Deno.remove(dir, { recursive: true });
    });
  }
  await t.step("a different record under a sequence already read: refused", async () => {
    const { dir } = await layout(SEGMENTS, PER);
    const body = '{"t":"setting","key":"other","value":1,"at":0}';
    await Deno.writeFile(`${dir}/${segmentName(200)}`, concat(segmentHeader(4), new RecordEncoder().encode(4, body)));
    await assert.rejects(openAndRead(dir), (e: Error) => {
      assert.match(
        e.message,
        /0200\.wal" byte 16: the record with sequence 4 \(a different record with sequence 4 is at byte \d+ of ".*0001\.wal"\)/,
      );
      return true;
    });
    await Deno.remove(dir, { recursive: true });
  });
});
