import { equal, rejects } from "node:assert/strict";
import { join } from "node:path";
import { DENO_IO } from "./io.ts";
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
