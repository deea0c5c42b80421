/**
 * {@link RoomSource} over the room-monitor protocol (protocol.md §3.5): the
 * client of `src/client/` logs in with the key derived from the shared
 * secret, asks `QueryRoomInfo` for the snapshot, then turns pushed
 * `RoomEvent`s and `UserVisit`s into source events. It reconnects with
 * exponential back-off (1 s doubling to 30 s) on the injected clock.
 *
 * Snapshot and events are ordered exactly: while the `QueryRoomInfo` reply
 * is outstanding, pushed events describe changes the reply already holds
 * and are dropped; events that arrive after the reply but before the
 * snapshot is handed on are held and delivered after it. That relies on no
 * other request being in flight during a sync, so this source sends its own
 * pings (automatic pings off) and never during a sync.
 *
 * What the protocol lacks, and how it is made up (`docs/accounts.md`):
 * rooms are not announced as deleted -- when a room's last player leaves the
 * snapshot is fetched again; scores arrive with the finished round
 * (`NewRound`), not as each player finishes; `playing_users` is the room's
 * players while it plays. Only one room monitor may be connected to a game
 * server at a time (the server refuses a second).
 *
 * @module
 */

import { type ClientEvent, connect, type PhiraClient } from "../client/mod.ts";
import { partialRoomJson, recordJson, roomDataJson, roundJson } from "../http/json.ts";
import type { RoomData } from "../protocol/mod.ts";
import type { Clock, TimerHandle } from "../util/clock.ts";
import type { Logger } from "../util/log.ts";
import type { RoomSnapshotEntry, RoomSource, RoomSourceEvent } from "./room_source.ts";

/** Options of {@link MonitorRoomSource}. */
export interface MonitorSourceOptions {
  readonly host: string;
  readonly port: number;
  /** The 64-byte room-monitor key (`roomMonitorKey(secret)`). */
  readonly key: Uint8Array;
  readonly clock: Clock;
  readonly log: Logger;
  /** First reconnect delay, ms (default 1000); doubles up to `maxBackoffMs` (default 30,000). */
  readonly minBackoffMs?: number;
  readonly maxBackoffMs?: number;
  /** Interval of pings, ms (default 5000; the server drops silent sessions). */
  readonly pingIntervalMs?: number;
  /** Events held during a sync at most before the connection is restarted (default 10,000). */
  readonly maxHeld?: number;
}

type Phase = "idle" | "authenticating" | "syncing" | "live";

function entry(data: RoomData): RoomSnapshotEntry {
  return { data: roomDataJson(data), playing: data.state === "Playing" ? [...data.users] : [] };
}

/** Room state from a game server's room-monitor session. */
export class MonitorRoomSource implements RoomSource {
  readonly description: string;
  readonly #o: Required<MonitorSourceOptions>;
  #sink: (event: RoomSourceEvent) => void = () => {};
  #client: PhiraClient | null = null;
  #phase: Phase = "idle";
  #held: ClientEvent[] = [];
  /** Players per room, to notice a room's last player leaving. */
  #members = new Map<string, Set<number>>();
  #closed = false;
  #run: Promise<void> = Promise.resolve();
  #wake: (() => void) | null = null;
  #pingTimer: TimerHandle | undefined;
  #resyncTimer: TimerHandle | undefined;
  #busy: Promise<unknown> = Promise.resolve();

  constructor(o: MonitorSourceOptions) {
    this.#o = { minBackoffMs: 1000, maxBackoffMs: 30_000, pingIntervalMs: 5000, maxHeld: 10_000, ...o };
    this.description = `monitor ${o.host}:${o.port}`;
  }

  get connected(): boolean {
    return this.#phase === "live";
  }

  start(sink: (event: RoomSourceEvent) => void): void {
    this.#sink = sink;
    this.#run = this.#loop();
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#o.clock.clearTimeout(this.#pingTimer);
    this.#o.clock.clearTimeout(this.#resyncTimer);
    this.#wake?.();
    await this.#client?.close();
    await this.#run;
  }

