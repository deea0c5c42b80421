/**
 * What the admin panel shows (spec 2 §4.2, issue 13): the JSON of
 * `GET /admin/api/state`, built from the answers of the operations the
 * route calls (`server.status`, `server.stats`, `runtime.persistence`,
 * `room.list`, `users.list`, `player.banlist`) and the readiness probe.
 * Pure: the route does the calls, this renders them. One answer carries
 * everything, so the panel's 5 s refresh is one request.
 *
 * Nothing secret is rendered: no password, token or address; a store
 * error's text has any credentials of a URL in it masked.
 *
 * @module
 */

import type { RoomInfo, UserView } from "../ops/mod.ts";
import type { StrippedRoomState } from "../protocol/mod.ts";
import type { UserBan } from "../server/mod.ts";
import type { HealthStatus } from "./context.ts";
import { STATE_JSON, type StateJson } from "./json.ts";

/** Longest store error text the panel gets. */
const MAX_ERROR_CHARS = 300;

/** The answers the state is built from. */
export interface AdminStateSources {
  readonly serverName: string;
  /** `server.status`. */
  readonly status: {
    readonly version: string;
    readonly shutting_down: boolean;
    readonly room_creation_enabled: boolean;
    readonly connections_enabled: boolean;
  };
  /** `server.stats`. */
  readonly stats: { readonly uptime_secs: number; readonly active_rooms: number; readonly active_sessions: number };
  /** `runtime.persistence`: `{enabled: false, ...}` without a store, else the store's report (or `{enabled, error}`). */
  readonly persistence: Readonly<Record<string, unknown>>;
  readonly health: HealthStatus;
  /** `room.list` with `detail`. */
  readonly rooms: readonly RoomInfo[];
  /** `users.list`. */
  readonly users: readonly UserView[];
  /** `player.banlist`. */
  readonly bans: readonly UserBan[];
}

/** The durable store as the panel shows it. */
export type StoreView =
  | { readonly enabled: false }
  | {
    readonly enabled: true;
    /** `postgres`, `sqlite`, or null when unknown. */
    readonly backend: string | null;
    readonly up: boolean;
    /** `memory`: the queue keeps up; `journal`: records are read back from the journal files. */
    readonly mode: string | null;
    /** Journaled records not yet in the store. */
    readonly pending: number;
    readonly dead_letters: number;
    readonly last_error: string | null;
  };

/** A room row of the panel. */
export interface AdminRoomView {
  readonly name: string;
  readonly hidden: boolean;
  /** The JSON API's state (`SELECTING_CHART`, ...); the page turns it into words. */
  readonly state: StateJson;
  readonly locked: boolean;
  readonly cycle: boolean;
  /** Player id; -1 for the system host or none. */
  readonly host: number;
  readonly player_count: number;
  readonly max_users: number;
  readonly persistent: boolean;
  readonly tournament: boolean;
  readonly live: boolean;
  /** The selected chart, or null. */
  readonly chart: { readonly id: number; readonly name: string | null } | null;
  readonly players: readonly { id: number; name: string; online: boolean; ready: boolean }[];
  readonly monitors: readonly { id: number; name: string; online: boolean }[];
}

/** An online player row of the panel. */
export interface AdminPlayerView {
  readonly id: number;
  readonly name: string;
  /** The room they are in, or null (in the lobby). */
  readonly room: string | null;
  /** True when they watch their room as a monitor. */
  readonly monitor: boolean;
  readonly language: string;
  /** True when their id is in the admin list. */
  readonly admin: boolean;
}

/** The server status block of the panel. */
export interface AdminStatusView {
  readonly version: string;
  readonly uptime_secs: number;
  readonly players_online: number;
  readonly rooms: number;
  /** Open game connections (players, monitors, consoles, logins under way). */
  readonly sessions: number;
  readonly shutting_down: boolean;
  readonly connections_enabled: boolean;
  readonly room_creation_enabled: boolean;
  /** `/health/ready`'s verdict and its reasons. */
  readonly ready: boolean;
  readonly issues: readonly string[];
  readonly store: StoreView;
}

/** The `GET /admin/api/state` body. */
export interface AdminStateView {
  readonly server_name: string;
  /** Same as `status.players_online` (kept for scripts written against the first panel). */
  readonly player_count: number;
  readonly status: AdminStatusView;
  readonly players: readonly AdminPlayerView[];
  readonly rooms: readonly AdminRoomView[];
  readonly bans: readonly { readonly user_id: number; readonly reason: string; readonly banned_at: number }[];
}

/** Masks the password of any `scheme://user:password@` in `text`, and shortens it. */
export function maskCredentials(text: string): string {
  const masked = text.replace(/([a-z][a-z0-9+.-]*:\/\/[^\s:/@]*:)[^\s@]*@/gi, "$1***@");
  return masked.length > MAX_ERROR_CHARS ? `${masked.slice(0, MAX_ERROR_CHARS - 1)}\u2026` : masked;
}

/** The `runtime.persistence` report as the panel shows it. */
export function storeView(report: Readonly<Record<string, unknown>>): StoreView {
  if (report.enabled !== true) return { enabled: false };
  const error = typeof report.error === "string" ? report.error : null;
  const last = typeof report.last_error === "string" ? report.last_error : null;
  const text = error ?? last;
  return {
    enabled: true,
    backend: typeof report.backend === "string" ? report.backend : null,
    up: error === null && report.store_up === true,
    mode: typeof report.mode === "string" ? report.mode : null,
    pending: typeof report.pending === "number" ? report.pending : 0,
    dead_letters: typeof report.dead_letters === "number" ? report.dead_letters : 0,
    last_error: text === null ? null : maskCredentials(text),
  };
}

/** A room as the panel shows it (from the `room.list` detail view). */
export function adminRoomView(room: RoomInfo): AdminRoomView {
  return {
    name: room.room_id,
    hidden: room.hidden,
    state: STATE_JSON[room.state as StrippedRoomState],
    locked: room.locked,
    cycle: room.cycle,
    host: room.host_id ?? -1,
    player_count: room.player_count,
    max_users: room.max_users,
    persistent: room.persistent,
    tournament: room.tournament,
    live: room.live,
    chart: room.chart_id === null ? null : { id: room.chart_id, name: room.chart_name },
    players: room.players.map((p) => ({ id: p.id, name: p.name, online: p.online, ready: p.ready })),
    monitors: room.monitors.map((m) => ({ id: m.id, name: m.name, online: m.online })),
  };
}

/** Renders the `GET /admin/api/state` body. */
export function adminState(s: AdminStateSources): AdminStateView {
  // Players: online users of the normal category (game monitors and consoles are not players).
  const players: AdminPlayerView[] = s.users.filter((u) => u.category === "normal").map((u) => ({
    id: u.user_id,
    name: u.name,
    room: u.room_id,
    monitor: u.monitor,
    language: u.language,
    admin: u.admin,
  }));
  return {
    server_name: s.serverName,
    player_count: players.length,
    status: {
      version: s.status.version,
      uptime_secs: s.stats.uptime_secs,
      players_online: players.length,
      rooms: s.stats.active_rooms,
      sessions: s.stats.active_sessions,
      shutting_down: s.status.shutting_down,
      connections_enabled: s.status.connections_enabled,
      room_creation_enabled: s.status.room_creation_enabled,
      ready: s.health.ready,
      issues: [...s.health.issues],
      store: storeView(s.persistence),
    },
    players,
    rooms: s.rooms.map(adminRoomView),
    bans: s.bans.map((b) => ({ user_id: b.user_id, reason: b.reason, banned_at: b.banned_at })),
  };
}
