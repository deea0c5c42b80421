/**
 * One plugin at run time (spec 3 §3.3, §4.6, §8): its state, its child
 * process and the calls into it. Calls run one at a time: requests (HTTP
 * routes, SSE translation, `plugin.call`) first, then events and
 * notifications (timers, sockets) in arrival order; each holds one of the
 * `max_event_concurrency` slots while it runs. A call that overruns its
 * budget, traps or loses its process quarantines the plugin (state Error,
 * with the reason): the process is gone and everything waiting fails. A
 * call from inside another plugin's call (`plugin.call` through `api-call`)
 * runs at once under the caller's slot, or fails at once when the target is
 * busy, so plugins calling each other cannot deadlock.
 *
 * Over 300 lines on purpose: the call queue, the state transitions and the
 * quarantine decide together what may enter the plugin; one class keeps
 * that rule in one place.
 *
 * @module
 */

import type { Clock, TimerHandle } from "../util/clock.ts";
import type { Logger } from "../util/log.ts";
import { readApiResult, toJsonValue } from "./json_value.ts";
import type { PluginProcess } from "./process.ts";
import type { CallLimits, CallOutcome } from "./process_types.ts";
import type { Slots } from "./slots.ts";
import { nextState, type PluginState, type PluginTransition, STATE_LABELS } from "./state.ts";

/** Time limits (from `wasm_runtime`). */
export interface RuntimeLimits {
  /** `call_timeout_ms`. */
  readonly callMs: number;
  /** `init_timeout_ms`. */
  readonly initMs: number;
  /** Extra wall-clock time a call may spend in host functions (HTTP, database). */
  readonly hostMs: number;
}

/** Requests waiting per plugin before new ones are refused. */
export const MAX_WAITING_REQUESTS = 64;
/** Notifications (timers, sockets) waiting per plugin before new ones are dropped. */
export const MAX_WAITING_NOTIFICATIONS = 1024;

/** How a request to a plugin ended. */
export type RequestOutcome =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly error: string; readonly unavailable?: boolean };

/** Counters shown by `plugin info`. */
export interface RuntimeCounters {
  events_delivered: number;
  events_failed: number;
  events_dropped: number;
  requests: number;
  requests_failed: number;
  notifications: number;
  notifications_dropped: number;
  capability_refusals: number;
  quarantines: number;
}

interface Job {
  readonly kind: "request" | "event" | "notify";
  readonly run: () => Promise<void>;
  readonly fail: (error: string) => void;
}

/** A state change, for the host (routes, feeds) and the log. */
export interface StateChange {
  readonly from: PluginState | null;
  readonly to: PluginState | "removed";
  readonly event: PluginTransition;
  readonly reason: string | null;
}

/** One plugin's state, process and calls. */
export class PluginRuntime {
  readonly id: string;
  readonly counters: RuntimeCounters = {
    events_delivered: 0,
    events_failed: 0,
    events_dropped: 0,
    requests: 0,
    requests_failed: 0,
    notifications: 0,
    notifications_dropped: 0,
    capability_refusals: 0,
    quarantines: 0,
  };
  #state: PluginState | null = null;
  #reason: string | null = null;
  #since = 0;
  #process: PluginProcess | null = null;
  /** Processes being stopped on purpose: their failing calls do not quarantine the plugin. */
  readonly #detaching = new Set<PluginProcess>();
  #running: Job | null = null;
  readonly #requests: Job[] = [];
  readonly #background: Job[] = [];
  #waiters: (() => void)[] = [];
  readonly #clock: Clock;
  readonly #log: Logger;
  readonly #slots: Slots;
  readonly #limits: RuntimeLimits;
  readonly #onChange: (change: StateChange) => void;

  constructor(
    id: string,
    deps: { clock: Clock; log: Logger; slots: Slots; limits: RuntimeLimits; onChange: (change: StateChange) => void },
  ) {
    this.id = id;
    this.#clock = deps.clock;
    this.#log = deps.log;
    this.#slots = deps.slots;
    this.#limits = deps.limits;
    this.#onChange = deps.onChange;
  }

  /** The current state (null before the first load). */
  get state(): PluginState | null {
    return this.#state;
  }

  /** Why it is in Error (or was disabled), else null. */
  get reason(): string | null {
    return this.#reason;
  }

  /** When the state last changed (Unix ms). */
  get since(): number {
    return this.#since;
  }

  /** The running child, if any. */
  get process(): PluginProcess | null {
    return this.#process;
  }

  /** True while a call runs. */
  get busy(): boolean {
    return this.#running !== null;
  }

