/**
 * What `update status` (and every other `update ...` command) shows: the
 * running and newest versions, the pending update and what it waits for,
 * the last check, the last error and the notice of the update that led to
 * this process. Plain JSON.
 *
 * @module
 */

import type { UpdateMarker } from "./install.ts";
import type { UpdateState } from "./machine.ts";

/** The `update status` answer. */
export interface UpdateStatus {
  readonly version: string;
  readonly auto: boolean;
  readonly phase: string;
  readonly source: string | null;
  /** The binary that an update replaces; null when running from source. */
  readonly executable: string | null;
  readonly platform: string;
  readonly latest: { readonly version: string; readonly size: number; readonly url: string } | null;
  readonly pending: {
    readonly mode: string;
    readonly version: string | null;
    /** Unix ms. */
    readonly since: number;
    /** What it waits for, in words. */
    readonly waiting_for: string;
  } | null;
  readonly players: number;
  readonly min_idle_minutes: number;
  /** Unix ms since when nobody is online, null while players are. */
  readonly idle_since: number | null;
  readonly last_check: { readonly at: number; readonly outcome: string; readonly detail: string } | null;
  readonly next_check_at: number | null;
  readonly last_error: string | null;
  /** What the previous process did (update or rollback), shown once at start and kept here. */
  readonly last_update: UpdateMarker | null;
}

/** What {@link describeStatus} reads. */
export interface StatusInput {
  readonly state: UpdateState;
  readonly config: { readonly manifest_url: string | null; readonly min_idle_minutes: number };
  readonly executable: string | null;
  readonly platform: string;
  readonly players: number;
  readonly nextCheckAt: number | null;
  readonly notice: UpdateMarker | null;
}

function waitingFor(input: StatusInput): string {
  const { state, players, config } = input;
  const pending = state.pending!;
  if (state.phase !== "idle") return state.phase;
  if (!pending.release) return "the manifest check";
  if (pending.mode === "force") return "nothing";
  if (players > 0) return `${players} player${players === 1 ? "" : "s"} to leave`;
  if (pending.mode === "apply") return "nothing";
  return `${config.min_idle_minutes} idle minute${config.min_idle_minutes === 1 ? "" : "s"}`;
}

/** The status as JSON. */
export function describeStatus(input: StatusInput): UpdateStatus {
  const { state } = input;
  return {
    version: state.current,
    auto: state.auto,
    phase: state.phase,
    source: input.config.manifest_url,
    executable: input.executable,
    platform: input.platform,
    latest: state.latest ? { version: state.latest.version, size: state.latest.size, url: state.latest.url } : null,
    pending: state.pending
      ? {
        mode: state.pending.mode,
        version: state.pending.release?.version ?? null,
        since: state.pending.since,
        waiting_for: waitingFor(input),
      }
      : null,
    players: input.players,
    min_idle_minutes: input.config.min_idle_minutes,
    idle_since: state.idleSince,
    last_check: state.lastCheck,
    next_check_at: input.nextCheckAt,
    last_error: state.lastError,
    last_update: input.notice,
  };
}
