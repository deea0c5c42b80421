/**
 * The self-updater of one process (spec 3 §5.4): owns the state machine
 * (`machine.ts`), performs its effects -- fetch the manifest, download and
 * verify, replace the executable, restart -- and runs its timers on the
 * injected clock: a check at start-up and every `check_interval_secs`, and
 * a tick that watches for players so that an update waiting for
 * `min_idle_minutes` without them starts on time. After a restart it gives
 * the one-time notice of what the previous process did, and when the new
 * binary fails to start it puts the previous one back.
 *
 * Over 300 lines on purpose: it is the one owner of the machine's state --
 * the operator calls, the effect runner and the timers share the pending
 * download and its waiters, which a split would have to pass around. The
 * parts without that state live beside it (manifest fetch, download,
 * install, handover, status).
 *
 * @module
 */

import type { Clock, TimerHandle } from "../util/clock.ts";
import type { Logger } from "../util/log.ts";
import { downloadRelease } from "./download.ts";
import { UpdateError, type UpdateErrorCode } from "./errors.ts";
import { Handover } from "./handover.ts";
import {
  type ExecutableFiles,
  executableFiles,
  installDownloaded,
  removeMarker,
  type UpdateMarker,
  writeMarker,
} from "./install.ts";
import { fetchRelease } from "./fetch_manifest.ts";
import type { Release } from "./manifest.ts";
import {
  initialState,
  type PendingMode,
  step,
  type UpdateEffect,
  type UpdateEvent,
  type UpdateState,
} from "./machine.ts";
import { describeStatus, type UpdateStatus } from "./status.ts";

/** Exit code of a process that stops to be restarted into a new binary (EX_TEMPFAIL): the supervisor restarts it. */
export const EXIT_RESTART = 75;

/** Longest a download may take before it is abandoned (and resumed by the next attempt). */
export const DOWNLOAD_TIMEOUT_MS = 30 * 60_000;
/** How often the updater looks at the player count while it runs. */
export const TICK_MS = 15_000;

/** The `update` configuration section the updater reads. */
export interface UpdaterConfig {
  readonly manifest_url: string | null;
  readonly auto: boolean;
  readonly check_interval_secs: number;
  readonly min_idle_minutes: number;
}

/** What the updater needs from the process. */
export interface UpdaterDeps {
  readonly config: UpdaterConfig;
  /** The running version. */
  readonly version: string;
  readonly clock: Clock;
  readonly log: Logger;
  /** Players online now (benchmark sessions excluded). */
  readonly players: () => number;
  /** Path of the running binary; null when the process runs from source (`deno run`), which it never replaces. */
  readonly executable: string | null;
  /** Platform key of the manifest's artifacts (default `Deno.build.target`). */
  readonly platform?: string;
  readonly fetch?: typeof fetch;
  /** Stops the process so that its supervisor starts the new binary (it exits non-zero). */
  readonly restart: (reason: string) => void;
}

/** A caller waiting for the pending update to install or end. */
interface Waiter {
  resolve(release: Release): void;
  reject(error: UpdateError): void;
}

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function codeOf(error: unknown, otherwise: UpdateErrorCode): UpdateErrorCode {
  return error instanceof UpdateError ? error.code : otherwise;
}

/** The self-updater. */
export class Updater {
  readonly #deps: UpdaterDeps;
  readonly #files: ExecutableFiles | null;
  #state: UpdateState;
  #checkTimer: TimerHandle | undefined;
  #tickTimer: TimerHandle | undefined;
  #download: { id: number; controller: AbortController } | null = null;
  #downloads = 0;
  #checkWaiters: (() => void)[] = [];
  #pendingWaiters: Waiter[] = [];
  readonly #handover: Handover | null;
  #nextCheckAt: number | null = null;
  #stopped = false;

  constructor(deps: UpdaterDeps) {
    this.#deps = deps;
    this.#files = deps.executable ? executableFiles(deps.executable) : null;
    this.#handover = this.#files ? new Handover(this.#files, deps.version, deps.clock, deps.log) : null;
    this.#state = initialState(deps.version, deps.config.auto && deps.executable !== null);
  }

  /** The state machine's state (tests, status). */
  get state(): UpdateState {
    return this.#state;
  }