  async #loop(): Promise<void> {
    let delay = this.#o.minBackoffMs;
    while (!this.#closed) {
      let reason = "";
      const wasLive = await this.#session().then(
        (live) => {
          reason = this.#client?.closeReason?.message ?? "connection closed";
          return live;
        },
        (error) => {
          reason = error instanceof Error ? error.message : String(error);
          return this.#phase === "live";
        },
      );
      this.#o.clock.clearTimeout(this.#pingTimer);
      this.#o.clock.clearTimeout(this.#resyncTimer);
      await this.#client?.close();
      this.#client = null;
      this.#phase = "idle";
      this.#held = [];
      this.#members.clear();
      if (this.#closed) break;
      if (wasLive) {
        delay = this.#o.minBackoffMs;
        this.#o.log.warn("game server link lost; reconnecting", { source: this.description, reason });
        this.#sink({ type: "disconnected", reason });
      } else {
        this.#o.log.warn("cannot reach the game server's room monitor", {
          source: this.description,
          reason,
          retry_ms: delay,
        });
      }
      await this.#sleep(delay);
      delay = Math.min(this.#o.maxBackoffMs, delay * 2);
    }
  }

  /** One connection; resolves with whether it went live, once it closes. */
  async #session(): Promise<boolean> {
    const client = await connect({
      host: this.#o.host,
      port: this.#o.port,
      clock: this.#o.clock,
      pingIntervalMs: 0,
      eventBufferLimit: 0,
      logLimit: 0,
      onEvent: (e) => this.#onEvent(e),
    });
    this.#client = client;
    if (this.#closed) return false;
    this.#phase = "authenticating";
    await client.roomMonitorAuthenticate(this.#o.key);
    await this.#sync(client);
    this.#o.log.info("game server link up", { source: this.description, rooms: this.#members.size });
    this.#schedulePing(client);
    await client.closed;
    return true;
  }

  /** Fetches the snapshot and hands it on, with the events that followed it. */
  async #sync(client: PhiraClient): Promise<void> {
    const query = client.queryRoomInfo();
    this.#phase = "syncing";
    const info = await query;
    const rooms = new Map<string, RoomSnapshotEntry>();
    this.#members.clear();
    for (const [name, data] of info.rooms) {
      rooms.set(name, entry(data));
      this.#members.set(name, new Set(data.users));
    }
    if (this.#closed) return;
    this.#sink({ type: "snapshot", rooms });
    const held = this.#held;
    this.#held = [];
    this.#phase = "live";
    for (const e of held) this.#deliver(e);
  }

  #onEvent(e: ClientEvent): void {
    if (this.#closed) return;
    if (this.#phase === "live") return this.#deliver(e);
    // Before the snapshot reply, the reply already reflects the event.
    if (this.#phase !== "syncing" || (this.#client?.stats.pending ?? 0) > 0) return;
    this.#held.push(e);
    if (this.#held.length > this.#o.maxHeld) void this.#client?.close();
  }

  #deliver(e: ClientEvent): void {
    const sink = this.#sink;
    if (e.type === "UserVisit") {
      if (e.user > 0) sink({ type: "visited", user: e.user });
      return;
    }
    if (e.type !== "RoomEvent") return;
    const ev = e.event;
    switch (ev.type) {
      case "CreateRoom":
        this.#members.set(ev.room, new Set(ev.data.users));
        sink({ type: "created", room: ev.room, creator: ev.data.host, data: roomDataJson(ev.data) });
        return;
      case "UpdateRoom":
        sink({ type: "updated", room: ev.room, changes: partialRoomJson(ev.data) });
        if (ev.data.state === "Playing") sink({ type: "round_started", room: ev.room, players: null });
        return;
      case "JoinRoom":
        this.#members.get(ev.room)?.add(ev.user);
        sink({ type: "joined", room: ev.room, user: ev.user });
        return;
      case "LeaveRoom": {
        const members = this.#members.get(ev.room);
        members?.delete(ev.user);
        sink({ type: "left", room: ev.room, user: ev.user });
        // No deletion event exists: ask again whether an emptied room still exists (persistent rooms do).
        if (members && members.size === 0) this.#scheduleResync();
        return;
      }
      case "NewRound":
        for (const record of ev.round.records) sink({ type: "scored", room: ev.room, record: recordJson(record) });
        sink({ type: "round_completed", room: ev.room, round: roundJson(ev.round) });
        return;
    }
  }

  #scheduleResync(): void {
    if (this.#resyncTimer) return;
    this.#resyncTimer = this.#o.clock.setTimeout(() => {
      this.#resyncTimer = undefined;
      const client = this.#client;
      if (!client || this.#phase !== "live") return;
      this.#busy = this.#busy.then(() => this.#sync(client)).catch(() => void client.close());
    }, 100);
  }

  #schedulePing(client: PhiraClient): void {
    this.#pingTimer = this.#o.clock.setTimeout(() => {
      if (this.#closed || client.isClosed) return;
      // Pings and syncs never overlap: a sync needs to be the only request in flight.
      this.#busy = this.#busy.then(() => client.ping()).catch(() => void client.close());
      this.#schedulePing(client);
    }, this.#o.pingIntervalMs);
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = this.#o.clock.setTimeout(() => {
        this.#wake = null;
        resolve();
      }, ms);
      this.#wake = () => {
        this.#o.clock.clearTimeout(timer);
        this.#wake = null;
        resolve();
      };
    });
  }
}
