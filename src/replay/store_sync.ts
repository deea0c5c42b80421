/**
 * Listing and deleting a user's replays without waiting, for callers that
 * cannot wait: a Lua host function runs inside one synchronous Lua call. A
 * user's folder is small, so the blocking calls are short. Same results as
 * {@link ReplayStore.list} and {@link ReplayStore.remove}.
 *
 * @module
 */

import { join } from "node:path";
import { decodeHeader, HEADER_BYTES, type ReplayHeader } from "./format.ts";
import { type ChartReplays, FILE_NAME, ID, isReplayId, type ReplayStore, type StoredReplay } from "./store.ts";

/** {@link ReplayStore.list} without waiting. */
export function listReplaysSync(store: ReplayStore, userId: number): ChartReplays[] {
  if (!isReplayId(userId)) return [];
  const userDir = join(store.base, String(userId));
  const charts: ChartReplays[] = [];
  for (const chart of readDirSync(userDir)) {
    if (!chart.isDirectory || !ID.test(chart.name)) continue;
    const chartId = Number(chart.name);
    const replays: StoredReplay[] = [];
    for (const f of readDirSync(join(userDir, chart.name))) {
      const m = FILE_NAME.exec(f.name);
      if (!f.isFile || !m) continue;
      const info = headerOfSync(join(userDir, chart.name, f.name));
      if (!info || info.header.userId !== userId) continue;
      replays.push({ chartId, timestamp: Number(m[1]), recordId: info.header.recordId, size: info.size });
    }
    if (replays.length) charts.push({ chartId, replays: replays.sort((a, b) => b.timestamp - a.timestamp) });
  }
  return charts.sort((a, b) => a.chartId - b.chartId);
}

/** {@link ReplayStore.remove} without waiting. */
export function removeReplaySync(store: ReplayStore, userId: number, chartId: number, timestamp: number): boolean {
  let path: string;
  try {
    path = store.pathOf(userId, chartId, timestamp);
  } catch {
    return false;
  }
  try {
    Deno.removeSync(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
  for (const dir of [join(store.base, String(userId), String(chartId)), join(store.base, String(userId))]) {
    try {
      Deno.removeSync(dir); // fails on a folder that is not empty, which is what we want
    } catch {
      // not empty
    }
  }
  return true;
}

function readDirSync(path: string): Deno.DirEntry[] {
  try {
    return [...Deno.readDirSync(path)];
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory) return [];
    throw error;
  }
}

function headerOfSync(path: string): { header: ReplayHeader; size: number } | null {
  try {
    using file = Deno.openSync(path, { read: true });
    const size = file.statSync().size;
    const head = new Uint8Array(HEADER_BYTES);
    let at = 0;
    while (at < head.length) {
      const n = file.readSync(head.subarray(at));
      if (n === null) break;
      at += n;
    }
    return { header: decodeHeader(head.subarray(0, at)).header, size };
  } catch {
    return null; // unreadable or not a replay: left out of the list
  }
}
