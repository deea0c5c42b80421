/**
 * Where replays live: `<base>/<user id>/<chart id>/<timestamp ms>.phirarec`
 * (the tphira layout, so existing tools and archives keep working). Paths
 * are built only from integers, never from request text, so no caller can
 * reach outside the base folder. Listing reads each file's header for its
 * record id; the retention sweep goes by the timestamp in the file name and
 * removes folders it empties.
 *
 * @module
 */

import { join } from "node:path";
import { decodeHeader, HEADER_BYTES, REPLAY_EXTENSION, type ReplayHeader } from "./format.ts";
import { ReplayWriter, type ReplayWriterOptions } from "./writer.ts";

/** One stored replay of a user. */
export interface StoredReplay {
  readonly chartId: number;
  /** Milliseconds since the epoch, from the file name (when the round started). */
  readonly timestamp: number;
  /** 0 until the player submitted a result. */
  readonly recordId: number;
  readonly size: number;
}

/** A user's replays of one chart, newest first. */
export interface ChartReplays {
  readonly chartId: number;
  readonly replays: readonly StoredReplay[];
}

/** An opened replay for reading. */
export interface OpenedReplay {
  readonly file: Deno.FsFile;
  readonly size: number;
  readonly header: ReplayHeader;
}

/** A replay's file name: the round's start in milliseconds. */
export const FILE_NAME = /^(\d{1,15})\.phirarec$/;
/** A folder name that is an id. */
export const ID = /^\d{1,10}$/;
/** Largest id a path segment may carry (u32, as the header stores it). */
const MAX_ID = 0xffff_ffff;

/** True for a non-negative integer id a path may be built from. */
export function isReplayId(n: number): boolean {
  return Number.isSafeInteger(n) && n >= 0 && n <= MAX_ID;
}

/** True for a timestamp a path may be built from. */
export function isReplayTimestamp(n: number): boolean {
  return Number.isSafeInteger(n) && n >= 0 && n < 1e15;
}

/** The replay files under one base folder. */
export class ReplayStore {
  /** The base folder (`<data_dir>/record`). */
  readonly base: string;

  constructor(base: string) {
    this.base = base;
  }

  /** The path of a replay; throws a RangeError for ids that are not non-negative integers. */
  pathOf(userId: number, chartId: number, timestamp: number): string {
    if (!isReplayId(userId) || !isReplayId(chartId) || !isReplayTimestamp(timestamp)) {
      throw new RangeError(`Cannot name a replay for user ${userId}, chart ${chartId}, time ${timestamp}`);
    }
    return join(this.base, String(userId), String(chartId), `${timestamp}${REPLAY_EXTENSION}`);
  }

  /**
   * Starts a replay file. Two rounds of one player on one chart in the same
   * millisecond cannot happen, but a clock step back could meet an old file:
   * the next free millisecond is taken then. Resolves with the writer and the
   * timestamp used.
   */
  async create(
    header: ReplayHeader,
    timestamp: number,
    options: ReplayWriterOptions = {},
  ): Promise<{ writer: ReplayWriter; timestamp: number }> {
    for (let at = timestamp; at < timestamp + 1000; at++) {
      try {
        const writer = await ReplayWriter.create(this.pathOf(header.userId, header.chartId, at), header, options);
        return { writer, timestamp: at };
      } catch (error) {
        if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
      }
    }
    throw new Error(`Cannot create a replay for user ${header.userId}: every name near ${timestamp} is taken`);
  }

  /** A user's replays grouped by chart (charts by id, replays newest first). */
  async list(userId: number): Promise<ChartReplays[]> {
    if (!isReplayId(userId)) return [];
    const userDir = join(this.base, String(userId));
    const charts: ChartReplays[] = [];
    for (const chart of await readDir(userDir)) {
      if (!chart.isDirectory || !ID.test(chart.name)) continue;
      const chartId = Number(chart.name);
      const replays: StoredReplay[] = [];
      for (const f of await readDir(join(userDir, chart.name))) {
        const m = FILE_NAME.exec(f.name);
        if (!f.isFile || !m) continue;
        const info = await this.#headerOf(join(userDir, chart.name, f.name));
        if (!info || info.header.userId !== userId) continue;
        replays.push({ chartId, timestamp: Number(m[1]), recordId: info.header.recordId, size: info.size });
      }
      if (replays.length) charts.push({ chartId, replays: replays.sort((a, b) => b.timestamp - a.timestamp) });
    }
    return charts.sort((a, b) => a.chartId - b.chartId);
  }

