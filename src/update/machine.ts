/**
 * The self-update state machine (spec 3 §5.4), pure: state + event + the
 * time and idle rule -> new state + effects. The updater performs the
 * effects (fetch the manifest, download, install, restart) and feeds their
 * outcomes back as events.
 *
 * One pending update at most, shared by `update schedule`, `update apply`,
 * `update force` and automatic updates: asking again changes nothing but
 * its urgency. It applies when due -- `force` at once; `apply` at once with
 * nobody online; `schedule` and auto after `min_idle_minutes` without
 * players -- and is checked against the manifest first when no release is
 * known yet.
 *
 * @module
 */

import type { UpdateErrorCode } from "./errors.ts";
import type { Release } from "./manifest.ts";
import { compareVersions } from "./version.ts";

/** What the updater is doing. */
export type Phase = "idle" | "checking" | "downloading" | "installing" | "restarting";

/** Why an update is pending, least urgent first. */
export type PendingMode = "auto" | "scheduled" | "apply" | "force";

const URGENCY: Record<PendingMode, number> = { auto: 0, scheduled: 1, apply: 2, force: 3 };

/** The one pending update. */
export interface Pending {
  readonly mode: PendingMode;
  /** The release to install; null until a check finds one. */
  readonly release: Release | null;
  /** Unix ms when it was first asked for. */
  readonly since: number;
}

/** Outcome of the last manifest check. */
export interface CheckOutcome {
  readonly at: number;
  readonly outcome: "newer" | "current" | "failed";
  /** The manifest's version, or why the check failed. */
  readonly detail: string;
}

/** The updater's state. */
export interface UpdateState {
  /** The running version. */
  readonly current: string;
  readonly auto: boolean;
  readonly phase: Phase;
  /** The manifest's release when it differs from the running version (newer, or anything for `force`). */
  readonly latest: Release | null;
  readonly pending: Pending | null;
  /** Unix ms since when no player is online; null while players are. */
  readonly idleSince: number | null;
  readonly lastCheck: CheckOutcome | null;
  readonly lastError: string | null;
}

/** What happens to the updater. */
export type UpdateEvent =
  | { readonly type: "check" }
  | { readonly type: "checked"; readonly release: Release }
  | { readonly type: "check_failed"; readonly error: string; readonly code: UpdateErrorCode }
  | { readonly type: "request"; readonly mode: Exclude<PendingMode, "auto"> }
  | { readonly type: "cancel" }
  | { readonly type: "auto"; readonly on: boolean }
  | { readonly type: "tick" }
  | { readonly type: "downloaded" }
  | { readonly type: "download_failed"; readonly error: string; readonly code: UpdateErrorCode }
  | { readonly type: "installed" }
  | { readonly type: "install_failed"; readonly error: string; readonly code: UpdateErrorCode };

/** What the updater must do. */
export type UpdateEffect =
  | { readonly kind: "fetch_manifest" }
  | { readonly kind: "download"; readonly release: Release }
  | { readonly kind: "abort_download" }
  | { readonly kind: "install"; readonly release: Release }
  | { readonly kind: "restart"; readonly release: Release }
  /** A pending update ended without installing (failed, refused or cancelled): callers waiting on it are told. */
  | { readonly kind: "settled"; readonly ok: false; readonly code: UpdateErrorCode; readonly reason: string }
  | { readonly kind: "log"; readonly level: "info" | "warn" | "error"; readonly message: string };

/** The environment of one step. */
export interface StepContext {
  /** Unix ms. */
  readonly now: number;
  /** Players online now (virtual benchmark sessions excluded). */
  readonly players: number;
  readonly minIdleMs: number;
}

/** The result of one step. */
export interface Step {
  readonly state: UpdateState;
  readonly effects: readonly UpdateEffect[];
}

/** The state of a freshly started updater. */
export function initialState(current: string, auto: boolean): UpdateState {
  return {
    current,
    auto,
    phase: "idle",
    latest: null,
    pending: null,
    idleSince: null,
    lastCheck: null,
    lastError: null,
  };
}

/** True when `release` is newer than the running version. */
function isNewer(state: UpdateState, release: Release): boolean {
  return compareVersions(release.version, state.current) > 0;
}

/** When the pending update may start now. */
function isDue(state: UpdateState, ctx: StepContext): boolean {
  const pending = state.pending;
  if (!pending?.release || state.phase !== "idle") return false;
  switch (pending.mode) {
    case "force":
      return true;
    case "apply":
      return ctx.players === 0;
    case "scheduled":
    case "auto":
      return ctx.players === 0 && state.idleSince !== null && ctx.now - state.idleSince >= ctx.minIdleMs;
  }
}

/** Starts what the pending update needs next: a check when its release is unknown, the download when due. */
function advance(state: UpdateState, ctx: StepContext, effects: UpdateEffect[]): UpdateState {
  if (state.phase !== "idle" || !state.pending) return state;
  if (!state.pending.release) {
    effects.push({ kind: "fetch_manifest" });
    return { ...state, phase: "checking" };
  }
  if (!isDue(state, ctx)) return state;
  const release = state.pending.release;
  effects.push({ kind: "log", level: "info", message: `update to ${release.version}: downloading` });
  effects.push({ kind: "download", release });
  return { ...state, phase: "downloading" };
}

