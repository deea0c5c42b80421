/**
 * Plain JSON views of rooms, users and rounds for operators: the console
 * renders them as text, OpenUDS returns them as response data (documented in
 * `docs/openuds.md`). Operators see hidden rooms too.
 *
 * @module
 */

import type { RecordData } from "../protocol/mod.ts";
import { type Room, type RoundRecord, strippedState, SYSTEM_HOST } from "../room/mod.ts";
import type { ServerCore, User } from "../server/mod.ts";
import type { StoredRound } from "./deps.ts";

/** One row of `rooms` / `room.list`. */
export interface RoomSummary {
  readonly room_id: string;
  readonly uuid: string;
  /** `SelectingChart`, `WaitingForReady` or `Playing`. */
  readonly state: string;
  /** Player id, -1 for the system host, null for none. */
  readonly host_id: number | null;
  readonly player_count: number;
  readonly monitor_count: number;
  readonly max_users: number;
  readonly locked: boolean;
  readonly cycle: boolean;
  readonly hidden: boolean;
  readonly persistent: boolean;
  readonly tournament: boolean;
  readonly live: boolean;
  readonly degraded: boolean;
  readonly chart_id: number | null;
  readonly chart_name: string | null;
}

/** A member in `room.info`. */
export interface MemberView {
  readonly id: number;
  readonly name: string;
  readonly online: boolean;
}

/** `room info` / `room.info`. */
export interface RoomInfo extends RoomSummary {
  readonly created_at: number;
  readonly creator_id: number | null;
  readonly system_host: boolean;
  readonly api_endpoint: string | null;
  readonly players: readonly (MemberView & { readonly ready: boolean; readonly finished: boolean })[];
  readonly monitors: readonly MemberView[];
  /** Uuid of the round being played, else null. */
  readonly round_id: string | null;
  readonly rounds_kept: number;
  readonly chat_kept: number;
  readonly bans: number;
}

/** A user as operators see them (`users`, `player.info`). */
export interface UserView {
  readonly user_id: number;
  readonly name: string;
  readonly language: string;
  readonly online: boolean;
  readonly room_id: string | null;
  readonly monitor: boolean;
  readonly category: string;
  /** Address of the current session, null while dangling. */
  readonly ip: string | null;
  readonly admin: boolean;
}

/** One result of a round (the `RecordData` fields, spec 3 §2.2, named for operators). */
export interface ResultView {
  readonly user_id: number;
  readonly user_name: string | null;
  readonly record_id: number;
  readonly score: number;
  readonly accuracy: number;
  readonly perfect: number;
  readonly good: number;
  readonly bad: number;
  readonly miss: number;
  readonly max_combo: number;
  readonly full_combo: boolean;
  readonly std: number;
}

/** A settled round (`room history`, `room round`). */
export interface RoundView {
  readonly round_id: string;
  readonly room_id: string;
  readonly chart_id: number;
  readonly chart_name: string;
  readonly started_at: number;
  readonly finished_at: number | null;
  readonly results: readonly ResultView[];
  readonly aborted: readonly number[];
}

/** The room list row. */
export function roomSummary(room: Room): RoomSummary {
  return {
    room_id: room.id,
    uuid: room.uuid,
    state: strippedState(room),
    host_id: room.hostId,
    player_count: room.players.length,
    monitor_count: room.monitors.length,
    max_users: room.maxPlayers,
    locked: room.locked,
    cycle: room.cycle,
    hidden: room.hidden,
    persistent: room.persistent,
    tournament: room.tournament,
    live: room.live,
    degraded: room.degraded,
    chart_id: room.chart?.id ?? null,
    chart_name: room.chart?.name ?? null,
  };
}

/** Everything about one room. */
export function roomInfo(core: ServerCore, room: Room): RoomInfo {
  const phase = room.phase;
  const online = (id: number) => (core.users.get(id)?.session ?? null) !== null;
  return {
    ...roomSummary(room),
    created_at: room.createdAt,
    creator_id: room.creatorId,
    system_host: room.hostId === SYSTEM_HOST,
    api_endpoint: room.apiEndpoint,
    players: room.players.map((p) => ({
      id: p.id,
      name: p.name,
      online: online(p.id),
      ready: phase.kind === "wait" && phase.ready.includes(p.id),
      finished: phase.kind === "play" && (phase.results.has(p.id) || phase.aborted.includes(p.id)),
    })),
    monitors: room.monitors.map((m) => ({ id: m.id, name: m.name, online: online(m.id) })),
    round_id: phase.kind === "play" ? phase.round : null,
    rounds_kept: room.rounds.length,
    chat_kept: room.chat.length,
    bans: room.bans.length,
  };
}

/** A known user. */
export function userView(core: ServerCore, user: User): UserView {
  return {
    user_id: user.id,
    name: user.name,
    language: user.language,
    online: user.session !== null,
    room_id: user.roomId,
    monitor: user.monitor,
    category: user.category,
    ip: user.session?.ip ?? null,
    admin: core.adminIds.has(user.id),
  };
}

function resultView(r: RecordData, nameOf: (id: number) => string | null): ResultView {
  return {
    user_id: r.player,
    user_name: nameOf(r.player),
    record_id: r.id,
    score: r.score,
    accuracy: r.accuracy,
    perfect: r.perfect,
    good: r.good,
    bad: r.bad,
    miss: r.miss,
    max_combo: r.max_combo,
    full_combo: r.full_combo,
    std: r.std,
  };
}

/** Resolves display names from the room's members and known users. */
export function nameResolver(core: ServerCore, room?: Room): (id: number) => string | null {
  return (id) =>
    room?.players.find((p) => p.id === id)?.name ?? room?.monitors.find((m) => m.id === id)?.name ??
      core.users.get(id)?.name ?? null;
}

/** A round kept in the room's memory. */
export function memoryRound(core: ServerCore, room: Room, round: RoundRecord): RoundView {
  const nameOf = nameResolver(core, room);
  return {
    round_id: round.uuid,
    room_id: room.id,
    chart_id: round.chart.id,
    chart_name: round.chart.name,
    started_at: round.startedAt,
    finished_at: round.finishedAt,
    results: [...round.records].sort((a, b) => b.score - a.score).map((r) => resultView(r, nameOf)),
    aborted: round.aborted,
  };
}

/** A round from the durable store with its results. */
export function storedRound(core: ServerCore, round: StoredRound, records: readonly RecordData[]): RoundView {
  const nameOf = nameResolver(core, core.rooms.get(round.room_id));
  return {
    round_id: round.round_uuid,
    room_id: round.room_id,
    chart_id: round.chart_id,
    chart_name: round.chart_name,
    started_at: round.started_at,
    finished_at: round.finished_at,
    results: [...records].sort((a, b) => b.score - a.score).map((r) => resultView(r, nameOf)),
    aborted: round.aborted,
  };
}

/** A room ban (`room.banlist`). */
export type RoomBan = Room["bans"][number];
