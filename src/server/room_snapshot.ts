/**
 * Snapshots of persistent rooms (spec 3 §2.1: "A persistent empty room
 * survives having no users and is restored on restart"). A snapshot keeps
 * what defines the room, not who is in it: members, the round in progress
 * and chat are not restored.
 *
 * @module
 */

import { type Room, roomData, SYSTEM_HOST } from "../room/mod.ts";
import type { ServerCore } from "./core.ts";

/** Stored form of a persistent room (JSON). */
export interface RoomSnapshot {
  readonly version: 1;
  readonly id: string;
  readonly uuid: string;
  readonly created_at: number;
  readonly locked: boolean;
  readonly cycle: boolean;
  readonly hidden: boolean;
  readonly live: boolean;
  readonly tournament: boolean;
  readonly max_players: number;
  readonly api_endpoint: string | null;
  readonly system_host: boolean;
  readonly chart: { readonly id: number; readonly name: string } | null;
  readonly bans: readonly { readonly user_id: number; readonly reason: string; readonly banned_at: number }[];
}

/** The snapshot of a room. */
export function snapshotOf(room: Room): RoomSnapshot {
  return {
    version: 1,
    id: room.id,
    uuid: room.uuid,
    created_at: room.createdAt,
    locked: room.locked,
    cycle: room.cycle,
    hidden: room.hidden,
    live: room.live,
    tournament: room.tournament,
    max_players: room.maxPlayers,
    api_endpoint: room.apiEndpoint,
    system_host: room.hostId === SYSTEM_HOST,
    chart: room.chart ? { id: room.chart.id, name: room.chart.name } : null,
    bans: room.bans,
  };
}

/** Why a stored value is not a usable snapshot, or null. */
export function snapshotProblem(value: unknown): string | null {
  if (typeof value !== "object" || value === null) return "not an object";
  const s = value as Partial<RoomSnapshot>;
  if (s.version !== 1) return `unknown snapshot version ${String(s.version)}`;
  if (typeof s.id !== "string" || typeof s.uuid !== "string") return "missing id or uuid";
  if (typeof s.max_players !== "number" || s.max_players < 1) return "invalid max_players";
  return null;
}

/** An empty persistent room rebuilt from its snapshot. */
export function roomFromSnapshot(s: RoomSnapshot): Room {
  return {
    id: s.id,
    uuid: s.uuid,
    createdAt: s.created_at,
    creatorId: null,
    hostId: s.system_host ? SYSTEM_HOST : null,
    players: [],
    monitors: [],
    locked: s.locked,
    cycle: s.cycle,
    live: s.live,
    hidden: s.hidden,
    maxPlayers: s.max_players,
    persistent: true,
    tournament: s.tournament,
    degraded: false,
    apiEndpoint: s.api_endpoint,
    bans: s.bans ?? [],
    chart: s.chart ? { ...s.chart, durationSecs: null } : null,
    phase: { kind: "select" },
    chat: [],
    rounds: [],
  };
}

/** Puts back a room restored from storage (a persistent room at startup); a room of that name already there wins. */
export function restoreRoom(core: ServerCore, room: Room): void {
  if (core.rooms.has(room.id)) return;
  core.rooms.set(room.id, room);
  core.roomsVersion++;
  core.ctx.bus.publish({
    kind: "room.created",
    room: room.id,
    uuid: room.uuid,
    hidden: room.hidden,
    by: null,
    data: roomData(room),
  });
}
