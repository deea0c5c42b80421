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

Deno.test("data dir lock takes over a lock with this process's PID but another start time (restart as PID 1)", async () => {
  const dir = await Deno.makeTempDir();
  const { log, logs } = quiet();
  // A crashed earlier run that had the same PID and hostname (a container restarted: PID 1 again).
  const stale = { pid: Deno.pid, host: Deno.hostname(), start: "1", at: 1 };
  await Deno.writeTextFile(`${dir}/${LOCK_FILE}`, JSON.stringify(stale));
  const lock = DataDirLock.acquire(dir, log, Date.now());
  assert.equal(lock.info.pid, Deno.pid);
  assert.notEqual(lock.info.start, "1");
  const line = logs.history().find((r) => r.msg === "taking over a stale data_dir lock");
  assert.equal(line?.fields.stale_pid, Deno.pid);
  const written = JSON.parse(await Deno.readTextFile(`${dir}/${LOCK_FILE}`));
  assert.equal(written.start, lock.info.start, "the lock file now holds this run's start time");
  // The lock this process holds now still refuses a second owner in the same process.
  assert.throws(() => DataDirLock.acquire(dir, log, Date.now()), /in use by process \d+ \(this process\)/);
  lock.release();
  await Deno.remove(dir, { recursive: true });
});

Deno.test("data dir lock treats a lock written before the last reboot as stale", async () => {
  const dir = await Deno.makeTempDir();
  const { log } = quiet();
  const boot = await Deno.readTextFile("/proc/sys/kernel/random/boot_id").then((s) => s.trim(), () => null);
  if (boot === null) return; // No boot id on this system: the start time alone decides.
  // PID 1 is alive and its start time matches, but the lock was written in another boot.
  const start = (await Deno.readTextFile("/proc/1/stat")).split(") ")[1]!.split(" ")[19]!;
  const other = { pid: 1, host: Deno.hostname(), start, boot: "00000000-0000-0000-0000-000000000000", at: 1 };
  await Deno.writeTextFile(`${dir}/${LOCK_FILE}`, JSON.stringify(other));
  DataDirLock.acquire(dir, log, Date.now()).release();
  // The same lock in this boot belongs to a live process: refused.
  await Deno.writeTextFile(`${dir}/${LOCK_FILE}`, JSON.stringify({ ...other, boot }));
  assert.throws(() => DataDirLock.acquire(dir, log, Date.now()), /in use by process 1 /);
  await Deno.remove(dir, { recursive: true });
});
