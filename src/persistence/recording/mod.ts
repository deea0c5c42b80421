/**
 * Turning what happens into journal records (issue 5 "What is durable"):
 * domain events, touches and judges (as wire bytes, `../telemetry/`, with a per-round cap),
 * playtime, room snapshots, bans and the authentication cache.
 *
 * @module
 */

export { EventRecorder } from "./recorder.ts";
export type { EventRecorderOptions } from "./recorder.ts";
export { ROUND_TELEMETRY_MAX_BYTES, RoundTelemetryCap } from "./telemetry_cap.ts";
export type { CappedRound, TelemetryCapCounters } from "./telemetry_cap.ts";
export { SnapshotDebouncer } from "./snapshots.ts";
export { DurableBanList } from "./durable_bans.ts";
export { AuthCacheSync } from "./auth_sync.ts";
export { PlaytimeTracker } from "./playtime.ts";
export { Recording } from "./recording.ts";
export type { RecordingOptions } from "./recording.ts";
export { instanceEntry, loginEntry, revocationEntry } from "./entries.ts";
