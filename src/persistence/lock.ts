/**
 * One owner process per data directory (issue 5: "a second one refuses to
 * start with a clear message"). The journal would interleave and two
 * servers' apply workers would fight over one embedded database (SQLite
 * locks per transaction, not per owner). Everything under `data_dir` (the embedded database, the journal) is
 * opened only after this lock is held.
 *
 * The lock is an advisory file lock (`flock`, via `Deno.FsFile.tryLockSync`)
 * on `chorus.lock`, held open for the life of the process. The kernel drops
 * it when the process ends, however it ends (SIGKILL, the OOM killer, a
 * power cut before reboot): a crashed owner never blocks the next start, and
 * nothing has to read `/proc`, which Deno refuses without `--allow-all`
 * (issue 13). A zombie has already closed its files, so it holds nothing.
 * The file's content (PID, host, time) is information for the message only;
 * it decides nothing.
 *
 * Release removes the file before closing it. A contender that opened the
 * old file just before may then win the lock on an unlinked file, so every
 * winner checks that the path still names the file it locked, and retries
 * when it does not.
 *
 * @module
 */

import type { Logger } from "../util/log.ts";
import { errorText, PersistenceError } from "./types.ts";

/** Contents of the lock file: who holds it, for messages only. */
export interface LockInfo {
  readonly pid: number;
  readonly host: string;
  /** When the lock was taken (Unix milliseconds). */
  readonly at: number;
}

/** Lock file name inside the data directory. */
export const LOCK_FILE = "chorus.lock";

/** Attempts before giving up on a lock file that keeps being replaced under us. */
const ATTEMPTS = 5;

function hostname(): string {
  try {
    return Deno.hostname();
  } catch {
    return "unknown";
  }
}

/** Parses lock file text; null when it names no owner (empty, torn, or not ours). */
function parseInfo(text: string): LockInfo | null {
  try {
    const parsed = JSON.parse(text);
    return typeof parsed?.pid === "number" ? parsed as LockInfo : null;
  } catch {
    return null;
  }
}

function readInfo(path: string): LockInfo | null {
  try {
    return parseInfo(Deno.readTextFileSync(path));
  } catch {
    return null;
  }
}

/** Reads what an open file holds from its start. */
function readOpen(file: Deno.FsFile): string {
  const size = file.statSync().size;
  const buf = new Uint8Array(Math.min(size, 4096));
  file.seekSync(0, Deno.SeekMode.Start);
  let read = 0;
  while (read < buf.length) {
    const n = file.readSync(buf.subarray(read));
    if (n === null || n === 0) break;
    read += n;
  }
  return new TextDecoder().decode(buf.subarray(0, read));
}

/** True when `path` still names the file `file` has open (not removed or replaced). */
function stillNamed(file: Deno.FsFile, path: string): boolean {
  let named: Deno.FileInfo;
  try {
    named = Deno.statSync(path);
  } catch {
    return false;
  }
  const open = file.statSync();
  // Without inode numbers (Windows) the file cannot have been removed while open anyway.
  return open.ino === null || (open.ino === named.ino && open.dev === named.dev);
}

/** The held lock of one data directory. */
export class DataDirLock {
  readonly path: string;
  readonly info: LockInfo;
  #file: Deno.FsFile | null;

  private constructor(path: string, info: LockInfo, file: Deno.FsFile) {
    this.path = path;
    this.info = info;
    this.#file = file;
  }

  /** Takes the lock of `dir` (which must exist) or throws a `locked` {@link PersistenceError}. */
  static acquire(dir: string, log: Logger, now: number): DataDirLock {
    const path = `${dir}/${LOCK_FILE}`;
    const info: LockInfo = { pid: Deno.pid, host: hostname(), at: now };
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      let file: Deno.FsFile;
      try {
        file = Deno.openSync(path, { read: true, write: true, create: true });
      } catch (error) {
        throw new PersistenceError("data_dir", `Cannot lock data_dir "${dir}": ${errorText(error)}`);
      }
      try {
        let locked: boolean;
        try {
          locked = file.tryLockSync(true);
        } catch (error) {
          throw new PersistenceError(
            "data_dir",
            `Cannot lock data_dir "${dir}": its file system refuses file locks (${errorText(error)}); ` +
              `use a local directory`,
          );
        }
        if (!locked) throw lockedError(dir, path, readInfo(path));
        if (!stillNamed(file, path)) {
          // The owner released it (removing the file) between our open and our lock: try the new file.
          file.close();
          continue;
        }
        const previous = parseInfo(readOpen(file));
        if (previous) {
          // A clean stop removes the file: one left behind means its owner ended without releasing it.
          log.warn("taking over a stale data_dir lock", {
            data_dir: dir,
            stale_pid: previous.pid,
            stale_host: previous.host,
            reason: "its owner ended without releasing it (crash or kill); the system released its file lock",
          });
        }
        file.truncateSync(0);
        file.seekSync(0, Deno.SeekMode.Start);
        const bytes = new TextEncoder().encode(JSON.stringify(info) + "\n");
        for (let written = 0; written < bytes.length;) written += file.writeSync(bytes.subarray(written));
        file.syncSync();
        return new DataDirLock(path, info, file);
      } catch (error) {
        try {
          file.close();
        } catch {
          // Closed above.
        }
        if (error instanceof PersistenceError) throw error;
        throw new PersistenceError("data_dir", `Cannot lock data_dir "${dir}": ${errorText(error)}`);
      }
    }
    throw lockedError(dir, path, readInfo(path));
  }

  /** Releases the lock: removes the file (while still holding it), then closes it, which drops the lock. */
  release(): void {
    const file = this.#file;
    if (!file) return;
    this.#file = null;
    try {
      if (stillNamed(file, this.path)) Deno.removeSync(this.path);
    } catch {
      // Already gone; closing still releases the lock.
    }
    try {
      file.close();
    } catch {
      // Already closed.
    }
  }
}

function lockedError(dir: string, path: string, owner: LockInfo | null): PersistenceError {
  const who = owner
    ? `process ${owner.pid}${owner.pid === Deno.pid ? " (this process)" : ""}${
      owner.host !== hostname() ? ` on host "${owner.host}"` : ""
    }${Number.isFinite(owner.at) ? ` since ${new Date(owner.at).toISOString()}` : ""}`
    : "another process";
  return new PersistenceError(
    "locked",
    `Cannot use data_dir "${dir}": it is in use by ${who} (lock file "${path}"). ` +
      `Stop that server or choose another --data-dir. The lock is released by the system when its owner ends, ` +
      `even after a crash; deleting the file does not stop that server.`,
  );
}
