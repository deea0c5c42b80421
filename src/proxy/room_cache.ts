/**
 * The proxy's picture of the game server's rooms (spec 1 §2.1): the last
 * `QueryRoomInfo` answer with every pushed `RoomEvent` applied since, so
 * REST answers and the `/rooms/listen` snapshot are current between
 * queries (extended.md §10 item 7: freshness comes from pushes plus
 * on-demand queries). Pure: no I/O, no timers.
 *
 * Each change yields the room-stream events (spec 1 §6, profile P) that tell
 * a browser about it. A pushed event is relayed as the server sent it; a
 * fresh query is reconciled with the picture and yields the difference, so
 * a server that skipped an event (or a change during a lost push) still
 * reaches every subscriber.
 *
 * @module
 */

import { partialRoomJson, type RoomDataJson, roomDataJson, roundJson } from "../http/json.ts";
import type { PartialRoomData, RoomData, RoomEvent, RoundData } from "../protocol/mod.ts";

/** Names of the room-stream events of profile P (spec 1 §6). */
export type RoomStreamEventName = "create_room" | "update_room" | "join_room" | "leave_room" | "new_round";

/** One room-stream event: its name and JSON payload (spec 1 §2.3). */
export interface RoomStreamEvent {
  readonly name: RoomStreamEventName;
  readonly data: Readonly<Record<string, unknown>>;
}

/** `RoomInfoResponse` (spec 1 §2.1). */
export interface RoomInfoJson {
  readonly name: string;
  readonly data: RoomDataJson;
}

/** `RoomListResponse` (spec 1 §2.1, profile P). */
export interface RoomListJson {
  readonly total: number;
  readonly rooms: RoomInfoJson[];
}

interface CachedRoom {
  host: number;
  users: number[];
  lock: boolean;
  cycle: boolean;
  chart: number | null;
  state: RoomData["state"];
  rounds: RoundData[];
}

/** Rooms by id and the room of each player. */
export class RoomCache {
  readonly #rooms = new Map<string, CachedRoom>();
  readonly #userRoom = new Map<number, string>();

  /** Number of rooms. */
  get size(): number {
    return this.#rooms.size;
  }

  /** Forgets everything (the link to the game server was lost). */
  clear(): void {
    this.#rooms.clear();
    this.#userRoom.clear();
  }

  /** Applies one pushed event; returns the events to relay (the event itself, as JSON). */
  apply(event: RoomEvent): RoomStreamEvent[] {
    switch (event.type) {
      case "CreateRoom":
        this.#put(event.room, event.data);
        return [{ name: "create_room", data: { room: event.room, data: roomDataJson(event.data) } }];
      case "UpdateRoom": {
        const room = this.#rooms.get(event.room);
        if (room) patch(room, event.data);
        return [{ name: "update_room", data: { room: event.room, data: partialRoomJson(event.data) } }];
      }
      case "JoinRoom":
        this.#join(event.room, event.user);
        return [{ name: "join_room", data: { room: event.room, user: event.user } }];
      case "LeaveRoom":
        this.#leave(event.room, event.user);
        return [{ name: "leave_room", data: { room: event.room, user: event.user } }];
      case "NewRound":
        this.#rooms.get(event.room)?.rounds.push(event.round);
        return [{ name: "new_round", data: { room: event.room, round: roundJson(event.round) } }];
    }
  }

