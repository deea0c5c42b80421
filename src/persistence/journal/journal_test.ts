import assert from "node:assert/strict";
import { ManualClock } from "../../util/clock.ts";
import { LogHub } from "../../util/log.ts";
import { Journal } from "./journal.ts";
import { faultyJournalFiles } from "./faults_test_util.ts";
import { SEGMENT_HEADER_BYTES } from "./format.ts";
import { V2_HEADER_BYTES as RECORD_HEADER_BYTES } from "./record_v2.ts";
import { JournalReader } from "./reader.ts";
import type { JournalEntry } from "../types.ts";

const setting = (i: number): JournalEntry => ({ t: "setting", key: `k${i}`, value: { i }, at: 1000 + i });

function env() {
  const logs = new LogHub({ level: "debug", sink: () => {} });
  return { clock: new ManualClock(), log: logs.logger(), logs };
}

async function readAll(journal: Journal, from = 1): Promise<{ seq: number; key: string }[]> {
  const out = await new JournalReader(journal).read(from, 1_000_000);
  return out.map((r) => ({ seq: r.seq, key: JSON.parse(new TextDecoder().decode(r.body)).key }));
}

Deno.test("journal appends, survives reopen, and continues the sequence", async () => {
  const dir = await Deno.makeTempDir();
  const e = env();
  const j = await Journal.open({ dir, ...e });
  for (let i = 1; i <= 5; i++) assert.equal(j.append(setting(i)), i);
  await j.sync();
  assert.equal(j.syncedSeq, 5);
  await j.close();
  const again = await Journal.open({ dir, ...e });
  assert.equal(again.lastSeq, 5);
  assert.deepEqual((await readAll(again)).map((r) => r.key), ["k1", "k2", "k3", "k4", "k5"]);
  assert.equal(again.append(setting(6)), 6);
  await again.close();
  await Deno.remove(dir, { recursive: true });
});

Deno.test("journal rolls segments, reads across them, and drops applied ones", async () => {
  const dir = await Deno.makeTempDir();
  const e = env();
  const j = await Journal.open({ dir, ...e, segmentBytes: 200 });
  for (let i = 1; i <= 20; i++) j.append(setting(i));
  assert.ok(j.segments().length > 3, "small segments roll");
  const reader = new JournalReader(j);
  assert.deepEqual((await reader.read(7, 3)).map((r) => r.seq), [7, 8, 9]);
  assert.deepEqual((await reader.read(10, 2)).map((r) => r.seq), [10, 11]);
  assert.deepEqual((await readAll(j, 1)).map((r) => r.seq), Array.from({ length: 20 }, (_, i) => i + 1));
  const dropped = await j.dropThrough(12);
  assert.ok(dropped > 0);
  assert.ok(j.segments()[0]!.lastSeq > 12, "segments with unapplied records stay");
  assert.deepEqual((await readAll(j, 13)).map((r) => r.seq), [13, 14, 15, 16, 17, 18, 19, 20]);
  await j.close();
  // A fresh start after everything was dropped continues after the store's applied sequence.
  const again = await Journal.open({ dir, ...e, minSeq: 20 });
  assert.equal(again.append(setting(21)), 21);
  await again.close();
  await Deno.remove(dir, { recursive: true });
});

Deno.test("journal recovery truncates a torn last record with a log line", async (t) => {
  const cases: [string, (bytes: Uint8Array) => Uint8Array][] = [
    ["cut short", (b) => b.subarray(0, b.length - 5)],
    ["header cut short", (b) => b.subarray(0, b.length - (b.length - lastRecordStart(b)) + 9)],
    ["checksum mismatch in the last record", (b) => flip(b, b.length - 2)],
    ["zero-filled tail", (b) => concat(b, new Uint8Array(64))],
  ];
  for (const [name, damage] of cases) {
    await t.step(name, async () => {
      const dir = await Deno.makeTempDir();
      const e = env();
      const j = await Journal.open({ dir, ...e });
      for (let i = 1; i <= 3; i++) j.append(setting(i));
      await j.close();
      const path = `${dir}/${(await Array.fromAsync(Deno.readDir(dir)))[0]!.name}`;
      await Deno.writeFile(path, damage(await Deno.readFile(path)));
      const again = await Journal.open({ dir, ...e });
      const keys = (await readAll(again)).map((r) => r.key);
      const zero = name === "zero-filled tail";
      assert.deepEqual(keys, zero ? ["k1", "k2", "k3"] : ["k1", "k2"]);
      assert.equal(again.counters.torn_tails_truncated, 1);
      assert.ok(e.logs.history().some((r) => r.msg.includes("truncated a torn record")));
      assert.equal(again.append(setting(9)), zero ? 4 : 3, "the sequence continues after the last intact record");
      await again.close();
      assert.deepEqual((await readAll(await reopen(dir))).map((r) => r.key).at(-1), "k9");
      await Deno.remove(dir, { recursive: true });
    });
  }
});

