/**
 * `chorus load <scenario> [options]`: opens the target (development upstream,
 * optionally a spawned server), runs one scenario with a progress bar, prints
 * the table and the JSON report, and closes everything -- also on Ctrl-C (a
 * second Ctrl-C kills the spawned server and exits at once).
 *
 * Run directly with `deno run -A src/load/cli.ts <scenario> ...`.
 *
 * @module
 */

import { SystemClock } from "../util/clock.ts";
import { type LoadOptions, loadUsage, parseLoadArgs, UsageError } from "./args.ts";
import { LagMonitor } from "./lag.ts";
import { loadAverage, machineInfo, type ProcSample, ProcWatch, readSystemCpu } from "./proc.ts";
import type { MachineLoad } from "./report.ts";
import { ProgressBar } from "./progress.ts";
import { buildReport, renderReport } from "./report.ts";
import type { RunDeps, RunTarget, ScenarioRun } from "./scenario.ts";
import { runHttp } from "./scenario_http.ts";
import { runLogins } from "./scenario_logins.ts";
import { runRooms } from "./scenario_rooms.ts";
import { runSessions } from "./scenario_sessions.ts";
import { runSse } from "./scenario_sse.ts";
import { type OpenTarget, openTarget } from "./target.ts";

/** Exit codes: 0 run finished without errors, 1 errors were seen or the run failed, 2 usage error. */
const EXIT = { ok: 0, errors: 1, usage: 2, interrupted: 130 } as const;

/** Starts the scenario named in `o` against `target`. */
export function startScenario(o: LoadOptions, target: RunTarget, deps: RunDeps): ScenarioRun {
  switch (o.scenario) {
    case "sessions":
      return runSessions(o, target, deps);
    case "rooms":
      return runRooms(o, target, deps);
    case "logins":
      return runLogins(o, target, deps);
    case "sse":
      return runSse(o, { ...target, httpPort: target.httpPort ?? o.httpPort }, deps);
    case "http":
      return runHttp(o, { ...target, httpPort: target.httpPort ?? o.httpPort }, deps);
  }
}

interface LoadMark {
  sys: { busyMs: number } | null;
  load: number[] | null;
  server: ProcSample | null;
  self: ProcSample | null;
}

/** CPU used by processes other than the server and the generator during the run, % of one core. */
function contention(a: LoadMark, b: LoadMark, wallMs: number): MachineLoad {
  let other: number | null = null;
  if (a.sys && b.sys && a.self && b.self && wallMs > 0) {
    let busy = b.sys.busyMs - a.sys.busyMs - (b.self.cpuMs - a.self.cpuMs);
    if (a.server && b.server) busy -= b.server.cpuMs - a.server.cpuMs;
    other = Math.max(0, Math.round(busy / wallMs * 1000) / 10);
  }
  return { loadBefore: a.load, loadAfter: b.load, otherCpuPercent: other };
}

function say(line: string): void {
  console.error(line);
}

/** Runs the load generator with command-line `args`; resolves with the exit code. */
export async function runLoad(args: string[]): Promise<number> {
  let options: LoadOptions | null;
  try {
    options = parseLoadArgs(args);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    say(`${error.message}\n\n${loadUsage()}`);
    return EXIT.usage;
  }
  if (!options) {
    console.log(loadUsage());
    return EXIT.ok;
  }
  const o = options;
  const stop = new AbortController();
  let opened: OpenTarget | null = null;
  let signals = 0;
  const onSignal = () => {
    if (++signals === 1) {
      say("\nstopping: closing clients and reporting (again to kill)");
      stop.abort();
    } else {
      opened?.kill();
      Deno.exit(EXIT.interrupted);
    }
  };
  const watched: Deno.Signal[] = ["SIGINT", "SIGTERM"];
  for (const s of watched) Deno.addSignalListener(s, onSignal);
  const startedAt = new Date();
  const t0 = performance.now();
  try {
    opened = await openTarget(o);
    for (const note of opened.notes) say(note);
    const target = opened.target;
    const server = target.pid !== null ? new ProcWatch(target.pid) : null;
    server?.start(1000);
    const self = new ProcWatch("self");
    const lag = new LagMonitor();
    lag.start();
    const before = { sys: readSystemCpu(), load: loadAverage(), server: server?.sample() ?? null, self: self.sample() };
    const w0 = performance.now();
    const run = startScenario(o, target, { clock: new SystemClock(), signal: stop.signal, server, self });
    const bar = o.progress ? new ProgressBar(() => run.status()) : null;
    bar?.start();
    let result;
    try {
      result = await run.result;
    } finally {
      bar?.stop();
      lag.stop();
      server?.stop();
    }
    const after = { sys: readSystemCpu(), load: loadAverage(), server: server?.sample() ?? null, self: self.sample() };
    const machineLoad = contention(before, after, performance.now() - w0);
    const report = buildReport({
      options: o,
      startedAt,
      durationMs: performance.now() - t0,
      interrupted: stop.signal.aborted,
      machine: machineInfo(),
      target: { ...target, spawned: opened.spawned, upstream: opened.upstreamUrl },
      generatorLag: lag.lag.summary(),
      machineLoad,
    }, result);
    console.log(renderReport(report));
    const json = JSON.stringify(report, null, 2);
    if (o.json === null || o.json === "-") console.log(`\nJSON report:\n${json}`);
    else {
      await Deno.writeTextFile(o.json, json + "\n");
      say(`JSON report written to ${o.json}`);
    }
    return report.errors.total ? EXIT.errors : EXIT.ok;
  } catch (error) {
    say(`load run failed: ${error instanceof Error ? error.message : String(error)}`);
    return EXIT.errors;
  } finally {
    for (const line of await opened?.close() ?? []) say(line);
    for (const s of watched) Deno.removeSignalListener(s, onSignal);
  }
}

if (import.meta.main) Deno.exit(await runLoad(Deno.args));
