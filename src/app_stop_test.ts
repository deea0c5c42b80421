import assert from "node:assert/strict";
import { PARENT_POLL_MS, type SignalSource, startedByTaskRunner, type StopSignal, StopWatch } from "./app_stop.ts";
import { ManualClock } from "./util/clock.ts";
import { LogHub } from "./util/log.ts";

/** Signals raised by hand. */
class FakeSignals implements SignalSource {
  readonly handlers = new Map<StopSignal, Set<() => void>>();
  add(signal: StopSignal, handler: () => void): void {
    const set = this.handlers.get(signal) ?? new Set();
    set.add(handler);
    this.handlers.set(signal, set);
  }
  remove(signal: StopSignal, handler: () => void): void {
    this.handlers.get(signal)?.delete(handler);
  }
  raise(signal: StopSignal): void {
    for (const h of this.handlers.get(signal) ?? []) h();
  }
  get count(): number {
    return [...this.handlers.values()].reduce((n, s) => n + s.size, 0);
  }
}

function setup(o: { sighup?: "stop" | "ignore"; onOrphan?: "auto" | "stop" | "ignore"; taskRunner?: boolean }) {
  const clock = new ManualClock();
  const signals = new FakeSignals();
  const logs = new LogHub({ level: "debug", sink: () => {} });
  let ppid = 4321;
  const watch = new StopWatch({
    sighup: o.sighup ?? "stop",
    onOrphan: o.onOrphan ?? "auto",
    taskRunner: o.taskRunner ?? false,
    clock,
    log: logs.logger(),
    signals,
    parentPid: () => ppid,
  });
  let settled: string | null = null;
  watch.requested.then((r) => settled = r);
  const flush = () => new Promise((r) => setTimeout(r, 0));
  return { clock, signals, logs, watch, setParent: (p: number) => ppid = p, settled: () => settled, flush };
}

Deno.test("stop watch: SIGINT, SIGTERM and SIGHUP stop gracefully; a second signal is the repeat hook", async (t) => {
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    await t.step(signal, async () => {
      const s = setup({});
      let repeats = 0;
      s.watch.onRepeat(() => repeats++);
      s.signals.raise(signal);
      assert.equal(await s.watch.requested, signal);
      assert.equal(repeats, 0);
      s.signals.raise("SIGTERM");
      s.signals.raise(signal);
      assert.equal(repeats, 2, "each later signal calls the hook (exit at once)");
      s.watch.close();
      assert.equal(s.signals.count, 0, "close removes every listener");
    });
  }
});

Deno.test("stop watch: sighup ignore keeps running and logs it, SIGTERM still stops", async () => {
  const s = setup({ sighup: "ignore" });
  s.signals.raise("SIGHUP");
  await s.flush();
  assert.equal(s.settled(), null);
  assert.ok(s.logs.history().some((r) => r.msg === "SIGHUP ignored (sighup: ignore)"));
  assert.equal(s.signals.handlers.get("SIGHUP")?.size, 1, "a listener replaces the default action (death)");
  s.signals.raise("SIGTERM");
  assert.equal(await s.watch.requested, "SIGTERM");
  s.watch.close();
});

Deno.test("stop watch: started by a task runner, a new parent PID (orphaned) stops gracefully", async () => {
  const s = setup({ taskRunner: true });
  assert.equal(s.clock.pending, 1, "the parent is polled");
  s.clock.advance(PARENT_POLL_MS * 3);
  await s.flush();
  assert.equal(s.settled(), null, "same parent: keeps running");
  s.setParent(1);
  s.clock.advance(PARENT_POLL_MS);
  assert.equal(await s.watch.requested, "parent process 4321 exited");
  const line = s.logs.history().find((r) => r.level === "warn");
  assert.deepEqual(line?.fields, { parent: 4321, new_parent: 1 });
  assert.equal(s.clock.pending, 0, "polling ends");
  s.watch.close();
});

Deno.test("stop watch: on_orphan decides who watches the parent", async (t) => {
  const cases: [string, Parameters<typeof setup>[0], boolean][] = [
    ["auto, started directly (nohup … &): not watched", { onOrphan: "auto", taskRunner: false }, false],
    ["auto, started by a task runner: watched", { onOrphan: "auto", taskRunner: true }, true],
    ["stop: always watched", { onOrphan: "stop", taskRunner: false }, true],
    ["ignore: never watched", { onOrphan: "ignore", taskRunner: true }, false],
  ];
  for (const [name, o, watched] of cases) {
    await t.step(name, async () => {
      const s = setup(o);
      s.setParent(1);
      s.clock.advance(PARENT_POLL_MS);
      await s.flush();
      assert.equal(s.settled() !== null, watched);
      s.watch.close();
      assert.equal(s.clock.pending, 0);
    });
  }
  await t.step("PID 1 of a container (parent 0): nothing to watch", () => {
    const clock = new ManualClock();
    const logs = new LogHub({ level: "debug", sink: () => {} });
    const w = new StopWatch({
      sighup: "stop",
      onOrphan: "stop",
      clock,
      log: logs.logger(),
      signals: new FakeSignals(),
      parentPid: () => 0,
    });
    assert.equal(clock.pending, 0);
    w.close();
  });
});

Deno.test("startedByTaskRunner reads npm_config_user_agent, which deno task, npm and npx set", () => {
  const env = (v: Record<string, string>) => ({ get: (k: string) => v[k] });
  assert.equal(startedByTaskRunner(env({ npm_config_user_agent: "deno/2.9.6 npm/? deno/2.9.6 linux x86_64" })), true);
  assert.equal(startedByTaskRunner(env({ npm_config_user_agent: "npm/11.19.1 node/v20.20.2 linux x64" })), true);
  assert.equal(startedByTaskRunner(env({})), false);
  assert.equal(
    startedByTaskRunner({
      get: () => {
        throw new Deno.errors.NotCapable("env");
      },
    }),
    false,
  );
});