  /** Calls waiting (requests, events, notifications). */
  get waiting(): { requests: number; background: number } {
    return { requests: this.#requests.length, background: this.#background.length };
  }

  /** Applies a transition; false (nothing changes) when it does not apply in the current state. */
  transition(event: PluginTransition, reason: string | null = null): boolean {
    const from = this.#state;
    const to = nextState(from, event);
    if (to === null) return false;
    if (to !== "removed") this.#state = to;
    this.#reason = to === "error" || to === "disabled" ? reason : null;
    this.#since = this.#clock.now();
    const level = to === "error" ? "error" : "info";
    this.#log[level](`plugin ${to === "removed" ? "removed" : STATE_LABELS[to]}`, {
      event,
      from: from ? STATE_LABELS[from] : "none",
      ...(reason ? { reason } : {}),
    });
    if (to !== "enabled" && to !== "loaded") {
      this.#failWaiting(
        `plugin ${this.id} is ${to === "removed" ? "removed" : STATE_LABELS[to]}${reason ? `: ${reason}` : ""}`,
      );
    }
    this.#wake();
    this.#onChange({ from, to, event, reason });
    if (to === "enabled") this.#pump();
    return true;
  }

  /** Adopts a started process (state Loaded). */
  attach(process: PluginProcess): void {
    this.#process = process;
  }

  /**
   * Stops the process: `cleanup` first when asked (bounded by
   * `call_timeout_ms`), then the child exits on its own. A call in progress
   * is let finish when `finish` is set (disable, reload: the event being
   * handled is not lost; the call's own budget bounds the wait), else the
   * busy process is killed (server shutdown); either way without
   * quarantining the plugin.
   */
  async detach(cleanup: boolean, finish = false): Promise<void> {
    const proc = this.#process;
    if (!proc) return;
    this.#detaching.add(proc);
    if (finish && proc.busy) await proc.idle();
    this.#process = null;
    try {
      if (proc.busy || proc.dead !== null) return await proc.kill("stopped");
      if (cleanup) await proc.call("cleanup", [], this.#callLimits(this.#limits.callMs));
      if (proc.dead === null) await proc.stop();
    } finally {
      this.#detaching.delete(proc);
    }
  }

  /** Calls `init` (bounded by `init_timeout_ms`), then `get-info`; returns the info or throws with the reason. */
  async init(): Promise<Record<string, unknown>> {
    const proc = this.#process;
    if (!proc) throw new Error("no process");
    const init = await proc.call("init", [], this.#callLimits(this.#limits.initMs));
    if (init.kind === "timeout") {
      throw new InitTimeout(`init ran longer than init_timeout_ms (${this.#limits.initMs} ms)`);
    }
    if (init.kind !== "ok") throw new Error(`init failed: ${init.message}`);
    const info = await proc.call("getInfo", [], this.#callLimits(this.#limits.callMs));
    if (info.kind !== "ok") throw new Error(`get-info failed: ${info.message}`);
    return (info.value ?? {}) as Record<string, unknown>;
  }

  /** Delivers one event (a `plugin-event` value); resolves once the plugin handled it (or it was dropped). */
  async deliver(event: unknown): Promise<void> {
    await this.#settled();
    if (this.#state !== "enabled") {
      this.counters.events_dropped++;
      return;
    }
    const { promise, resolve } = Promise.withResolvers<void>();
    this.#background.push({
      kind: "event",
      run: async () => {
        const outcome = await this.#call("onEvent", [event]);
        if (outcome.kind === "ok") this.counters.events_delivered++;
        else if (outcome.kind === "error") {
          this.counters.events_failed++;
          // First failure and every 100th: a plugin failing on every event must not flood the log.
          if (this.counters.events_failed % 100 === 1) {
            this.#log.warn("plugin on-event answered an error", {
              error: outcome.message,
              failures: this.counters.events_failed,
            });
          }
        }
        resolve();
      },
      fail: () => {
        this.counters.events_dropped++;
        resolve();
      },
    });
    this.#pump();
    await promise;
  }

  /** Queues `on-api(method, take())` behind the events (timers, sockets); `take` returning null skips it. */
  notify(method: string, take: () => unknown[] | null): void {
    if (this.#state !== "enabled" && this.#state !== "loaded") return;
    if (this.#background.length >= MAX_WAITING_NOTIFICATIONS) {
      this.counters.notifications_dropped++;
      return;
    }
    this.#background.push({
      kind: "notify",
      run: async () => {
        const args = take();
        if (args === null) return;
        this.counters.notifications++;
        const outcome = await this.#call("onApi", [method, args.map(toJsonValue)]);
        if (outcome.kind === "ok") {
          const r = readApiResult(outcome.value);
          if (!r.ok) this.#log.debug("plugin answered an error to a notification", { method, error: r.error });
        }
      },
      fail: () => {
        this.counters.notifications_dropped++;
      },
    });
    this.#pump();
  }

  /**
   * Calls `on-api(method, args)` (args are json-value variants). Waits for
   * the plugin when it is loading or busy (at most `waitMs`); `nested` calls
   * (from inside another plugin's call) run at once or fail when it is busy.
   */
  async request(
    method: string,
    args: readonly unknown[],
    options: { nested?: boolean; waitMs?: number } = {},
  ): Promise<RequestOutcome> {
    this.counters.requests++;
    const outcome = await this.#request(method, args, options);
    if (!outcome.ok) this.counters.requests_failed++;
    return outcome;
  }

  async #request(
    method: string,
    args: readonly unknown[],
    options: { nested?: boolean; waitMs?: number },
  ): Promise<RequestOutcome> {
    const failed = (error: string): RequestOutcome => ({ ok: false, error, unavailable: true });
    if (this.#state !== "enabled" && this.#state !== "loaded") {
      const state = this.#state ? STATE_LABELS[this.#state] : "not loaded";
      return failed(`plugin ${this.id} is ${state}${this.#reason ? `: ${this.#reason}` : ""}`);
    }
    if (options.nested) {
      if (this.#state !== "enabled" || this.#running) return failed(`plugin ${this.id} is busy`);
      // Runs under the calling plugin's slot; marked running so nothing else enters meanwhile.
      this.#running = { kind: "request", run: () => Promise.resolve(), fail: () => {} };
      try {
        return this.#asRequest(await this.#call("onApi", [method, args]));
      } finally {
        this.#running = null;
        this.#pump();
      }
    }
    if (this.#requests.length >= MAX_WAITING_REQUESTS) {
      return failed(`plugin ${this.id} is busy: too many requests wait`);
    }
    const { promise, resolve } = Promise.withResolvers<RequestOutcome>();
    const wait: { timer?: TimerHandle } = {};
    const job: Job = {
      kind: "request",
      run: async () => {
        this.#clock.clearTimeout(wait.timer);
        resolve(this.#asRequest(await this.#call("onApi", [method, args])));
      },
      fail: (error) => {
        this.#clock.clearTimeout(wait.timer);
        resolve(failed(error));
      },
    };
    const waitMs = options.waitMs ?? this.#limits.initMs + this.#limits.callMs;
    wait.timer = this.#clock.setTimeout(() => {
      const i = this.#requests.indexOf(job);
      if (i === -1) return;
      this.#requests.splice(i, 1);
      resolve(failed(`plugin ${this.id} did not take the request within ${waitMs} ms`));
    }, waitMs);
    this.#requests.push(job);
    this.#pump();
    return await promise;
  }

  #asRequest(outcome: CallOutcome): RequestOutcome {
    if (outcome.kind === "ok") return readApiResult(outcome.value);
    return { ok: false, error: outcome.message, unavailable: outcome.kind !== "error" };
  }

  #callLimits(guestMs: number): CallLimits {
    return { guestMs, wallMs: guestMs + this.#limits.hostMs };
  }

  /** Runs one call; quarantines the plugin on timeout, trap or crash. */
  async #call(fn: string, args: readonly unknown[]): Promise<CallOutcome> {
    const proc = this.#process;
    if (!proc) return { kind: "crash", message: `plugin ${this.id} has no process` };
    const outcome = await proc.call(fn, args, this.#callLimits(this.#limits.callMs));
    if (this.#detaching.has(proc) || this.#process !== proc) {
      // Stopped on purpose (disable, reload, shutdown): not the plugin's fault.
      if (outcome.kind === "timeout") this.#log.warn("plugin call overran while the plugin was stopping", { fn });
      return outcome;
    }
    if (outcome.kind === "timeout" || outcome.kind === "trap" || outcome.kind === "crash") {
      const what = outcome.kind === "trap"
        ? `trapped in ${fn}`
        : outcome.kind === "timeout"
        ? `${fn} timed out`
        : `crashed in ${fn}`;
      this.quarantine(`${what}: ${outcome.message}`);
    }
    return outcome;
  }

  /** Puts an enabled plugin into Error with `reason` and stops its process. */
  quarantine(reason: string): void {
    if (this.#state !== "enabled") return;
    this.counters.quarantines++;
    const proc = this.#process;
    this.#process = null;
    void proc?.kill(reason);
    this.transition("quarantine", reason);
  }

  #failWaiting(error: string): void {
    for (const job of this.#requests.splice(0)) job.fail(error);
    for (const job of this.#background.splice(0)) job.fail(error);
  }

  /** Waits while the plugin is loading. */
  async #settled(): Promise<void> {
    while (this.#state === "loaded") await new Promise<void>((resolve) => this.#waiters.push(resolve));
  }

  #wake(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const w of waiters) w();
  }

  #pump(): void {
    if (this.#running || this.#state !== "enabled") return;
    const job = this.#requests.shift() ?? this.#background.shift();
    if (!job) return;
    this.#running = job;
    void (async () => {
      await this.#slots.acquire();
      try {
        if (this.#state === "enabled") await job.run();
        else job.fail(`plugin ${this.id} is ${this.#state ? STATE_LABELS[this.#state] : "gone"}`);
      } catch (error) {
        this.#log.error("plugin job failed", { error: String(error) });
        job.fail(String(error));
      } finally {
        this.#slots.release();
        this.#running = null;
        this.#pump();
      }
    })();
  }
}

/** `init` overran `init_timeout_ms`. */
export class InitTimeout extends Error {
  constructor(message: string) {
    super(message);
    this.name = "InitTimeout";
  }
}
