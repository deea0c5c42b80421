/**
 * Projections of a {@link Room} onto protocol values: what clients, monitors
 * and the HTTP API see.
 *
 * @module
 */

import type {
  ClientRoomState,
  JoinRoomResponse,
  RoomData,
  RoomState,
  RoundData,
  StrippedRoomState,
  UserInfo,
} from "../protocol/mod.ts";
import type { Member, Room, RoundRecord } from "./types.ts";

/** Ids of everyone in the room: players in join order, then monitors (protocol.md §5.4 "-> room"). */
export function memberIds(room: Room): number[] {
  const ids = new Array<number>(room.players.length + room.monitors.length);
  let i = 0;
  for (const p of room.players) ids[i++] = p.id;
  for (const m of room.monitors) ids[i++] = m.id;
  return ids;
}

/** Ids of the room's monitors. */
export function monitorIds(room: Room): number[] {
  return room.monitors.map((m) => m.id);
}

/** The member with `id`, player or monitor. */
export function findMember(room: Room, id: number): Member | undefined {
  return room.players.find((p) => p.id === id) ?? room.monitors.find((m) => m.id === id);
}

/** Wire UserInfo of a member. */
export function userInfo(member: Member): UserInfo {
  return { id: member.id, name: member.name, monitor: member.monitor };
}

/** The client-visible state (protocol.md §3.1 `RoomState`). */
export function clientState(room: Room): RoomState {
  switch (room.phase.kind) {
    case "select":
      return { type: "SelectChart", chart: room.chart?.id ?? null };
    case "wait":
      return { type: "WaitingForReady" };
    case "play":
      return { type: "Playing" };
  }
}

/** The state without payload, for monitor data. */
export function strippedState(room: Room): StrippedRoomState {
  return room.phase.kind === "select" ? "SelectingChart" : room.phase.kind === "wait" ? "WaitingForReady" : "Playing";
}

/** Whether `id` counts as ready now (the host is ready while waiting). */
export function isReady(room: Room, id: number): boolean {
  return room.phase.kind === "wait" && room.phase.ready.includes(id);
}

/** `ClientRoomState` for `viewer`, sent on reconnect in `Authenticate(Ok)`. */
export function clientRoomState(room: Room, viewer: number): ClientRoomState {
  const users = new Map<number, UserInfo>();
  for (const p of room.players) users.set(p.id, userInfo(p));
  for (const m of room.monitors) users.set(m.id, userInfo(m));
  return {
    id: room.id,
    state: clientState(room),
    live: room.live,
    locked: room.locked,
    cycle: room.cycle,
    is_host: room.hostId === viewer,
    is_ready: isReady(room, viewer),
    users,
  };
}

/** `JoinRoomResponse`: players first in join order, then monitors, including the joiner. */
export function joinResponse(room: Room): JoinRoomResponse {
  return {
    state: clientState(room),
    users: [...room.players.map(userInfo), ...room.monitors.map(userInfo)],
    live: room.live,
  };
}

/** A settled round as protocol `RoundData`. */
export function roundData(round: RoundRecord): RoundData {
  return { chart: round.chart.id, records: [...round.records] };
}

/** Full `RoomData` for monitors and the HTTP API (users = players). */
export function roomData(room: Room): RoomData {
  return {
    host: room.hostId ?? -1,
    users: room.players.map((p) => p.id),
    lock: room.locked,
    cycle: room.cycle,
    chart: room.chart?.id ?? null,
    state: strippedState(room),
    rounds: room.rounds.map(roundData),
  };
}

/** Ids of players still playing (profile R `playing_users`). */
export function playingUsers(room: Room): number[] {
  const phase = room.phase;
  if (phase.kind !== "play") return [];
  return room.players
    .filter((p) => !phase.results.has(p.id) && !phase.aborted.includes(p.id) && !phase.late.includes(p.id))
    .map((p) => p.id);
}

/** The last `limit` items (none when `limit` <= 0). */
export function keepLast<T>(items: readonly T[], limit: number): T[] {
  return limit > 0 ? items.slice(-limit) : [];
}
