/**
 * Touches and judges stored as wire bytes (issue 15): the segment store,
 * start-up recovery of torn tails, reading segments back, and retention of
 * the files with their index rows.
 *
 * @module
 */

import { join } from "node:path";
import { TELEMETRY_FOLDER } from "./segment_types.ts";

export * from "./segment_types.ts";
export * from "./segment_store.ts";
export * from "./recovery.ts";
export * from "./read.ts";
export * from "./retention.ts";

/** The telemetry folder of a data directory. */
export function telemetryDir(dataDir: string): string {
  return join(dataDir, TELEMETRY_FOLDER);
}
