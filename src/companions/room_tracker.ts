/**
 * Rooms as the game server's log tells them (spec 2 §4.4 behaviour 2):
 * members in join order, host, state, cycle flag and chart, the user id ->
 * name map and the user id -> room map. Pure bookkeeping: events and their
 * times in, no I/O. Rooms nobody touched for `staleMs` are removed by
 * {@link RoomTracker.cleanup} (spec 2 §8: 1 hour, checked every 60 s).
 *
 * @module
 */

import type { LogEvent, TrackedState } from "./log_lines.ts";

/** One room. */
export interface TrackedRoom {
  readonly name: string;
  hostId: number | null;
  /** Player ids in join order. */
  users: number[];
  /** Epoch ms. */
  readonly createdAt: number;
  /** Epoch ms of the last event about the room. */
  lastActivity: number;
  state: TrackedState;
  cycle: boolean;
  lock: boolean;
  chart: number | null;
  chartName: string | null;
}

/** Most names remembered (the map is also written to `user_info.json`). */
export const MAX_NAMES = 1_000_000;

/** The tracker. */
export class RoomTracker {
  readonly rooms = new Map<string, TrackedRoom>();
  readonly userRoom = new Map<number, string>();
  readonly names = new Map<number, string>();
  /** Epoch ms of the last event applied, or null. */
  lastActivity: number | null = null;

  /** Seeds the name map (from `user_info.json` at start). */
  loadNames(names: ReadonlyMap<number, string>): void {
    for (const [id, name] of names) if (this.names.size < MAX_NAMES) this.names.set(id, name);
  }

  #room(name: string, at: number): TrackedRoom {
    let room = this.rooms.get(name);
    if (!room) {
      room = {
        name,
        hostId: null,
        users: [],
        createdAt: at,
        lastActivity: at,
        state: "selecting_chart",
        cycle: false,
        lock: false,
        chart: null,
        chartName: null,
      };
      this.rooms.set(name, room);
    }
    room.lastActivity = at;
    return room;
  }

  /** Records a name; true when the map changed. */
  #name(user: number, name: string | undefined): boolean {
    if (name === undefined || this.names.get(user) === name) return false;
    if (!this.names.has(user) && this.names.size >= MAX_NAMES) return false;
    this.names.set(user, name);
    return true;
  }

  #remove(user: number): void {
    const current = this.userRoom.get(user);
    if (current === undefined) return;
    const room = this.rooms.get(current);
    if (room) room.users = room.users.filter((u) => u !== user);
    this.userRoom.delete(user);
  }

  #add(room: TrackedRoom, user: number): void {
    if (this.userRoom.get(user) !== room.name) this.#remove(user);
    if (!room.users.includes(user)) room.users.push(user);
    this.userRoom.set(user, room.name);
  }

  /** Applies one event at time `at`; returns true when the name map changed. */
  apply(ev: LogEvent, at: number): boolean {
    this.lastActivity = at;
    switch (ev.t) {
      case "name":
        return this.#name(ev.user, ev.name);
      case "create": {
        const old = this.rooms.get(ev.room);
        if (old) this.#drop(old);
        const room = this.#room(ev.room, at);
        if (ev.user !== undefined) {
          room.hostId = ev.user;
          this.#add(room, ev.user);
          return this.#name(ev.user, ev.name);
        }
        return false;
      }
      case "join": {
        this.#add(this.#room(ev.room, at), ev.user);
        return this.#name(ev.user, ev.name);
      }
      case "leave": {
        const name = ev.room ?? this.userRoom.get(ev.user);
        const room = name === undefined ? undefined : this.rooms.get(name);
        if (room) {
          room.lastActivity = at;
          room.users = room.users.filter((u) => u !== ev.user);
        }
        if (this.userRoom.get(ev.user) === name) this.userRoom.delete(ev.user);
        return this.#name(ev.user, ev.name);
      }
      case "reset":
        this.rooms.clear();
        this.userRoom.clear();
        return false;
      case "delete": {
        const room = this.rooms.get(ev.room);
        if (room) this.#drop(room);
        return false;
      }
      default: {
        const user = "user" in ev ? ev.user : undefined;
        const name = ev.room ?? (user === undefined ? undefined : this.userRoom.get(user));
        if (name === undefined) return false;
        const room = this.#room(name, at);
        if (ev.t === "host") room.hostId = ev.user;
        else if (ev.t === "cycle") room.cycle = ev.cycle;
        else if (ev.t === "lock") room.lock = ev.lock;
        else if (ev.t === "chart") {
          room.chart = ev.chart;
          room.chartName = ev.chartName ?? null;
        } else if (ev.t === "state") {
          room.state = ev.state;
          if (ev.chart !== undefined) room.chart = ev.chart;
        }
        return false;
      }
    }
  }

  #drop(room: TrackedRoom): void {
    for (const u of room.users) if (this.userRoom.get(u) === room.name) this.userRoom.delete(u);
    this.rooms.delete(room.name);
  }

  /** Removes rooms idle for `staleMs` at `now`; returns their names. */
  cleanup(now: number, staleMs: number): string[] {
    const removed: string[] = [];
    for (const room of [...this.rooms.values()]) {
      if (now - room.lastActivity > staleMs) {
        this.#drop(room);
        removed.push(room.name);
      }
    }
    return removed;
  }

  /** Players in rooms. */
  get userCount(): number {
    let n = 0;
    for (const room of this.rooms.values()) n += room.users.length;
    return n;
  }
}
