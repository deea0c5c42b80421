/**
 * One plugin's child process, seen from the host (spec 3 §4.6 isolation,
 * §8 limits). Calls go one at a time; while the guest runs, a budget of
 * `call_timeout_ms` of its own time counts down -- time spent waiting for a
 * host function (an outbound HTTP request, a database query) is not the
 * guest's and pauses it -- and a wall-clock cap bounds the whole call.
 * Overrunning either kills the process (SIGKILL: a busy loop cannot be
 * interrupted any other way, and `Worker.terminate()` does not stop a busy
 * worker in Deno 2.9.6). The host functions the guest calls are answered by
 * the {@link HostCallHandler}.
 *
 * @module
 */

import type { Clock, TimerHandle } from "../util/clock.ts";
import type { Logger } from "../util/log.ts";
import { forEachLine } from "../util/lines.ts";
import { type ChildToHost, encodeFrame, FrameSplitter } from "./child/wire.ts";
import type { CallLimits, CallOutcome, HostAnswer, HostCallHandler, ProcessSpec } from "./process_types.ts";

/** Lines of the child's stderr logged per process; more are only counted. */
const STDERR_LINES_LOGGED = 50;

interface PendingCall {
  readonly resolve: (outcome: CallOutcome) => void;
  readonly limits: CallLimits;
  guestUsed: number;
  runningSince: number | null;
  startedAt: number;
  timer: TimerHandle | undefined;
}

/** A running child. */
export class PluginProcess {
  readonly #child: Deno.ChildProcess;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #clock: Clock;
  readonly #log: Logger;
  readonly #handler: HostCallHandler;
  readonly #splitter = new FrameSplitter();
  #pending: PendingCall | null = null;
  #ready: ((error: string | null) => void) | null = null;
  #dead: string | null = null;
  #oom = false;
  #stderrLines = 0;
  #used: Readonly<Record<string, readonly string[]>> = {};
  #idle: (() => void)[] = [];
  /** Resolves once the child has exited. */
  readonly exited: Promise<Deno.CommandStatus>;

