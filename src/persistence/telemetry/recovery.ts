/**
 * Cutting torn tails at start (issue 15): a telemetry file is appended in
 * writes every 500 ms and indexed only after an fsync, so a crash can leave
 * at most a partly written tail after the last indexed segment -- bytes past
 * the last whole entry, or (on file systems that expose unwritten blocks) zeros. Such a
 * tail would make the file unreadable as a replay and misplace anything
 * appended after it, so it is cut before anything is written.
 *
 * Which files to look at: every file being written has a marker in
 * `<dir>/.open/` (created with the file, removed once it is closed), so only
 * the files open at the crash are read, never the whole archive.
 *
 * @module
 */

import { join } from "node:path";
import { decodeHeader, ENTRY_PREFIX_BYTES, HEADER_BYTES, MAX_ENTRY_BYTES } from "../../replay/mod.ts";
import type { Logger } from "../../util/log.ts";
import { OPEN_MARKERS, TAG } from "./segment_types.ts";

const MARKER = /^(\d{1,10})_(\d{1,10})_(\d{1,15})\.phirarec$/;

/** The marker of the file at `path` (under `dir`): its relative path with `_` for `/`. */
export function markerName(dir: string, path: string): string {
  return path.slice(dir.length + 1).replaceAll("\\", "/").replaceAll("/", "_");
}

/** Where the whole entries of a file end: past the header, each entry a complete `Touches`/`Judges` payload. */
export function wholeEntriesEnd(bytes: Uint8Array): number {
  let at: number;
  try {
    at = decodeHeader(bytes).length;
  } catch {
    return 0;
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  while (bytes.length - at >= ENTRY_PREFIX_BYTES) {
    const size = view.getUint32(at, true);
    const tag = bytes[at + ENTRY_PREFIX_BYTES];
    if (size === 0 || size > MAX_ENTRY_BYTES || bytes.length - at - ENTRY_PREFIX_BYTES < size) break;
    if (tag !== TAG.touches && tag !== TAG.judges) break;
    at += ENTRY_PREFIX_BYTES + size;
  }
  return at;
}

/** What {@link recoverTelemetry} did. */
export interface TelemetryRecovery {
  /** Files looked at (open at the last stop). */
  readonly files: number;
  /** Files whose torn tail was cut, and the bytes cut. */
  readonly cut: number;
  readonly bytesCut: number;
}

/**
 * Cuts the torn tails of the files open at the last stop and removes their markers. Never fails the start: a
 * folder it cannot read is logged (and its files are left as they are; nothing is appended to them again).
 */
export async function recoverTelemetry(dir: string, log: Logger): Promise<TelemetryRecovery> {
  try {
    return await recover(dir, log);
  } catch (error) {
    log.error("cannot check the telemetry files being written at the last stop; left as they are", {
      folder: dir,
      error: error instanceof Error ? error.message : String(error),
    });
    return { files: 0, cut: 0, bytesCut: 0 };
  }
}

async function recover(dir: string, log: Logger): Promise<TelemetryRecovery> {
  const markers = join(dir, OPEN_MARKERS);
  let files = 0;
  let cut = 0;
  let bytesCut = 0;
  let entries: Deno.DirEntry[];
  try {
    entries = await Array.fromAsync(Deno.readDir(markers));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return { files, cut, bytesCut };
    throw error;
  }
  for (const e of entries) {
    const m = MARKER.exec(e.name);
    if (m) {
      files++;
      const path = join(dir, m[1]!, m[2]!, `${m[3]}.phirarec`);
      let bytes: Uint8Array | null = null;
      try {
        bytes = await Deno.readFile(path);
      } catch (error) {
        if (!(error instanceof Deno.errors.NotFound)) throw error;
      }
      if (bytes) {
        const end = wholeEntriesEnd(bytes);
        if (end <= HEADER_BYTES) {
          // Nothing whole past the header: nothing was stored (a closed file without entries is removed too).
          await Deno.remove(path);
          if (bytes.length > end) {
            cut++;
            bytesCut += bytes.length - end;
          }
        } else if (end < bytes.length) {
          await Deno.truncate(path, end);
          cut++;
          bytesCut += bytes.length - end;
          log.warn("telemetry file had a torn tail (the server stopped while writing it); cut", {
            file: path,
            bytes: bytes.length - end,
            kept: end,
          });
        }
      }
    }
    await Deno.remove(join(markers, e.name)).catch(() => {});
  }
  return { files, cut, bytesCut };
}
