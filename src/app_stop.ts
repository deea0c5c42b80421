/**
 * What asks a server process to stop, besides an operator's `exit`: SIGINT
 * and SIGTERM, SIGHUP unless `sighup: ignore` (a closed terminal or a
 * dropped SSH session must not kill the process mid-write: issue 13), and
 * the process that started it going away (`on_orphan`).
 *
 * Orphans: under `deno task start` (or npm, npx) the task runner is the
 * server's parent. When the runner is killed outright, nothing tells the
 * server; it would keep the port and the data directory with nobody to stop
 * it. The server therefore watches its parent's PID (`Deno.ppid`, which
 * needs no permission; `/proc` would need `--allow-all`) and stops
 * gracefully when it changes, i.e. when it has been re-parented to init or a
 * subreaper. `auto` does so only when a task runner started the process
 * (it sets `npm_config_user_agent`): a server started from a shell with
 * `nohup ... &` is meant to outlive that shell.
 *
 * @module
 */

import type { Clock, TimerHandle } from "./util/clock.ts";
import type { Logger } from "./util/log.ts";

/** The signals that may stop the server. */
export type StopSignal = "SIGINT" | "SIGTERM" | "SIGHUP";

/** Subscribing to operating-system signals (the runtime's, or a fake in tests). */
export interface SignalSource {
  add(signal: StopSignal, handler: () => void): void;
  remove(signal: StopSignal, handler: () => void): void;
}

/** The runtime's signals. */
export const processSignals: SignalSource = {
  add: (signal, handler) => Deno.addSignalListener(signal, handler),
  remove: (signal, handler) => Deno.removeSignalListener(signal, handler),
};

/** How often the parent's PID is compared with the one at start. */
export const PARENT_POLL_MS = 1000;

/** True when a task runner (deno task, npm run, npx, pnpm, yarn) started this process: they all set this variable. */
export function startedByTaskRunner(env: { get(name: string): string | undefined }): boolean {
  try {
    return (env.get("npm_config_user_agent") ?? "") !== "";
  } catch {
    return false; // No environment access: assume a direct start.
  }
}

/** Options of {@link StopWatch}. */
export interface StopWatchOptions {
  readonly sighup: "stop" | "ignore";
  readonly onOrphan: "auto" | "stop" | "ignore";
  readonly clock: Clock;
  readonly log: Logger;
  readonly signals?: SignalSource;
  /** The parent's PID now (default `Deno.ppid`). */
  readonly parentPid?: () => number;
  /** Whether a task runner started this process, for `on_orphan: auto` (default: from the environment). */
  readonly taskRunner?: boolean;
  readonly pollMs?: number;
}

/** Watches the signals and the parent process; {@link StopWatch.requested} resolves with the first reason to stop. */
export class StopWatch {
  /** Resolves with the reason of the first stop request (`SIGTERM`, `parent process 123 exited`, ...). */
  readonly requested: Promise<string>;
  readonly #o: StopWatchOptions;
  readonly #signals: SignalSource;
  readonly #handlers: [StopSignal, () => void][] = [];
  readonly #resolve: (reason: string) => void;
  #stopping = false;
  #repeat: (() => void) | null = null;
  #timer: TimerHandle | undefined;
  #closed = false;

  constructor(o: StopWatchOptions) {
    this.#o = o;
    this.#signals = o.signals ?? processSignals;
    const { promise, resolve } = Promise.withResolvers<string>();
    this.requested = promise;
    this.#resolve = resolve;
    const stopping: StopSignal[] = ["SIGINT", "SIGTERM"];
    if (o.sighup === "stop") stopping.push("SIGHUP");
    for (const signal of stopping) this.#listen(signal, () => this.#request(signal));
    if (o.sighup === "ignore") {
      // A listener replaces the default action, which would end the process at once.
      this.#listen("SIGHUP", () => o.log.info("SIGHUP ignored (sighup: ignore)"));
    }
    const taskRunner = o.taskRunner ?? startedByTaskRunner(Deno.env);
    if (o.onOrphan === "stop" || (o.onOrphan === "auto" && taskRunner)) this.#watchParent();
  }

  /** Runs `fn` on every stop signal after the first request (the second Ctrl-C ends the process at once). */
  onRepeat(fn: () => void): void {
    this.#repeat = fn;
  }

  /** Removes the signal listeners and stops watching the parent. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#o.clock.clearTimeout(this.#timer);
    for (const [signal, handler] of this.#handlers) this.#signals.remove(signal, handler);
  }

  #listen(signal: StopSignal, handler: () => void): void {
    try {
      this.#signals.add(signal, handler);
      this.#handlers.push([signal, handler]);
    } catch (error) {
      // Windows knows only SIGINT and SIGBREAK.
      this.#o.log.debug("signal not available", { signal, error: String(error) });
    }
  }

  #request(reason: string): void {
    if (this.#stopping) {
      this.#repeat?.();
      return;
    }
    this.#stopping = true;
    this.#o.clock.clearTimeout(this.#timer);
    this.#resolve(reason);
  }

  #watchParent(): void {
    const parentPid = this.#o.parentPid ?? (() => Deno.ppid);
    const first = parentPid();
    // PID 0: this process is PID 1 of a container; it has no parent to lose.
    if (first === 0) return;
    const poll = () => {
      if (this.#closed || this.#stopping) return;
      const now = parentPid();
      if (now !== first) {
        this.#o.log.warn("the process that started the server has exited; stopping (on_orphan)", {
          parent: first,
          new_parent: now,
        });
        this.#request(`parent process ${first} exited`);
        return;
      }
      this.#timer = this.#o.clock.setTimeout(poll, this.#o.pollMs ?? PARENT_POLL_MS);
    };
    this.#timer = this.#o.clock.setTimeout(poll, this.#o.pollMs ?? PARENT_POLL_MS);
  }
}