  private constructor(spec: ProcessSpec, handler: HostCallHandler, clock: Clock, log: Logger) {
    this.#clock = clock;
    this.#log = log;
    this.#handler = handler;
    const stack = Math.max(512, Math.min(7 * 1024, Math.floor(spec.stackBytes / 1024)));
    this.#child = new Deno.Command(spec.deno, {
      args: [
        "run",
        "--no-config",
        "--no-lock",
        "--no-prompt",
        "--no-remote",
        `--v8-flags=--max-old-space-size=${spec.heapMb},--stack-size=${stack}`,
        `--allow-read=${spec.entryDir}`,
        "--allow-env=JCO_DEBUG",
        spec.runner,
        spec.entryDir,
        String(spec.maxPages),
      ],
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
      clearEnv: true,
      env: { ...spec.env },
    }).spawn();
    this.#writer = this.#child.stdin.getWriter();
    this.exited = this.#child.status;
    this.#readStdout();
    this.#readStderr();
  }

  /**
   * Starts a child and waits until the component is instantiated; rejects
   * with the reason when loading fails or takes longer than `readyMs`.
   */
  static async start(
    spec: ProcessSpec,
    handler: HostCallHandler,
    options: { clock: Clock; log: Logger; readyMs: number },
  ): Promise<PluginProcess> {
    const proc = new PluginProcess(spec, handler, options.clock, options.log);
    const { promise, resolve } = Promise.withResolvers<string | null>();
    proc.#ready = resolve;
    const timer = options.clock.setTimeout(
      () => resolve(`it did not load within ${options.readyMs} ms`),
      options.readyMs,
    );
    const problem = await promise;
    options.clock.clearTimeout(timer);
    proc.#ready = null;
    if (problem !== null) {
      await proc.kill();
      throw new Error(problem);
    }
    return proc;
  }

  /** The child's process id. */
  get pid(): number {
    return this.#child.pid;
  }

  /** The host functions the component imports, by interface key (as jco names them). */
  get imports(): Readonly<Record<string, readonly string[]>> {
    return this.#used;
  }

  /** True while a call runs. */
  get busy(): boolean {
    return this.#pending !== null;
  }

  /** Why the process is gone, or null while it runs. */
  get dead(): string | null {
    return this.#dead;
  }

  /** Resolves once no call runs (at once when idle); a running call ends by its answer or its budget. */
  idle(): Promise<void> {
    if (!this.#pending) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  /** Calls an export. One at a time: a second concurrent call is refused at once. */
  call(fn: string, args: readonly unknown[], limits: CallLimits): Promise<CallOutcome> {
    if (this.#dead !== null) return Promise.resolve({ kind: "crash", message: this.#dead });
    if (this.#pending) return Promise.resolve({ kind: "error", message: "the plugin is busy with another call" });
    const { promise, resolve } = Promise.withResolvers<CallOutcome>();
    const now = this.#clock.monotonic();
    this.#pending = { resolve, limits, guestUsed: 0, runningSince: now, startedAt: now, timer: undefined };
    this.#arm();
    this.#send({ t: "call", fn, args }).catch(() => {});
    return promise;
  }

  /** Kills the child (idempotent) and waits for it to exit. */
  async kill(reason = "stopped"): Promise<void> {
    this.#die(reason);
    try {
      this.#child.kill("SIGKILL");
    } catch {
      // Already exited.
    }
    await this.exited.catch(() => {});
  }

  /** Closes the child's stdin (an idle child exits at once); kills it when it is busy. */
  async stop(): Promise<void> {
    if (this.#pending) return await this.kill("stopped");
    this.#die("stopped");
    await this.#writer.close().catch(() => {});
    await this.exited.catch(() => {});
  }

  #arm(): void {
    const call = this.#pending;
    if (!call || call.runningSince === null) return;
    const now = this.#clock.monotonic();
    const guestLeft = call.limits.guestMs - call.guestUsed - (now - call.runningSince);
    const wallLeft = call.limits.wallMs - (now - call.startedAt);
    this.#clock.clearTimeout(call.timer);
    call.timer = this.#clock.setTimeout(() => this.#overrun(), Math.max(0, Math.min(guestLeft, wallLeft)));
  }

  #pause(): void {
    const call = this.#pending;
    if (!call || call.runningSince === null) return;
    call.guestUsed += this.#clock.monotonic() - call.runningSince;
    call.runningSince = null;
    this.#clock.clearTimeout(call.timer);
    // The wall-clock cap still runs while a host function works.
    const wallLeft = call.limits.wallMs - (this.#clock.monotonic() - call.startedAt);
    call.timer = this.#clock.setTimeout(() => this.#overrun(), Math.max(0, wallLeft));
  }

  #resume(): void {
    const call = this.#pending;
    if (!call) return;
    call.runningSince = this.#clock.monotonic();
    this.#arm();
  }

  #overrun(): void {
    const call = this.#pending;
    if (!call) return;
    const wall = this.#clock.monotonic() - call.startedAt;
    const message = wall >= call.limits.wallMs
      ? `the call took longer than ${call.limits.wallMs} ms in all`
      : `the call ran longer than call_timeout_ms (${call.limits.guestMs} ms)`;
    this.#finish({ kind: "timeout", message });
    void this.kill(message);
  }

  #finish(outcome: CallOutcome): void {
    const call = this.#pending;
    if (!call) return;
    this.#pending = null;
    this.#clock.clearTimeout(call.timer);
    call.resolve(outcome);
    const idle = this.#idle;
    this.#idle = [];
    for (const wake of idle) wake();
  }

  #die(reason: string): void {
    if (this.#dead === null) this.#dead = reason;
    this.#ready?.(reason);
    this.#finish({ kind: "crash", message: reason });
  }

  async #send(message: unknown): Promise<void> {
    await this.#writer.write(encodeFrame(message));
  }

  async #readStdout(): Promise<void> {
    try {
      for await (const chunk of this.#child.stdout) {
        for (const message of this.#splitter.push(chunk)) await this.#onMessage(message as ChildToHost);
      }
    } catch (error) {
      this.#log.warn("plugin process broke the pipe protocol; killing it", { error: String(error) });
      this.#child.kill("SIGKILL");
    }
    const status = await this.exited.catch(() => null);
    const how = status?.signal ? `signal ${status.signal}` : `exit code ${status?.code}`;
    this.#die(this.#oom ? `the plugin ran out of memory (${how})` : `the plugin process exited (${how})`);
  }

  async #onMessage(message: ChildToHost): Promise<void> {
    switch (message.t) {
      case "ready":
        this.#used = message.used ?? {};
        this.#ready?.(null);
        return;
      case "fatal":
        this.#ready?.(message.message);
        this.#dead ??= message.message;
        return;
      case "ret":
        this.#finish(
          message.ok ? { kind: "ok", value: message.v } : { kind: message.kind, message: message.message },
        );
        return;
      case "host": {
        this.#pause();
        let answer: HostAnswer;
        try {
          answer = await this.#handler(message.i, message.f, message.a);
        } catch (error) {
          answer = { e: `host function failed: ${error instanceof Error ? error.message : String(error)}` };
        }
        if (this.#dead !== null) return;
        this.#resume();
        try {
          await this.#send({ t: "reply", ...answer });
        } catch (error) {
          // A reply too large to frame: the guest gets an error instead.
          await this.#send({ t: "reply", e: (error as Error).message }).catch(() => {});
        }
        return;
      }
    }
  }

  #readStderr(): Promise<void> {
    // A line that never ends is cut, not buffered without bound.
    return forEachLine(this.#child.stderr, 4096, (line) => this.#stderrLine(line));
  }

  #stderrLine(line: string): void {
    if (/out of memory|heap limit/i.test(line)) this.#oom = true;
    if (this.#stderrLines++ < STDERR_LINES_LOGGED && line.trim()) {
      this.#log.warn("plugin stderr", { line: line.slice(0, 1000) });
    }
  }
}
