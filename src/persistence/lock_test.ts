import assert from "node:assert/strict";
import { LogHub } from "../util/log.ts";
import { DataDirLock, LOCK_FILE } from "./lock.ts";

const quiet = () => {
  const logs = new LogHub({ level: "debug", sink: () => {} });
  return { logs, log: logs.logger() };
};

const HOLDER = new URL("./lock_holder_test_util.ts", import.meta.url).pathname;

/** A separate process holding the lock of `dir` (no `-A`: the permissions of `deno task start`, file and system). */
async function holder(dir: string) {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-read", "--allow-write", "--allow-sys", HOLDER, dir],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const first = await reader.read();
  reader.releaseLock();
  if (first.value?.trim() !== "held") {
    const err = await new Response(child.stderr).text();
    throw new Error(`the lock holder did not start: ${first.value ?? ""}${err}`);
  }
  return child;
}

Deno.test("data dir lock refuses a second owner in this process, naming the directory and the PID", async () => {
  const dir = await Deno.makeTempDir();
  const { log } = quiet();
  const lock = DataDirLock.acquire(dir, log, Date.now());
  assert.equal(JSON.parse(await Deno.readTextFile(`${dir}/${LOCK_FILE}`)).pid, Deno.pid);
  assert.throws(() => DataDirLock.acquire(dir, log, Date.now()), (error: Error & { code?: string }) => {
    assert.equal(error.code, "locked");
    assert.ok(
      error.message.includes(`Cannot use data_dir "${dir}": it is in use by process ${Deno.pid} (this process)`),
      error.message,
    );
    return true;
  });
  lock.release();
  lock.release(); // Twice is harmless.
  await assert.rejects(Deno.stat(`${dir}/${LOCK_FILE}`), Deno.errors.NotFound, "a clean release removes the file");
  DataDirLock.acquire(dir, log, Date.now()).release();
  await Deno.remove(dir, { recursive: true });
});

Deno.test("data dir lock: a live owner process is refused; once SIGKILLed its lock is free at once, reaped or not", async () => {
  const dir = await Deno.makeTempDir();
  const { log, logs } = quiet();
  const child = await holder(dir);
  try {
    assert.throws(
      () => DataDirLock.acquire(dir, log, Date.now()),
      new RegExp(`in use by process ${child.pid} since `),
    );
    child.kill("SIGKILL");
    // Not reaped yet (its status is not awaited): the kernel drops its file lock when it dies, zombie or not.
    // Wait for that with a blocking lock on the same file instead of a sleep.
    const probe = await Deno.open(`${dir}/${LOCK_FILE}`, { read: true });
    await probe.lock(true);
    probe.close();
    const lock = DataDirLock.acquire(dir, log, Date.now());
    assert.equal(lock.info.pid, Deno.pid);
    const line = logs.history().find((r) => r.msg === "taking over a stale data_dir lock");
    assert.equal(line?.fields.stale_pid, child.pid, "the dead owner is named");
    assert.equal(JSON.parse(await Deno.readTextFile(`${dir}/${LOCK_FILE}`)).pid, Deno.pid, "the file names us now");
    lock.release();
  } finally {
    try {
      child.kill("SIGKILL");
    } catch {
      // Already dead.
    }
    await child.status;
    await child.stderr.cancel();
    await child.stdout.cancel().catch(() => {});
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("data dir lock: a file left behind decides nothing, whatever PID, host or content it names", async (t) => {
  const cases: [string, string][] = [
    ["this process's own PID (a container restarted as PID 1)", JSON.stringify({ pid: Deno.pid, host: "x", at: 1 })],
    ["PID 1, alive", JSON.stringify({ pid: 1, host: Deno.hostname(), at: 1 })],
    ["another host", JSON.stringify({ pid: 4242, host: "elsewhere", at: 1 })],
    [
      "an old format with start time and boot id",
      JSON.stringify({ pid: 1, host: "h", start: null, boot: null, at: 1 }),
    ],
  ];
  for (const [what, text] of cases) {
    await t.step(what, async () => {
      const dir = await Deno.makeTempDir();
      const { log, logs } = quiet();
      await Deno.writeTextFile(`${dir}/${LOCK_FILE}`, text);
      const lock = DataDirLock.acquire(dir, log, Date.now());
      const line = logs.history().find((r) => r.msg === "taking over a stale data_dir lock");
      assert.equal(line?.fields.stale_pid, JSON.parse(text).pid);
      lock.release();
      await Deno.remove(dir, { recursive: true });
    });
  }
  await t.step("empty or torn: taken over without naming anyone", async () => {
    const dir = await Deno.makeTempDir();
    const { log, logs } = quiet();
    await Deno.writeTextFile(`${dir}/${LOCK_FILE}`, '{"pid": 12');
    DataDirLock.acquire(dir, log, Date.now()).release();
    assert.equal(logs.history().filter((r) => r.level === "warn").length, 0);
    await Deno.remove(dir, { recursive: true });
  });
});

Deno.test("data dir lock release leaves alone a lock file that is no longer its own", async () => {
  const dir = await Deno.makeTempDir();
  const { log } = quiet();
  const lock = DataDirLock.acquire(dir, log, Date.now());
  // Someone deleted the file by hand and another file took its place.
  await Deno.remove(`${dir}/${LOCK_FILE}`);
  await Deno.writeTextFile(`${dir}/${LOCK_FILE}`, "someone else's\n");
  lock.release();
  assert.equal(await Deno.readTextFile(`${dir}/${LOCK_FILE}`), "someone else's\n");
  await Deno.remove(dir, { recursive: true });
});

Deno.test("data dir lock: an unusable path is a data_dir error, not a lock conflict", async () => {
  const dir = await Deno.makeTempDir();
  const { log } = quiet();
  assert.throws(() => DataDirLock.acquire(`${dir}/missing`, log, Date.now()), (error: Error & { code?: string }) => {
    assert.equal(error.code, "data_dir");
    assert.match(error.message, /^Cannot lock data_dir ".*\/missing": /);
    return true;
  });
  await Deno.remove(dir, { recursive: true });
});