/** Ends the pending update without installing it. */
function drop(state: UpdateState, code: UpdateErrorCode, reason: string, effects: UpdateEffect[]): UpdateState {
  if (state.pending) effects.push({ kind: "settled", ok: false, code, reason });
  return { ...state, pending: null };
}

/** One transition. */
export function step(state: UpdateState, event: UpdateEvent, ctx: StepContext): Step {
  const effects: UpdateEffect[] = [];
  // Idle time is observed at every event, so it counts from the moment the last player left.
  let s: UpdateState = ctx.players > 0
    ? (state.idleSince === null ? state : { ...state, idleSince: null })
    : (state.idleSince !== null ? state : { ...state, idleSince: ctx.now });
  switch (event.type) {
    case "check":
      if (s.phase === "idle") {
        effects.push({ kind: "fetch_manifest" });
        s = { ...s, phase: "checking" };
      }
      break;
    case "checked": {
      const release = event.release;
      const newer = isNewer(s, release);
      const differs = release.version !== s.current;
      s = {
        ...s,
        phase: s.phase === "checking" ? "idle" : s.phase,
        latest: differs ? release : null,
        lastCheck: { at: ctx.now, outcome: newer ? "newer" : "current", detail: release.version },
      };
      const pending = s.pending;
      // `force` installs whatever the manifest names (an operator rolling back by republishing an older one);
      // everything else only moves forward.
      const usable = pending?.mode === "force" ? differs : newer;
      if (pending && !usable) {
        s = drop(
          s,
          "REFUSED",
          `no newer release: the manifest names ${release.version}, this is ${s.current}`,
          effects,
        );
      } else if (pending) {
        s = { ...s, pending: { ...pending, release } };
      } else if (s.auto && newer) {
        s = { ...s, pending: { mode: "auto", release, since: ctx.now } };
        effects.push({ kind: "log", level: "info", message: `update ${release.version} found; applies when idle` });
      }
      break;
    }
    case "check_failed":
      s = {
        ...s,
        phase: s.phase === "checking" ? "idle" : s.phase,
        lastCheck: { at: ctx.now, outcome: "failed", detail: event.error },
        lastError: event.error,
      };
      effects.push({ kind: "log", level: "warn", message: `update check failed: ${event.error}` });
      // An operator's apply/force waits for an answer; a schedule or auto update waits for the next check.
      if (s.pending && !s.pending.release && (s.pending.mode === "apply" || s.pending.mode === "force")) {
        s = drop(s, event.code, `update check failed: ${event.error}`, effects);
      }
      break;
    case "request": {
      const pending = s.pending;
      if (pending && URGENCY[pending.mode] >= URGENCY[event.mode]) break; // idempotent
      const release = event.mode === "force" ? s.latest : (s.latest && isNewer(s, s.latest) ? s.latest : null);
      s = {
        ...s,
        pending: { mode: event.mode, release: pending?.release ?? release, since: pending?.since ?? ctx.now },
      };
      break;
    }
    case "cancel":
      if (s.phase === "installing" || s.phase === "restarting") break;
      if (s.phase === "downloading") {
        effects.push({ kind: "abort_download" });
        s = { ...s, phase: "idle" };
      }
      s = drop(s, "CANCELLED", "cancelled", effects);
      break;
    case "auto":
      s = { ...s, auto: event.on };
      if (event.on && !s.pending && s.latest && isNewer(s, s.latest)) {
        s = { ...s, pending: { mode: "auto", release: s.latest, since: ctx.now } };
      } else if (!event.on && s.pending?.mode === "auto" && s.phase !== "installing" && s.phase !== "restarting") {
        if (s.phase === "downloading") {
          effects.push({ kind: "abort_download" });
          s = { ...s, phase: "idle" };
        }
        s = drop(s, "CANCELLED", "automatic updates were turned off", effects);
      }
      break;
    case "tick":
      break;
    case "downloaded":
      if (s.phase === "downloading" && s.pending?.release) {
        effects.push({ kind: "install", release: s.pending.release });
        s = { ...s, phase: "installing" };
      }
      break;
    case "download_failed":
      if (s.phase !== "downloading") break;
      effects.push({ kind: "log", level: "error", message: `update download failed: ${event.error}` });
      // Dropped whatever its mode: an automatic update is found again by the next check, so a bad artifact is
      // fetched at most once per check interval; a truncated one resumes where it stopped.
      s = drop({ ...s, phase: "idle", lastError: event.error }, event.code, event.error, effects);
      break;
    case "installed":
      if (s.phase === "installing" && s.pending?.release) {
        effects.push({ kind: "restart", release: s.pending.release });
        s = { ...s, phase: "restarting" };
      }
      break;
    case "install_failed":
      if (s.phase !== "installing") break;
      effects.push({ kind: "log", level: "error", message: `update install failed: ${event.error}` });
      s = drop({ ...s, phase: "idle", lastError: event.error }, event.code, event.error, effects);
      break;
  }
  return { state: advance(s, ctx, effects), effects };
}
