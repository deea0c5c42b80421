import { deepEqual, equal } from "node:assert/strict";
import { join } from "node:path";
import { HEADER_BYTES, parseReplay } from "./format.ts";
import { DENO_IO, type ReplayIo } from "./io.ts";
import { WorkerIo } from "./worker_io.ts";
import { ReplayWriter } from "./writer.ts";

const entry = (n: number, size: number) => new Uint8Array(size).fill(n);

for (const [name, make] of [["Deno's operations", () => DENO_IO], ["the file thread", () => new WorkerIo()]] as const) {
  Deno.test(`replay writer on ${name}: chunks, a record-id patch and an fsync give the file every entry in order`, async () => {
    const dir = await Deno.makeTempDir({ prefix: "replay-writer-" });
    const io: ReplayIo = make();
    try {
      const path = join(dir, "5", "7", "1000.phirarec");
      const w = ReplayWriter.deferred([path], { chartId: 7, userId: 5, recordId: 0 }, { chunkBytes: Infinity, io });
      // Appends between writes land in a buffer the file thread copied from: none may overwrite another.
      for (let round = 0; round < 5; round++) {
        for (let k = 0; k < 3; k++) w.append(entry(round * 3 + k, 100 + k));
        const chunk = w.writeChunk()!;
        equal(chunk.bytes, 3 * 4 + 303);
        if (round === 2) void w.setRecordId(42);
        // Waiting leaves the chain idle: the next write goes out at once from the reused buffer.
        if (round % 2) equal(await chunk.written, true);
      }
      equal(await w.syncData(), true);
      await w.close();
      const parsed = parseReplay(await Deno.readFile(path));
      deepEqual(parsed.header, { chartId: 7, userId: 5, recordId: 42 });
      deepEqual(parsed.entries.map((e) => [e[0], e.length]), Array.from({ length: 15 }, (_, i) => [i, 100 + i % 3]));
      deepEqual(w.stats(), { entries: 15, bytes: 15 * 4 + 5 * 303, dropped: 0, error: null });
    } finally {
      if (io instanceof WorkerIo) io.close();
      await Deno.remove(dir, { recursive: true });
    }
  });
}

Deno.test("replay writer on a file thread: a flush costs no waiting, and a failed append shows at the next fsync", async () => {
  const appended: number[][] = [];
  let failing = false;
  const io: ReplayIo = {
    create: () =>
      Promise.resolve({
        write: () => Promise.resolve(),
        append: (bytes: Uint8Array) => void appended.push([...bytes]),
        writeAt: () => Promise.resolve(),
        sync: () => failing ? Promise.reject(new Error("No space left on device")) : Promise.resolve(),
        close: () => Promise.resolve(),
      }),
    touch: () => Promise.resolve(),
    mkdir: () => Promise.resolve(),
    remove: () => Promise.resolve(),
  };
  const w = ReplayWriter.deferred(["x"], { chartId: 1, userId: 2, recordId: 0 }, { chunkBytes: Infinity, io });
  await w.flush(); // The file exists.
  w.append(entry(1, 2));
  const chunk = w.writeChunk()!;
  deepEqual([chunk.offset, chunk.bytes, chunk.written], [HEADER_BYTES, 6, true]);
  deepEqual(appended, [[2, 0, 0, 0, 1, 1]]);
  equal(await w.syncData(), true);
  failing = true;
  w.append(entry(2, 1));
  equal(w.writeChunk()!.written, true);
  equal(await w.syncData(), false);
  equal(w.stats().error, "No space left on device");
  equal(w.append(entry(3, 1)), false, "nothing more is taken after a failure");
  await w.close();
});
