/**
 * Self-update (spec 3 §5.4, off by default): a release manifest named by
 * `update.manifest_url`, checks at start-up and every
 * `check_interval_secs`, one pending update shared by `update schedule`,
 * `apply`, `force` and automatic updates, applied after `min_idle_minutes`
 * without players; a resumable download verified (size, SHA-256) before the
 * executable is atomically replaced, the previous binary kept for rollback,
 * and a non-zero exit for the supervisor to start the new one.
 *
 * @module
 */

export { UpdateError, type UpdateErrorCode } from "./errors.ts";
export { MAX_ARTIFACT_BYTES, type Release, releaseFromManifest } from "./manifest.ts";
export { compareVersions, parseVersion } from "./version.ts";
export { downloadRelease, sha256File } from "./download.ts";
export { type ExecutableFiles, executableFiles, type UpdateMarker } from "./install.ts";
export { initialState, type PendingMode, step, type UpdateEvent, type UpdateState } from "./machine.ts";
export type { UpdateStatus } from "./status.ts";
export { EXIT_RESTART, TICK_MS, Updater, type UpdaterConfig, type UpdaterDeps } from "./updater.ts";
export { updateOps } from "./ops.ts";
