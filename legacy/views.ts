/**
 * Users and rooms as Lua plugins, the legacy HTTP API and the legacy console
 * see them: plain tables with their fields (the original host handed out
 * opaque userdata where `user.id` raised an error although its own
 * documentation and plugins used it; peers note §2.3).
 *
 * @module
 */

import { type Room, SYSTEM_HOST } from "../src/room/mod.ts";
import type { ServerCore, User } from "../src/server/mod.ts";

/** A user as a Lua table. */
export interface LuaUser {
  readonly id: number;
  readonly name: string;
  readonly language: string;
  /** The room the user is in, or null. */
  readonly room_id: string | null;
  readonly monitor: boolean;
  readonly online: boolean;
  readonly is_host: boolean;
  /** Address of the connection, null while disconnected. */
  readonly ip: string | null;
}

/** A room member as a Lua table. */
export interface LuaMember {
  readonly id: number;
  readonly name: string;
  readonly monitor: boolean;
  readonly is_host: boolean;
  readonly online: boolean;
  readonly ready: boolean;
  readonly finished: boolean;
}

/** A room as a Lua table. */
export interface LuaRoom {
  readonly id: string;
  /** The room id again (rooms are named by their id; the original's `name`). */
  readonly name: string;
  readonly uuid: string;
  /** Host player id; -1 = the system hosts; null = none. */
  readonly host_id: number | null;
  /** The original's `get_room_owner_id`: the host. */
  readonly owner_id: number | null;
  readonly max_users: number;
  readonly user_count: number;
  readonly monitor_count: number;
  readonly user_ids: readonly number[];
  readonly monitor_ids: readonly number[];
  readonly users: readonly LuaMember[];
  /** `select_chart`, `waiting_for_ready` or `playing`. */
  readonly state: "select_chart" | "waiting_for_ready" | "playing";
  readonly locked: boolean;
  readonly cycle: boolean;
  readonly live: boolean;
  readonly hidden: boolean;
  readonly chart_id: number | null;
  readonly chart_name: string | null;
}

/** The legacy state name of a room (tphira's `/room` `state`). */
export function stateName(room: Room): LuaRoom["state"] {
  return room.phase.kind === "select" ? "select_chart" : room.phase.kind === "wait" ? "waiting_for_ready" : "playing";
}

/** A known user (online or dangling in a room). */
export function luaUser(core: ServerCore, user: User): LuaUser {
  const room = user.roomId ? core.rooms.get(user.roomId) : undefined;
  return {
    id: user.id,
    name: user.name,
    language: user.language,
    room_id: room ? room.id : null,
    monitor: user.monitor,
    online: user.session !== null,
    is_host: room?.hostId === user.id,
    ip: user.session?.ip ?? null,
  };
}

/** A user known only by id (offline): what a hook still gets. */
export function luaUserById(core: ServerCore, id: number, name?: string): LuaUser {
  const user = core.users.get(id);
  if (user) return luaUser(core, user);
  return { id, name: name ?? "", language: "", room_id: null, monitor: false, online: false, is_host: false, ip: null };
}

/** A room. */
export function luaRoom(core: ServerCore, room: Room): LuaRoom {
  const phase = room.phase;
  const member = (m: { id: number; name: string; monitor: boolean }): LuaMember => ({
    id: m.id,
    name: m.name,
    monitor: m.monitor,
    is_host: room.hostId === m.id,
    online: (core.users.get(m.id)?.session ?? null) !== null,
    ready: phase.kind === "wait" && phase.ready.includes(m.id),
    finished: phase.kind === "play" && (phase.results.has(m.id) || phase.aborted.includes(m.id)),
  });
  return {
    id: room.id,
    name: room.id,
    uuid: room.uuid,
    host_id: room.hostId === SYSTEM_HOST ? -1 : room.hostId,
    owner_id: room.hostId === SYSTEM_HOST ? -1 : room.hostId,
    max_users: room.maxPlayers,
    user_count: room.players.length,
    monitor_count: room.monitors.length,
    user_ids: room.players.map((p) => p.id),
    monitor_ids: room.monitors.map((m) => m.id),
    users: [...room.players, ...room.monitors].map(member),
    state: stateName(room),
    locked: room.locked,
    cycle: room.cycle,
    live: room.live,
    hidden: room.hidden,
    chart_id: room.chart?.id ?? null,
    chart_name: room.chart?.name ?? null,
  };
}

/** A room that is gone, as a hook still gets it (id and uuid). */
export function goneRoom(id: string, uuid: string): LuaRoom {
  return {
    id,
    name: id,
    uuid,
    host_id: null,
    owner_id: null,
    max_users: 0,
    user_count: 0,
    monitor_count: 0,
    user_ids: [],
    monitor_ids: [],
    users: [],
    state: "select_chart",
    locked: false,
    cycle: false,
    live: false,
    hidden: false,
    chart_id: null,
    chart_name: null,
  };
}
