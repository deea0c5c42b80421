/**
 * The handover between the process that installed a binary and the one
 * that runs it (spec 3 §5.4): the marker the old process leaves beside the
 * executable is read at start-up; once the new process runs it gives the
 * one-time notice ("update completed", console, log and OpenUDS through
 * the log) and deletes the marker; when it cannot start, it puts the
 * previous binary back and leaves a rollback marker for the next start.
 * An operator's rollback goes through here too.
 *
 * @module
 */

import type { Clock } from "../util/clock.ts";
import type { Logger } from "../util/log.ts";
import { UpdateError } from "./errors.ts";
import {
  type ExecutableFiles,
  hasPrevious,
  readMarker,
  removeMarker,
  restorePrevious,
  type UpdateMarker,
  writeMarker,
} from "./install.ts";

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The handover of one process. */
export class Handover {
  readonly #files: ExecutableFiles;
  readonly #version: string;
  readonly #clock: Clock;
  readonly #log: Logger;
  #startMarker: UpdateMarker | null = null;
  #notice: UpdateMarker | null = null;

  constructor(files: ExecutableFiles, version: string, clock: Clock, log: Logger) {
    this.#files = files;
    this.#version = version;
    this.#clock = clock;
    this.#log = log;
  }

  /** What the previous process did, once this one confirmed its start (kept for `update status`). */
  get notice(): UpdateMarker | null {
    return this.#notice;
  }

  /** Reads the marker the previous process left (it stays on disk until {@link confirmStarted}). */
  async read(): Promise<void> {
    const { marker, problem } = await readMarker(this.#files);
    if (problem) this.#log.warn(`update: ${problem}`);
    this.#startMarker = marker;
  }

  /** The start-up went well: the one-time notice. */
  async confirmStarted(): Promise<void> {
    const marker = this.#startMarker;
    if (!marker) return;
    this.#startMarker = null;
    await removeMarker(this.#files).catch(() => {});
    this.#notice = marker;
    if (marker.kind === "update" && marker.to === this.#version) {
      this.#log.info(`update completed: ${marker.from} \u2192 ${marker.to}`, { from: marker.from, to: marker.to });
    } else if (marker.kind === "update") {
      this.#log.warn(`update to ${marker.to} did not take effect: this is ${this.#version}`, { from: marker.from });
    } else {
      const why = marker.reason ? ` (${marker.reason})` : "";
      this.#log.warn(`rolled back from ${marker.from} to ${this.#version}${why}`, { from: marker.from });
    }
  }

  /** The start-up failed: a binary an update just installed puts the previous one back. True when it did. */
  async startupFailed(reason: string): Promise<boolean> {
    const marker = this.#startMarker;
    if (marker?.kind !== "update" || marker.to !== this.#version) return false;
    this.#startMarker = null;
    try {
      await restorePrevious(this.#files);
      await writeMarker(this.#files, {
        kind: "rollback",
        from: this.#version,
        to: marker.from,
        at: this.#clock.now(),
        reason: `${this.#version} failed to start: ${reason}`,
      });
    } catch (error) {
      this.#log.error(`update: ${this.#version} failed to start and cannot roll back: ${reasonOf(error)}`);
      return false;
    }
    this.#log.error(`update: ${this.#version} failed to start; ${marker.from} is restored and runs at the next start`);
    return true;
  }

  /** `update rollback`: the previous binary back in place, a marker for the next start's notice. */
  async rollback(): Promise<void> {
    if (!(await hasPrevious(this.#files))) {
      throw new UpdateError("ROLLBACK", `there is no previous binary (${this.#files.previous}) to roll back to`);
    }
    await writeMarker(this.#files, { kind: "rollback", from: this.#version, to: null, at: this.#clock.now() });
    try {
      await restorePrevious(this.#files);
    } catch (error) {
      await removeMarker(this.#files).catch(() => {});
      throw error;
    }
    this.#log.warn("update: rolled back to the previous binary; restarting");
  }
}
