/**
 * One owner process per data directory (issue 5: "a second one refuses to
 * start with a clear message"). PGlite has no cross-process lock and two
 * writers silently lose rows (platform.md §4); the journal would interleave
 * too. The lock file `chorus.lock` is created exclusively and holds the
 * owner's PID, host, boot id and process start time. A lock whose process
 * is gone (or whose PID now belongs to a process started at another time,
 * or was written before the last reboot) is stale and is taken over with a
 * log line. That includes a lock carrying this process's own PID: after a
 * crash, a container restarts with the same PID (1) and hostname, and only
 * the start time tells the old process from this one.
 *
 * @module
 */

import type { Logger } from "../util/log.ts";
import { errorText, PersistenceError } from "./types.ts";

/** Contents of the lock file. */
export interface LockInfo {
  readonly pid: number;
  readonly host: string;
  /** Process start time in clock ticks since boot (Linux `/proc/<pid>/stat` field 22), when known. */
  readonly start: string | null;
  /** Kernel boot id (Linux `/proc/sys/kernel/random/boot_id`), when known; absent in older lock files. */
  readonly boot?: string | null;
  readonly at: number;
}

/** Lock file name inside the data directory. */
export const LOCK_FILE = "chorus.lock";

/** Start time of process `pid` from `/proc`, or null when unknown; undefined when the process does not exist. */
function processStart(pid: number | "self"): string | null | undefined {
  let stat: string;
  try {
    stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      // No such process — unless this system has no /proc at all.
      try {
        Deno.statSync("/proc/self/stat");
        return undefined;
      } catch {
        return null;
      }
    }
    return null;
  }
  // Fields after the command name, which is in parentheses and may hold spaces.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return fields[19] ?? null;
}

/** This boot's id, or null when unknown. */
function bootId(): string | null {
  try {
    return Deno.readTextFileSync("/proc/sys/kernel/random/boot_id").trim() || null;
  } catch {
    return null;
  }
}

function hostname(): string {
  try {
    return Deno.hostname();
  } catch {
    return "unknown";
  }
}

/** True when the owner recorded in `info` may still be running. */
function ownerAlive(info: LockInfo): boolean {
  if (info.host !== hostname()) return true; // Cannot see processes of another host.
  const boot = bootId();
  // Written before a reboot: no process of that boot runs any more.
  if (info.boot && boot && info.boot !== boot) return false;
  // Our own PID says nothing by itself: compare the start time like any other (a restart reusing the PID).
  const start = processStart(info.pid === Deno.pid ? "self" : info.pid);
  if (start === undefined) return false;
  if (start === null || info.start === null) return true;
  return start === info.start;
}

function readInfo(path: string): LockInfo | null {
  try {
    const parsed = JSON.parse(Deno.readTextFileSync(path));
    return typeof parsed?.pid === "number" ? parsed as LockInfo : null;
  } catch {
    return null;
  }
}

/** The held lock of one data directory. */
export class DataDirLock {
  readonly path: string;
  readonly info: LockInfo;
  #released = false;

  private constructor(path: string, info: LockInfo) {
    this.path = path;
    this.info = info;
  }

  /** Takes the lock of `dir` (which must exist) or throws a `locked` {@link PersistenceError}. */
  static acquire(dir: string, log: Logger, now: number): DataDirLock {
    const path = `${dir}/${LOCK_FILE}`;
    const info: LockInfo = {
      pid: Deno.pid,
      host: hostname(),
      start: processStart("self") ?? null,
      boot: bootId(),
      at: now,
    };
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        const file = Deno.openSync(path, { write: true, createNew: true });
        try {
          file.writeSync(new TextEncoder().encode(JSON.stringify(info) + "\n"));
          file.syncSync();
        } finally {
          file.close();
        }
        return new DataDirLock(path, info);
      } catch (error) {
        if (!(error instanceof Deno.errors.AlreadyExists)) {
          throw new PersistenceError("data_dir", `Cannot lock data_dir "${dir}": ${errorText(error)}`);
        }
      }
      const owner = readInfo(path);
      if (owner === null) {
        // Empty or unreadable: another process may be writing it right now.
        const age = now - (Deno.statSync(path).mtime?.getTime() ?? 0);
        if (age < 5000) throw locked(dir, path, null);
      } else if (ownerAlive(owner)) {
        throw locked(dir, path, owner);
      }
      log.warn("taking over a stale data_dir lock", { data_dir: dir, stale_pid: owner?.pid });
      try {
        Deno.removeSync(path);
      } catch (error) {
        if (!(error instanceof Deno.errors.NotFound)) {
          throw new PersistenceError("data_dir", `Cannot remove the stale lock "${path}": ${errorText(error)}`);
        }
      }
    }
    throw locked(dir, path, readInfo(path));
  }

  /** Releases the lock (only if the file is still ours). */
  release(): void {
    if (this.#released) return;
    this.#released = true;
    const current = readInfo(this.path);
    if (current?.pid !== this.info.pid || current.at !== this.info.at) return;
    try {
      Deno.removeSync(this.path);
    } catch {
      // Already gone.
    }
  }
}

function locked(dir: string, path: string, owner: LockInfo | null): PersistenceError {
  const who = owner
    ? `process ${owner.pid}${owner.pid === Deno.pid ? " (this process)" : ""}${
      owner.host !== hostname() ? ` on host "${owner.host}"` : ""
    }`
    : "another process";
  return new PersistenceError(
    "locked",
    `Cannot use data_dir "${dir}": it is in use by ${who} (lock file "${path}"). ` +
      `Stop that server or choose another --data-dir; delete the lock file only if no server uses the directory.`,
  );
}