  /** Opens a user's replay for reading; null when it does not exist or its header names someone else. */
  async open(userId: number, chartId: number, timestamp: number): Promise<OpenedReplay | null> {
    let path: string;
    try {
      path = this.pathOf(userId, chartId, timestamp);
    } catch {
      return null;
    }
    let file: Deno.FsFile;
    try {
      file = await Deno.open(path, { read: true });
    } catch (error) {
      if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.IsADirectory) return null;
      throw error;
    }
    try {
      const size = (await file.stat()).size;
      const head = new Uint8Array(Math.min(HEADER_BYTES, size));
      let at = 0;
      while (at < head.length) {
        const n = await file.read(head.subarray(at));
        if (n === null) break;
        at += n;
      }
      const { header } = decodeHeader(head.subarray(0, at));
      if (header.userId !== userId || header.chartId !== chartId) {
        file.close();
        return null;
      }
      await file.seek(0, Deno.SeekMode.Start);
      return { file, size, header };
    } catch {
      file.close();
      return null;
    }
  }

  /** Deletes a user's replay; false when there was none. */
  async remove(userId: number, chartId: number, timestamp: number): Promise<boolean> {
    let path: string;
    try {
      path = this.pathOf(userId, chartId, timestamp);
    } catch {
      return false;
    }
    try {
      await Deno.remove(path);
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return false;
      throw error;
    }
    await removeIfEmpty(join(this.base, String(userId), String(chartId)));
    await removeIfEmpty(join(this.base, String(userId)));
    return true;
  }

  /**
   * Deletes replays whose file-name timestamp is before `cutoff` (ms) and the
   * folders left empty. Resolves with the files that went, as paths relative
   * to the base (`<user>/<chart>/<ms>.phirarec`, the telemetry index's
   * `file_path`), so that a durable store can drop their index rows.
   */
  async sweep(cutoff: number): Promise<string[]> {
    const removed: string[] = [];
    for (const user of await readDir(this.base)) {
      if (!user.isDirectory || !ID.test(user.name)) continue;
      const userDir = join(this.base, user.name);
      for (const chart of await readDir(userDir)) {
        if (!chart.isDirectory || !ID.test(chart.name)) continue;
        const chartDir = join(userDir, chart.name);
        for (const f of await readDir(chartDir)) {
          const m = FILE_NAME.exec(f.name);
          if (!f.isFile || !m || Number(m[1]) >= cutoff) continue;
          try {
            await Deno.remove(join(chartDir, f.name));
            removed.push(`${user.name}/${chart.name}/${f.name}`);
          } catch (error) {
            if (!(error instanceof Deno.errors.NotFound)) throw error;
          }
        }
        await removeIfEmpty(chartDir);
      }
      await removeIfEmpty(userDir);
    }
    return removed;
  }

  async #headerOf(path: string): Promise<{ header: ReplayHeader; size: number } | null> {
    try {
      using file = await Deno.open(path, { read: true });
      const size = (await file.stat()).size;
      const head = new Uint8Array(HEADER_BYTES);
      let at = 0;
      while (at < head.length) {
        const n = await file.read(head.subarray(at));
        if (n === null) break;
        at += n;
      }
      return { header: decodeHeader(head.subarray(0, at)).header, size };
    } catch {
      return null; // unreadable or not a replay: left out of the list
    }
  }
}

async function readDir(path: string): Promise<Deno.DirEntry[]> {
  try {
    return await Array.fromAsync(Deno.readDir(path));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory) return [];
    throw error;
  }
}

async function removeIfEmpty(path: string): Promise<void> {
  try {
    await Deno.remove(path); // fails on a non-empty folder, which is what we want
  } catch {
    // not empty, or gone
  }
}
