/**
 * The vocabulary of stored telemetry (issue 15 "Telemetry as wire bytes"):
 * touches and judges are kept per round and player in one `.phirarec` file
 * (`src/replay/format.ts`: the tphira layout, so stored telemetry and legacy
 * replays are the same files), appended in segments; each segment is indexed
 * by one `telemetry_segments` row, journaled once its bytes are fsync'd.
 *
 * @module
 */

/** Folder of the telemetry files under `data_dir` (the tphira `record/` layout). */
export const TELEMETRY_FOLDER = "record";
/** Folder (inside {@link TELEMETRY_FOLDER}) of the markers of files being written (`recovery.ts`). */
export const OPEN_MARKERS = ".open";

/** Wire tags of the two client commands stored (protocol.md §3.2: `ClientCommand` variants 3 and 4). */
export const TAG = { touches: 3, judges: 4 } as const;

/** One appended segment: where its bytes are and what they hold. */
export interface TelemetrySegment {
  /** Path relative to the telemetry folder, `<user>/<chart>/<ms>.phirarec`. */
  readonly file: string;
  /** Byte range of the segment's entries in the file. */
  readonly offset: number;
  readonly bytes: number;
  readonly room: string;
  readonly round: string | null;
  readonly user: number;
  /** Messages (`Touches` / `Judges` payloads) in the segment. */
  readonly touches: number;
  readonly judges: number;
  /** Touch frames and judge events in them. */
  readonly touch_items: number;
  readonly judge_items: number;
  readonly first_at: number;
  readonly last_at: number;
}

/**
 * Segments written in one go, as one journal record. Like a telemetry
 * bundle, a record of k segments takes k sequences: segment i (from 0) has
 * sequence S - k + 1 + i, S being the record's.
 */
export interface TelemetrySegmentsEntry {
  readonly t: "telemetry.segments";
  readonly segments: readonly TelemetrySegment[];
}
