/**
 * Retention of stored telemetry (issue 15; spec 3 §2.3
 * `touch_judge_retention_days`): a round's file goes as a whole once its
 * newest segment is older than the cutoff -- the file first, then its index
 * rows, so a crash in between leaves rows whose file is gone (read as empty
 * batches and removed by the next run), never a file nothing indexes.
 * Works in chunks of files with a yield between them.
 *
 * @module
 */

import { dirname, join } from "node:path";
import { num, type Queryable } from "../backends/mod.ts";

/** What one run removed. */
export interface SegmentPruning {
  readonly files: number;
  readonly rows: number;
}

const FILE = /^\d{1,10}\/\d{1,10}\/\d{1,15}\.phirarec$/;
const yieldToEventLoop = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/** Deletes the files whose newest segment was indexed before `cutoff` (ms), and their rows. */
export async function pruneSegments(db: Queryable, dir: string, cutoff: number, chunk = 500): Promise<SegmentPruning> {
  let files = 0;
  let rows = 0;
  for (;;) {
    const old = await db.query(
      "SELECT file_path FROM telemetry_segments GROUP BY file_path HAVING MAX(created_at) < $1 LIMIT $2",
      [cutoff, chunk],
    );
    for (const r of old) {
      const file = String(r.file_path);
      if (FILE.test(file)) {
        const path = join(dir, file);
        try {
          await Deno.remove(path);
          files++;
        } catch (error) {
          if (!(error instanceof Deno.errors.NotFound)) throw error;
        }
        // The chart's and user's folders go when emptied (fails on a folder that is not empty).
        await Deno.remove(dirname(path)).catch(() => {});
        await Deno.remove(dirname(dirname(path))).catch(() => {});
      }
      // Counted, then deleted: two plain statements both PostgreSQL and SQLite run (no DELETE inside a WITH).
      const [d] = await db.query("SELECT COUNT(*) AS n FROM telemetry_segments WHERE file_path = $1", [file]);
      await db.query("DELETE FROM telemetry_segments WHERE file_path = $1", [file]);
      rows += num(d?.n ?? 0);
    }
    if (old.length < chunk) break;
    await yieldToEventLoop();
  }
  return { files, rows };
}

/**
 * Drops the index rows of files removed by someone else (legacy mode's replay
 * sweep, which goes by the time in the file name): resolves with the rows
 * deleted. Paths are relative to the telemetry folder, as stored.
 */
export async function forgetFiles(db: Queryable, paths: readonly string[], chunk = 500): Promise<number> {
  let rows = 0;
  for (let i = 0; i < paths.length; i++) {
    const [d] = await db.query("SELECT COUNT(*) AS n FROM telemetry_segments WHERE file_path = $1", [paths[i]]);
    const n = num(d?.n ?? 0);
    if (n) await db.query("DELETE FROM telemetry_segments WHERE file_path = $1", [paths[i]]);
    rows += n;
    if ((i + 1) % chunk === 0) await yieldToEventLoop();
  }
  return rows;
}