Deno.test("journal recovery fails closed on damage followed by intact records", async () => {
  const dir = await Deno.makeTempDir();
  const e = env();
  const j = await Journal.open({ dir, ...e });
  for (let i = 1; i <= 3; i++) j.append(setting(i));
  await j.close();
  const path = `${dir}/${(await Array.fromAsync(Deno.readDir(dir)))[0]!.name}`;
  const bytes = await Deno.readFile(path);
  await Deno.writeFile(path, flip(bytes, SEGMENT_HEADER_BYTES + RECORD_HEADER_BYTES + 3));
  await assert.rejects(Journal.open({ dir, ...e }), (error: Error) => {
    assert.match(
      error.message,
      /Cannot recover the journal in ".*": .*\n {2}- ".*\.wal" bytes 16–\d+ \(body checksum mismatch\): sequence 1\n/,
    );
    return true;
  });
  await Deno.remove(dir, { recursive: true });
});

Deno.test("journal cuts a failed write back off the file and keeps going", async () => {
  const dir = await Deno.makeTempDir();
  const e = env();
  const { faults, open: openFile } = faultyJournalFiles();
  faults.partialBytes = 7; // A partial write, then the error.
  const j = await Journal.open({ dir, ...e, openFile });
  j.append(setting(1));
  faults.failNextWrite = true;
  assert.throws(() => j.append(setting(2)), (error: Error & { seq?: number }) => {
    assert.match(error.message, /^Cannot append to the journal in ".*": No space left on device/);
    assert.equal(error.seq, 2);
    return true;
  });
  assert.equal(j.counters.write_failures, 1);
  assert.equal(j.append(setting(3)), 3);
  await j.close();
  assert.deepEqual((await readAll(await reopen(dir))).map((r) => r.key), ["k1", "k3"]);
  await Deno.remove(dir, { recursive: true });
});

Deno.test({
  name: "journal on a full disk gives a clear error and keeps every record written before it",
  // Needs root to mount a tiny tmpfs; the injected-fault test above covers the logic everywhere.
  ignore: !canMount(),
  async fn() {
    const dir = await Deno.makeTempDir();
    const mount = new Deno.Command("mount", { args: ["-t", "tmpfs", "-o", "size=64k", "tmpfs", dir] });
    assert.equal((await mount.output()).code, 0);
    try {
      const e = env();
      const j = await Journal.open({ dir, ...e });
      let written = 0;
      let failure: Error | null = null;
      const big = (i: number): JournalEntry => ({ t: "setting", key: `k${i}`, value: "x".repeat(1000), at: i });
      for (let i = 1; i <= 200 && !failure; i++) {
        try {
          j.append(big(i));
          written = i;
        } catch (error) {
          failure = error as Error;
        }
      }
      assert.ok(failure, "the disk fills up");
      assert.match(failure!.message, /Cannot append to the journal in ".*": .*(No space left|os error 28)/);
      await j.close();
      const again = await reopen(dir);
      assert.equal((await readAll(again)).length, written, "every acknowledged append is intact");
      await again.close();
    } finally {
      await new Deno.Command("umount", { args: [dir] }).output();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

function canMount(): boolean {
  try {
    return Deno.uid() === 0 && Deno.build.os === "linux" && Deno.env.get("CHORUS_NO_MOUNT") === undefined;
  } catch {
    return false;
  }
}

async function reopen(dir: string): Promise<Journal> {
  return await Journal.open({ dir, ...env() });
}

function lastRecordStart(bytes: Uint8Array): number {
  let offset = SEGMENT_HEADER_BYTES;
  let last = offset;
  while (offset < bytes.length) {
    last = offset;
    offset += RECORD_HEADER_BYTES + new DataView(bytes.buffer, bytes.byteOffset + offset + 4, 4).getUint32(0, true);
  }
  return last;
}

function flip(bytes: Uint8Array, at: number): Uint8Array {
  const out = bytes.slice();
  out[at]! ^= 0xff;
  return out;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

Deno.test("journal: a telemetry bundle takes one sequence per batch, across segments and reopens", async () => {
  const dir = await Deno.makeTempDir();
  const e = env();
  const batch = { kind: "touches", room: "r", round: null, user: 1, items: [1], first_at: 0, last_at: 0 } as const;
  const bundle = (n: number): JournalEntry => ({ t: "telemetry.bundle", batches: Array(n).fill(batch) });
  const j = await Journal.open({ dir, ...e, segmentBytes: 300 });
  assert.equal(j.append(setting(1)), 1);
  assert.equal(j.append(bundle(3)), 4, "sequences 2..4");
  const body = JSON.stringify(bundle(2));
  assert.equal(j.append(bundle(2), body), 6, "a body made by the caller is journaled as is");
  assert.equal(j.append(bundle(0)), 7, "an empty bundle still takes one");
  assert.equal(j.append(setting(8)), 8);
  assert.ok(j.segments().length > 1);
  await j.close();
  const again = await Journal.open({ dir, ...e });
  assert.equal(again.lastSeq, 8);
  const records = await new JournalReader(again).read(5, 100);
  assert.deepEqual(records.map((r) => r.seq), [6, 7, 8], "reading from inside a span starts at the record holding it");
  assert.equal(new TextDecoder().decode(records[0]!.body), body);
  assert.deepEqual((await new JournalReader(again).read(1, 100, 1)).map((r) => r.seq), [1], "a byte cap stops early");
  await again.close();
  await Deno.remove(dir, { recursive: true });
});
