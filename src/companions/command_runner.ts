/**
 * Runs one program for the `command` service: no shell, no stdin, output
 * kept up to a cap (the rest is read and dropped so the program never
 * blocks on a full pipe), a time limit on the injected clock (SIGTERM,
 * then SIGKILL after a grace). A script that leaves a daemon holding its
 * output open (`nohup server &`) does not hang the request: once the
 * program exits, its output is waited for only briefly.
 *
 * @module
 */

import type { Clock } from "../util/clock.ts";

/** Limits of one run. */
export interface RunLimits {
  readonly cwd: string;
  readonly timeoutMs: number;
  readonly maxOutputBytes: number;
  readonly clock: Clock;
}

/** What a run produced. */
export interface RunResult {
  /** Exit code, or null when the program was killed by a signal. */
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** True when output beyond the cap was dropped. */
  readonly truncated: boolean;
  readonly timedOut: boolean;
  readonly durationMs: number;
}

/** The program could not be started; `reason` says why in words for the page. */
export class RunError extends Error {
  override readonly name = "RunError";
}

/** Grace between SIGTERM and SIGKILL. */
const KILL_GRACE_MS = 2000;

/** How long output is waited for after the program exited. */
const DRAIN_AFTER_EXIT_MS = 1000;

async function collect(stream: ReadableStream<Uint8Array>, cap: number, stop: Promise<void>) {
  const reader = stream.getReader();
  const kept: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  const done = stop.then(() => reader.cancel().catch(() => {}));
  try {
    for (;;) {
      const { value, done: end } = await reader.read();
      if (end) break;
      const room = cap - size;
      if (room > 0) kept.push(value.byteLength > room ? value.slice(0, room) : value);
      if (value.byteLength > room) truncated = true;
      size += Math.min(value.byteLength, Math.max(room, 0));
    }
  } catch {
    // Cancelled after the program exited: keep what was read.
  }
  void done;
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const k of kept) {
    bytes.set(k, at);
    at += k.byteLength;
  }
  return { text: new TextDecoder().decode(bytes), truncated };
}

/** Runs `argv` within `limits`. Throws {@link RunError} when it cannot start. */
export async function runProgram(argv: readonly string[], limits: RunLimits): Promise<RunResult> {
  const [program, ...args] = argv;
  if (!program) throw new RunError("no program given");
  const started = limits.clock.monotonic();
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command(program, {
      args,
      cwd: limits.cwd,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) throw new RunError(`program not found: ${program}`);
    if (error instanceof Deno.errors.NotCapable || error instanceof Deno.errors.PermissionDenied) {
      throw new RunError(
        `this process may not run ${program} (grant it with --allow-run=${program} or use an allowed program)`,
      );
    }
    throw new RunError(error instanceof Error ? error.message : String(error));
  }
  let timedOut = false;
  const kill = (signal: Deno.Signal) => {
    try {
      child.kill(signal);
    } catch {
      // Already gone.
    }
  };
  let killTimer = limits.clock.setTimeout(() => {
    timedOut = true;
    kill("SIGTERM");
    killTimer = limits.clock.setTimeout(() => kill("SIGKILL"), KILL_GRACE_MS);
  }, limits.timeoutMs);
  const { promise: drained, resolve: stopDraining } = Promise.withResolvers<void>();
  const out = collect(child.stdout, limits.maxOutputBytes, drained);
  const err = collect(child.stderr, limits.maxOutputBytes, drained);
  const status = await child.status;
  limits.clock.clearTimeout(killTimer);
  const drainTimer = limits.clock.setTimeout(stopDraining, DRAIN_AFTER_EXIT_MS);
  const [stdout, stderr] = await Promise.all([out, err]);
  limits.clock.clearTimeout(drainTimer);
  stopDraining();
  return {
    code: status.signal === null ? status.code : null,
    stdout: stdout.text,
    stderr: stderr.text,
    truncated: stdout.truncated || stderr.truncated,
    timedOut,
    durationMs: Math.round(limits.clock.monotonic() - started),
  };
}