  /**
   * Replaces the picture with a `QueryRoomInfo` answer and returns what
   * changed as room-stream events (usually nothing: pushes kept it current).
   */
  replace(rooms: ReadonlyMap<string, RoomData>): RoomStreamEvent[] {
    const out: RoomStreamEvent[] = [];
    for (const [id, old] of this.#rooms) {
      if (rooms.has(id)) continue;
      // No event says "room gone": each member leaving does (an empty room no longer exists).
      for (const user of old.users) out.push({ name: "leave_room", data: { room: id, user } });
    }
    for (const [id, next] of rooms) {
      const old = this.#rooms.get(id);
      if (!old) {
        out.push({ name: "create_room", data: { room: id, data: roomDataJson(next) } });
        continue;
      }
      const changed = difference(old, next);
      if (changed) out.push({ name: "update_room", data: { room: id, data: partialRoomJson(changed) } });
      for (const user of old.users) {
        if (!next.users.includes(user)) out.push({ name: "leave_room", data: { room: id, user } });
      }
      for (const user of next.users) {
        if (!old.users.includes(user)) out.push({ name: "join_room", data: { room: id, user } });
      }
      for (const round of next.rounds.slice(old.rounds.length)) {
        out.push({ name: "new_round", data: { room: id, round: roundJson(round) } });
      }
    }
    this.clear();
    for (const [id, data] of rooms) this.#put(id, data);
    return out;
  }

  /** One `create_room` per room: what a new `/rooms/listen` subscriber gets first (spec 1 §3). */
  snapshot(): RoomStreamEvent[] {
    return [...this.#rooms].map(([id, room]) => ({ name: "create_room", data: { room: id, data: json(room) } }));
  }

  /** `RoomListResponse`. */
  list(): RoomListJson {
    const rooms = [...this.#rooms].map(([name, room]) => ({ name, data: json(room) }));
    return { total: rooms.length, rooms };
  }

  /** `RoomInfoResponse` of room `id`, or null. */
  get(id: string): RoomInfoJson | null {
    const room = this.#rooms.get(id);
    return room ? { name: id, data: json(room) } : null;
  }

  /** `RoomInfoResponse` of the room `user` is in, or null. */
  ofUser(user: number): RoomInfoJson | null {
    const id = this.#userRoom.get(user);
    return id === undefined ? null : this.get(id);
  }

  #put(id: string, data: RoomData): void {
    const old = this.#rooms.get(id);
    if (old) { for (const u of old.users) this.#forgetUser(u, id); }
    this.#rooms.set(id, {
      host: data.host,
      users: [...data.users],
      lock: data.lock,
      cycle: data.cycle,
      chart: data.chart,
      state: data.state,
      rounds: [...data.rounds],
    });
    for (const u of data.users) this.#userRoom.set(u, id);
  }

  #join(id: string, user: number): void {
    const room = this.#rooms.get(id);
    if (!room) return;
    const previous = this.#userRoom.get(user);
    if (previous !== undefined && previous !== id) this.#leave(previous, user);
    if (!room.users.includes(user)) room.users.push(user);
    this.#userRoom.set(user, id);
  }

  #leave(id: string, user: number): void {
    const room = this.#rooms.get(id);
    this.#forgetUser(user, id);
    if (!room) return;
    room.users = room.users.filter((u) => u !== user);
    // A room without players is gone on the game server (monitors do not keep it).
    if (room.users.length === 0) this.#rooms.delete(id);
  }

  #forgetUser(user: number, id: string): void {
    if (this.#userRoom.get(user) === id) this.#userRoom.delete(user);
  }
}

function json(room: CachedRoom): RoomDataJson {
  return roomDataJson(room);
}

function patch(room: CachedRoom, p: PartialRoomData): void {
  if (p.host !== null) room.host = p.host;
  if (p.lock !== null) room.lock = p.lock;
  if (p.cycle !== null) room.cycle = p.cycle;
  if (p.chart !== null) room.chart = p.chart;
  if (p.state !== null) room.state = p.state;
}

/**
 * The scalar fields that differ, or null. A chart that became "none" cannot
 * be said in a partial (null means unchanged there); the `create_room`
 * snapshot of the next subscriber carries it.
 */
function difference(old: CachedRoom, next: RoomData): PartialRoomData | null {
  const p: PartialRoomData = {
    host: old.host === next.host ? null : next.host,
    lock: old.lock === next.lock ? null : next.lock,
    cycle: old.cycle === next.cycle ? null : next.cycle,
    chart: old.chart === next.chart ? null : next.chart,
    state: old.state === next.state ? null : next.state,
  };
  return Object.values(p).some((v) => v !== null) ? p : null;
}