  /**
   * Reads what the previous process left (the notice is given by
   * {@link confirmStarted}), then checks at once and every
   * `check_interval_secs`, and starts watching the player count.
   */
  async start(): Promise<void> {
    const { config, log } = this.#deps;
    await this.#handover?.read();
    if (config.auto && !this.#files) {
      log.warn("update auto is set but this process runs from source (deno run): it is never replaced");
    }
    if (!config.manifest_url) return;
    this.#scheduleTick();
    this.#runCheckCycle();
  }

  /** The start-up went well: the one-time notice of the update or rollback that led here (console, log, OpenUDS). */
  async confirmStarted(): Promise<void> {
    await this.#handover?.confirmStarted();
  }

  /**
   * The start-up failed. When this binary was just installed by an update,
   * the previous one is put back (the supervisor's next start runs it) and
   * true is returned.
   */
  startupFailed(reason: string): Promise<boolean> {
    return this.#handover?.startupFailed(reason) ?? Promise.resolve(false);
  }

  /** Stops the timers and any download (the partial file stays for a resume). */
  stop(): void {
    this.#stopped = true;
    this.#deps.clock.clearTimeout(this.#checkTimer);
    this.#deps.clock.clearTimeout(this.#tickTimer);
    this.#download?.controller.abort();
    this.#download = null;
    const error = new UpdateError("CANCELLED", "the server is stopping");
    for (const w of this.#pendingWaiters.splice(0)) w.reject(error);
    for (const w of this.#checkWaiters.splice(0)) w();
  }

  /** The state as `update status` shows it. */
  status(): UpdateStatus {
    return describeStatus({
      state: this.#state,
      config: this.#deps.config,
      executable: this.#deps.executable,
      platform: this.#platform,
      players: this.#deps.players(),
      nextCheckAt: this.#nextCheckAt,
      notice: this.#handover?.notice ?? null,
    });
  }

  /** Checks the manifest now; resolves once the check is done. */
  async check(): Promise<UpdateStatus> {
    this.#requireSource();
    const done = new Promise<void>((resolve) => this.#checkWaiters.push(resolve));
    this.#dispatch({ type: "check" });
    await done;
    return this.status();
  }

  /**
   * `update schedule` (waits for idle players), `apply` (now, refused with
   * players online) or `force` (now, whoever is online). `schedule` resolves
   * at once; `apply` and `force` once the new binary is installed (the
   * process then restarts) or reject with why not.
   */
  async request(mode: Exclude<PendingMode, "auto">): Promise<UpdateStatus> {
    this.#requireSource();
    this.#requireExecutable();
    if (mode === "apply") {
      const players = this.#deps.players();
      if (players > 0) {
        throw new UpdateError(
          "REFUSED",
          `${players} player${
            players === 1 ? " is" : "s are"
          } online: update schedule waits for them, update force does not`,
        );
      }
    }
    if (mode === "scheduled") {
      this.#dispatch({ type: "request", mode });
      return this.status();
    }
    const installed = new Promise<Release>((resolve, reject) => this.#pendingWaiters.push({ resolve, reject }));
    this.#dispatch({ type: "request", mode });
    await installed;
    return this.status();
  }

  /** `update cancel`: drops the pending update (aborting its download); false when there was none. */
  cancel(): boolean {
    const phase = this.#state.phase;
    if (phase === "installing" || phase === "restarting") {
      throw new UpdateError("BUSY", "the new binary is already being installed; it is too late to cancel");
    }
    const had = this.#state.pending !== null;
    this.#dispatch({ type: "cancel" });
    return had;
  }

  /** `update auto on|off` (a runtime switch: `config reload` leaves it alone). */
  setAuto(on: boolean): UpdateStatus {
    if (on) this.#requireExecutable();
    this.#dispatch({ type: "auto", on });
    return this.status();
  }

  /** `update rollback`: puts the previous binary back and restarts into it. */
  async rollback(): Promise<void> {
    this.#requireExecutable();
    const phase = this.#state.phase;
    if (phase !== "idle") throw new UpdateError("BUSY", `an update is ${phase}; cancel it first`);
    await this.#handover!.rollback();
    this.#state = { ...this.#state, phase: "restarting" };
    this.#deps.restart(`rollback from ${this.#deps.version}`);
  }

  get #platform(): string {
    return this.#deps.platform ?? Deno.build.target;
  }

  #requireSource(): void {
    if (!this.#deps.config.manifest_url) {
      throw new UpdateError("UNAVAILABLE", "no release source: set update.manifest_url");
    }
  }

  #requireExecutable(): void {
    if (!this.#files) {
      throw new UpdateError(
        "UNAVAILABLE",
        "this process runs from source (deno run), not from a chorus binary: update the checkout instead",
      );
    }
  }

  #dispatch(event: UpdateEvent): void {
    if (this.#stopped) return;
    const { clock, config } = this.#deps;
    const result = step(this.#state, event, {
      now: clock.now(),
      players: this.#deps.players(),
      minIdleMs: config.min_idle_minutes * 60_000,
    });
    this.#state = result.state;
    for (const effect of result.effects) this.#perform(effect);
    if (this.#state.phase !== "checking") { for (const w of this.#checkWaiters.splice(0)) w(); }
  }

  #perform(effect: UpdateEffect): void {
    const log = this.#deps.log;
    switch (effect.kind) {
      case "log":
        log[effect.level](effect.message);
        return;
      case "fetch_manifest":
        void fetchRelease(this.#deps.config.manifest_url!, this.#platform, this.#deps.clock, this.#deps.fetch).then(
          (release) => this.#dispatch({ type: "checked", release }),
          (error) => this.#dispatch({ type: "check_failed", error: reasonOf(error), code: codeOf(error, "MANIFEST") }),
        );
        return;
      case "download": {
        const id = ++this.#downloads;
        const controller = new AbortController();
        this.#download = { id, controller };
        // A stalled transfer must not hold the pending update forever; what arrived stays for the next attempt.
        const deadline = this.#deps.clock.setTimeout(() => {
          const minutes = DOWNLOAD_TIMEOUT_MS / 60_000;
          controller.abort(
            new UpdateError("DOWNLOAD", `the download took over ${minutes} minutes; the next attempt resumes`),
          );
        }, DOWNLOAD_TIMEOUT_MS);
        const options = { signal: controller.signal, ...(this.#deps.fetch ? { fetch: this.#deps.fetch } : {}) };
        void downloadRelease(effect.release, this.#files!.download, options).finally(() =>
          this.#deps.clock.clearTimeout(deadline)
        ).then(
          (report) => {
            if (this.#download?.id !== id) return;
            this.#download = null;
            const resumed = report.resumedFrom ? ` (resumed at byte ${report.resumedFrom})` : "";
            log.info(`update to ${effect.release.version}: downloaded and verified${resumed}`);
            this.#dispatch({ type: "downloaded" });
          },
          (error) => {
            if (this.#download?.id !== id) return; // cancelled: the machine has moved on
            this.#download = null;
            this.#dispatch({ type: "download_failed", error: reasonOf(error), code: codeOf(error, "DOWNLOAD") });
          },
        );
        return;
      }
      case "abort_download":
        this.#download?.controller.abort();
        this.#download = null;
        return;
      case "install":
        void this.#install(effect.release).then(
          () => this.#dispatch({ type: "installed" }),
          (error) => this.#dispatch({ type: "install_failed", error: reasonOf(error), code: codeOf(error, "INSTALL") }),
        );
        return;
      case "restart": {
        log.info(`update to ${effect.release.version} installed; restarting into it`);
        for (const w of this.#pendingWaiters.splice(0)) w.resolve(effect.release);
        this.#deps.clock.clearTimeout(this.#checkTimer);
        this.#deps.clock.clearTimeout(this.#tickTimer);
        this.#deps.restart(`update to ${effect.release.version}`);
        return;
      }
      case "settled": {
        const error = new UpdateError(effect.code, effect.reason);
        for (const w of this.#pendingWaiters.splice(0)) w.reject(error);
        return;
      }
    }
  }

  async #install(release: Release): Promise<void> {
    const files = this.#files!;
    const marker = { kind: "update", from: this.#deps.version, to: release.version, at: this.#deps.clock.now() };
    await writeMarker(files, marker as UpdateMarker);
    try {
      await installDownloaded(files);
    } catch (error) {
      await removeMarker(files).catch(() => {});
      throw error;
    }
  }

  /** Checks now, then again after `check_interval_secs`. */
  #runCheckCycle(): void {
    if (this.#stopped) return;
    this.#dispatch({ type: "check" });
    const interval = this.#deps.config.check_interval_secs * 1000;
    this.#nextCheckAt = this.#deps.clock.now() + interval;
    this.#checkTimer = this.#deps.clock.setTimeout(() => this.#runCheckCycle(), interval);
  }

  #scheduleTick(): void {
    if (this.#stopped) return;
    this.#tickTimer = this.#deps.clock.setTimeout(() => {
      this.#dispatch({ type: "tick" });
      this.#scheduleTick();
    }, TICK_MS);
  }
}
