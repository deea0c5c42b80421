import { deepEqual, equal, rejects } from "node:assert/strict";
import { join } from "node:path";
import { DENO_IO } from "./io.ts";
import { OP, UNANSWERED } from "./io_protocol.ts";
import { replayIoSuite } from "./io_suite_test_util.ts";
import { WorkerIo } from "./worker_io.ts";

replayIoSuite("Deno's operations", () => DENO_IO);
replayIoSuite("the file thread", () => new WorkerIo(), (io) => (io as WorkerIo).close());

Deno.test("the file thread starts with the first operation, and a stopped one fails what is asked of it", async () => {
  const dir = await Deno.makeTempDir({ prefix: "replay-io-" });
  const io = new WorkerIo();
  equal(io.running, false, "no thread before any file operation");
  const file = await io.create(join(dir, "x"), new Uint8Array([1]));
  equal(io.running, true);
  equal(io.inFlight, 0);
  io.close();
  equal(io.running, false);
  await rejects(file.write(new Uint8Array([2])), /file thread was stopped/);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("the file thread fails an operation on a file it does not have open", async () => {
  const io = new WorkerIo();
  try {
    await rejects(io.queue(2, 999, 0, new Uint8Array([1]), ""), /file 999 is not open/);
  } finally {
    io.close();
  }
});

Deno.test("operations queued when the file thread is stopped fail and never start another thread", async () => {
  const dir = await Deno.makeTempDir({ prefix: "replay-io-" });
  const io = new WorkerIo();
  const created = io.create(join(dir, "never"), new Uint8Array([1]));
  io.close();
  await rejects(created, /file thread was stopped/);
  // Past the batching delay: the dropped batch was not sent to a new thread.
  await new Promise((resolve) => setTimeout(resolve, 20));
  equal(io.running, false);
  await rejects(Deno.stat(join(dir, "never")), Deno.errors.NotFound);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("appends without an answer keep their order among answered operations and leave nothing waiting", async () => {
  const dir = await Deno.makeTempDir({ prefix: "replay-io-" });
  const io = new WorkerIo();
  try {
    const path = join(dir, "a.bin");
    const file = await io.create(path, new Uint8Array([1]));
    const bytes = new Uint8Array([2, 3]);
    file.append!(bytes);
    bytes.fill(0); // Copied when appended: the caller may reuse its buffer at once.
    equal(io.inFlight, 0, "nothing waits for an append");
    const written = file.write(new Uint8Array([4]));
    file.append!(new Uint8Array([5]));
    const patched = file.writeAt(0, new Uint8Array([9]));
    file.append!(new Uint8Array([6]));
    await Promise.all([written, patched, file.sync()]);
    await file.close();
    deepEqual([...await Deno.readFile(path)], [9, 2, 3, 4, 5, 6]);
  } finally {
    io.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a failed append fails its file's next sync with its error", async () => {
  const dir = await Deno.makeTempDir({ prefix: "replay-io-" });
  const io = new WorkerIo();
  try {
    // File numbers start at 1: this append reaches the thread before the file it names exists, and fails there.
    io.add(UNANSWERED, OP.write, 1, 0, new Uint8Array([7]), "");
    const file = await io.create(join(dir, "b.bin"), new Uint8Array([1]));
    await file.write(new Uint8Array([2])); // The file itself is fine: answered writes succeed.
    await rejects(file.sync(), /file 1 is not open/);
    await rejects(file.sync(), /file 1 is not open/, "the file stays failed");
    await file.close();
    deepEqual([...await Deno.readFile(join(dir, "b.bin"))], [1, 2], "the failed append wrote nothing");
  } finally {
    io.close();
    await Deno.remove(dir, { recursive: true });
  }
});
