/**
 * Replacing the executable (spec 3 §5.4). Every file lives beside it, on
 * the same file system, so that each replacement is one atomic `rename`:
 * at every instant the executable's path holds either the old binary or
 * the new one, never a partial file.
 *
 *   <exe>.download      the artifact being downloaded and verified
 *   <exe>.previous      the binary that ran before the last update (rollback)
 *   <exe>.update.json   what the last update or rollback did, read once by the next process (its notice)
 *
 * @module
 */

import { UpdateError } from "./errors.ts";

/** The files of one executable. */
export interface ExecutableFiles {
  readonly exe: string;
  readonly download: string;
  readonly previous: string;
  readonly marker: string;
}

/** The files beside executable `exe`. */
export function executableFiles(exe: string): ExecutableFiles {
  return { exe, download: `${exe}.download`, previous: `${exe}.previous`, marker: `${exe}.update.json` };
}

/** What the previous process did, for the next one's one-time notice. */
export interface UpdateMarker {
  readonly kind: "update" | "rollback";
  /** Version that wrote the marker. */
  readonly from: string;
  /** Version installed (`update`); for a rollback, the version it returns to when known, else null. */
  readonly to: string | null;
  /** Unix ms. */
  readonly at: number;
  /** Why (a rollback after a failed start says what failed). */
  readonly reason?: string;
}

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

/**
 * Installs the verified `files.download` as `files.exe`, keeping the
 * running binary as `files.previous`. On failure the executable is as it
 * was.
 */
export async function installDownloaded(files: ExecutableFiles): Promise<void> {
  try {
    const mode = (await Deno.stat(files.exe)).mode;
    await Deno.chmod(files.download, mode === null ? 0o755 : mode & 0o7777);
    await Deno.remove(files.previous).catch((error) => {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    });
    // A hard link keeps the running binary's bytes under the second name at no cost; a copy where links fail.
    await Deno.link(files.exe, files.previous).catch(() => Deno.copyFile(files.exe, files.previous));
  } catch (error) {
    throw new UpdateError("INSTALL", `cannot prepare ${files.exe} for replacement: ${reasonOf(error)}`);
  }
  try {
    await Deno.rename(files.download, files.exe);
  } catch (error) {
    await Deno.remove(files.previous).catch(() => {});
    throw new UpdateError("INSTALL", `cannot replace ${files.exe}: ${reasonOf(error)}`);
  }
}

/** Puts `files.previous` back in place of the executable (one rename). */
export async function restorePrevious(files: ExecutableFiles): Promise<void> {
  if (!(await exists(files.previous))) {
    throw new UpdateError("ROLLBACK", `there is no previous binary (${files.previous}) to roll back to`);
  }
  try {
    await Deno.rename(files.previous, files.exe);
  } catch (error) {
    throw new UpdateError("ROLLBACK", `cannot restore ${files.previous}: ${reasonOf(error)}`);
  }
}

/** True when a previous binary is kept. */
export function hasPrevious(files: ExecutableFiles): Promise<boolean> {
  return exists(files.previous);
}

/** Writes the marker atomically (temporary file + rename). */
export async function writeMarker(files: ExecutableFiles, marker: UpdateMarker): Promise<void> {
  const tmp = `${files.marker}.tmp`;
  await Deno.writeTextFile(tmp, JSON.stringify(marker) + "\n");
  await Deno.rename(tmp, files.marker);
}

/** Deletes the marker (once its notice is given). */
export async function removeMarker(files: ExecutableFiles): Promise<void> {
  await Deno.remove(files.marker).catch((error) => {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  });
}

/**
 * Reads the marker; null when there is none. A malformed one is deleted and
 * said in `problem`. It stays until the process confirms its start (the
 * notice) or rolls back, so a process that dies first meets it again.
 */
export async function readMarker(
  files: ExecutableFiles,
): Promise<{ marker: UpdateMarker | null; problem: string | null }> {
  let text: string;
  try {
    text = await Deno.readTextFile(files.marker);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return { marker: null, problem: null };
    return { marker: null, problem: `cannot read ${files.marker}: ${reasonOf(error)}` };
  }
  try {
    const json = JSON.parse(text) as Partial<UpdateMarker>;
    if ((json.kind === "update" || json.kind === "rollback") && typeof json.from === "string") {
      return {
        marker: {
          kind: json.kind,
          from: json.from,
          to: typeof json.to === "string" ? json.to : null,
          at: typeof json.at === "number" ? json.at : 0,
          ...(typeof json.reason === "string" ? { reason: json.reason } : {}),
        },
        problem: null,
      };
    }
  } catch {
    // fall through
  }
  await Deno.remove(files.marker).catch(() => {});
  return { marker: null, problem: `ignored a malformed ${files.marker}` };
}
