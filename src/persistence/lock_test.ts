import assert from "node:assert/strict";
import { LogHub } from "../util/log.ts";
import { DataDirLock, LOCK_FILE } from "./lock.ts";

const quiet = () => {
  const logs = new LogHub({ level: "debug", sink: () => {} });
  return { logs, log: logs.logger() };
};

Deno.test("data dir lock refuses a second owner, naming the directory and the PID", async () => {
  const dir = await Deno.makeTempDir();
  const { log } = quiet();
  const lock = DataDirLock.acquire(dir, log, Date.now());
  assert.equal(JSON.parse(await Deno.readTextFile(`${dir}/${LOCK_FILE}`)).pid, Deno.pid);
  assert.throws(() => DataDirLock.acquire(dir, log, Date.now()), (error: Error & { code?: string }) => {
    assert.equal(error.code, "locked");
    assert.ok(
      error.message.includes(`Cannot use data_dir "${dir}": it is in use by process ${Deno.pid} (this process)`),
    );
    return true;
  });
  lock.release();
  await assert.rejects(Deno.stat(`${dir}/${LOCK_FILE}`), Deno.errors.NotFound);
  DataDirLock.acquire(dir, log, Date.now()).release();
  await Deno.remove(dir, { recursive: true });
});

Deno.test("data dir lock takes over a stale lock of a dead process with a log line", async () => {
  const dir = await Deno.makeTempDir();
  const { log, logs } = quiet();
  // A child that exits at once leaves a PID nobody runs.
  const child = await new Deno.Command(Deno.execPath(), { args: ["eval", "0"], stdout: "null", stderr: "null" })
    .spawn();
  await child.status;
  const stale = { pid: child.pid, host: Deno.hostname(), start: "1", at: 1 };
  await Deno.writeTextFile(`${dir}/${LOCK_FILE}`, JSON.stringify(stale));
  const lock = DataDirLock.acquire(dir, log, Date.now());
  assert.equal(lock.info.pid, Deno.pid);
  const line = logs.history().find((r) => r.msg === "taking over a stale data_dir lock");
  assert.equal(line?.fields.stale_pid, child.pid);
  lock.release();
  await Deno.remove(dir, { recursive: true });
});

Deno.test("data dir lock treats a live PID with another start time as stale (PID reuse)", async () => {
  const dir = await Deno.makeTempDir();
  const { log } = quiet();
  // PID 1 is alive, but it did not start at tick 1, so the lock is not its.
  await Deno.writeTextFile(`${dir}/${LOCK_FILE}`, JSON.stringify({ pid: 1, host: Deno.hostname(), start: "1", at: 1 }));
  DataDirLock.acquire(dir, log, Date.now()).release();
  await Deno.remove(dir, { recursive: true });
});

Deno.test("data dir lock refuses a lock held on another host", async () => {
  const dir = await Deno.makeTempDir();
  const { log } = quiet();
  await Deno.writeTextFile(`${dir}/${LOCK_FILE}`, JSON.stringify({ pid: 4242, host: "elsewhere", start: null, at: 1 }));
  assert.throws(() => DataDirLock.acquire(dir, log, Date.now()), /in use by process 4242 on host "elsewhere"/);
  await Deno.remove(dir, { recursive: true });
});
