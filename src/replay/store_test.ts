import { deepEqual, equal, ok, rejects, throws } from "node:assert/strict";
import { join } from "node:path";
import { parseReplay } from "./format.ts";
import { ReplayStore } from "./store.ts";
import { ReplayWriter } from "./writer.ts";
import { listReplaysSync, removeReplaySync } from "./store_sync.ts";

async function withStore(fn: (store: ReplayStore, dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "replay_store_" });
  try {
    await fn(new ReplayStore(join(dir, "record")), dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("replay store writes, patches, lists, opens and deletes a user's file", () =>
  withStore(async (store) => {
    const { writer, timestamp } = await store.create({ chartId: 42, userId: 100, recordId: 0 }, 1_700_000_000_000);
    equal(timestamp, 1_700_000_000_000);
    equal(writer.path, store.pathOf(100, 42, timestamp));
    ok(writer.path.endsWith("record/100/42/1700000000000.phirarec"));
    writer.append(Uint8Array.of(5, 1, 2));
    await writer.setRecordId(777);
    writer.append(Uint8Array.of(6, 3));
    await writer.close();
    deepEqual(writer.stats(), { entries: 2, bytes: 13, dropped: 0, error: null });
    const parsed = parseReplay(await Deno.readFile(writer.path));
    deepEqual(parsed.header, { chartId: 42, userId: 100, recordId: 777 });
    deepEqual(parsed.entries.map((e) => [...e]), [[5, 1, 2], [6, 3]]);

    deepEqual(await store.list(100), [{
      chartId: 42,
      replays: [{ chartId: 42, timestamp, recordId: 777, size: 14 + 13 }],
    }]);
    deepEqual(await store.list(101), []);
    equal(await store.open(101, 42, timestamp), null, "someone else's id finds nothing");
    const opened = await store.open(100, 42, timestamp);
    ok(opened);
    equal(opened.size, 27);
    opened.file.close();
    equal(await store.remove(100, 42, timestamp), true);
    equal(await store.remove(100, 42, timestamp), false);
    deepEqual(await store.list(100), []);
  }));

Deno.test("replay store takes the next millisecond instead of overwriting", () =>
  withStore(async (store) => {
    const first = await store.create({ chartId: 1, userId: 2, recordId: 0 }, 5000);
    const second = await store.create({ chartId: 1, userId: 2, recordId: 0 }, 5000);
    equal(second.timestamp, 5001);
    await first.writer.close();
    await second.writer.close();
  }));

Deno.test("replay store refuses ids that are not non-negative integers", () =>
  withStore(async (store) => {
    throws(() => store.pathOf(-1, 1, 1), RangeError);
    throws(() => store.pathOf(1, 1.5, 1), RangeError);
    throws(() => store.pathOf(1, 1, Number.NaN), RangeError);
    equal(await store.open(-5, 1, 1), null);
    await rejects(store.create({ chartId: 1, userId: 1, recordId: 0 }, -1), RangeError);
  }));

Deno.test("replay store sweep removes files older than the cutoff and empty folders", () =>
  withStore(async (store, dir) => {
    for (const ts of [1000, 2000, 3000]) {
      await (await store.create({ chartId: 9, userId: 3, recordId: 0 }, ts)).writer.close();
    }
    await (await store.create({ chartId: 8, userId: 4, recordId: 0 }, 500)).writer.close();
    await Deno.writeTextFile(join(dir, "record", "3", "9", "notes.txt"), "kept");
    deepEqual((await store.sweep(2500)).sort(), ["3/9/1000.phirarec", "3/9/2000.phirarec", "4/8/500.phirarec"]);
    deepEqual((await store.list(3))[0]?.replays.map((r) => r.timestamp), [3000]);
    deepEqual(await store.list(4), []);
    equal(await Deno.stat(join(dir, "record", "4")).then(() => true, () => false), false);
  }));

Deno.test("replay writer drops entries beyond its pending limit and counts them", () =>
  withStore(async (store) => {
    const { writer } = await store.create({ chartId: 1, userId: 1, recordId: 0 }, 1, {
      chunkBytes: 1 << 20,
      maxPendingBytes: 20,
    });
    equal(writer.append(new Uint8Array(10)), true);
    equal(writer.append(new Uint8Array(10)), false);
    await writer.close();
    equal(writer.append(new Uint8Array(1)), false);
    deepEqual(writer.stats(), { entries: 1, bytes: 14, dropped: 2, error: null });
  }));

Deno.test("replay store: the synchronous listing and removal give the same results", () =>
  withStore(async (store) => {
    const { writer, timestamp } = await store.create({ chartId: 3, userId: 9, recordId: 0 }, 42);
    writer.append(Uint8Array.of(1));
    await writer.setRecordId(5);
    await writer.close();
    deepEqual(listReplaysSync(store, 9), await store.list(9));
    deepEqual(listReplaysSync(store, -1), []);
    equal(removeReplaySync(store, 9, 3, timestamp), true);
    equal(removeReplaySync(store, 9, 3, timestamp), false);
    deepEqual(listReplaysSync(store, 9), []);
  }));

Deno.test("replay writer: chunks get consecutive ranges at once; syncData reports whether everything was written", () =>
  withStore(async (store, dir) => {
    const { writer } = await store.create({ chartId: 2, userId: 5, recordId: 0 }, 10, { chunkBytes: Infinity });
    equal(writer.writeChunk(), null, "nothing buffered");
    writer.append(Uint8Array.of(1, 2, 3));
    const a = writer.writeChunk()!;
    writer.append(Uint8Array.of(4));
    const b = writer.writeChunk()!;
    deepEqual([a.offset, a.bytes, b.offset, b.bytes], [14, 7, 21, 5]);
    deepEqual([await a.written, await b.written, await writer.syncData()], [true, true, true]);
    equal(await writer.syncData(), true, "nothing written since: no second fsync, still a success");
    deepEqual(parseReplay(await Deno.readFile(join(dir, "record", "5", "2", "10.phirarec"))).entries, [
      Uint8Array.of(1, 2, 3),
      Uint8Array.of(4),
    ]);
    await writer.close();
    // A file that cannot be created: writes and the fsync report failure, and entries are dropped from then on.
    await Deno.writeTextFile(join(dir, "record", "6"), "not a folder");
    const broken = ReplayWriter.deferred([join(dir, "record", "6", "2", "1.phirarec")], {
      chartId: 2,
      userId: 6,
      recordId: 0,
    }, { chunkBytes: Infinity });
    broken.append(Uint8Array.of(9));
    const c = broken.writeChunk()!;
    deepEqual([await c.written, await broken.syncData()], [false, false]);
    equal(broken.append(Uint8Array.of(9)), false);
    ok(broken.stats().error !== null);
    await broken.close();
  }));
