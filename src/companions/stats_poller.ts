/**
 * `api` (spec 2 §4.4; port 5001): polls a room API every `interval_ms`
 * (spec 2 §8: 1 s; this project's profile R `/api/rooms/info` by default,
 * any URL configurable -- the original hard-coded its own server) and turns
 * the difference between two polls into records: rooms appearing and
 * going, users entering and leaving with their stay, rounds starting and
 * ending (a room in `PLAYING`), each player's play time in a round, and
 * online counts sampled every `sample_interval_secs`. `GET /users` answers
 * `{total_online_users}` from the last good poll.
 *
 * A server that is down or answers nonsense changes nothing: the poller
 * keeps what it knew, logs the outage once, retries with back-off (up to
 * 30 s) and logs the recovery. Polls never overlap.
 *
 * @module
 */

import { Hono } from "hono";
import type { Clock, TimerHandle } from "../util/clock.ts";
import type { Logger } from "../util/log.ts";
import { type CompanionEnv, json } from "./http_util.ts";
import { normalizeRooms, type PolledRoom } from "./room_shapes.ts";
import type { StatsStore } from "./stats_store.ts";

/** Settings (the configuration's `api` section). */
export interface PollerOptions {
  readonly url: string;
  readonly intervalMs: number;
  readonly timeoutMs: number;
  readonly sampleIntervalSecs: number;
  readonly retentionDays: number;
  readonly store: StatsStore;
  readonly clock: Clock;
  readonly log: Logger;
  readonly fetch?: typeof fetch;
}

/** Longest wait between polls while the server is down. */
const MAX_BACKOFF_MS = 30_000;

/** Largest room list body read. */
const MAX_BODY = 8 << 20;

interface OpenRoom {
  readonly roomId: number;
  readonly users: Map<number, { activityId: number; enteredAt: number }>;
  round: { roundId: number; lastTick: number; play: Map<number, number> } | null;
}

/** The poller and its HTTP face. */
export class StatsPoller {
  readonly app: Hono<CompanionEnv>;
  readonly #o: PollerOptions;
  readonly #rooms = new Map<string, OpenRoom>();
  #timer: TimerHandle | undefined;
  #running: Promise<void> | null = null;
  #stopped = true;
  #failures = 0;
  #lastOk: number | null = null;
  #lastError: string | null = null;
  #nextSample = 0;

  constructor(o: PollerOptions) {
    this.#o = o;
    this.app = new Hono<CompanionEnv>();
    this.app.get("/users", () => json({ total_online_users: this.onlineUsers() }));
    this.app.get("/status", () =>
      json({
        url: this.#o.url,
        ok: this.#failures === 0 && this.#lastOk !== null,
        last_success: this.#lastOk === null ? null : this.#lastOk / 1000,
        last_error: this.#lastError,
        rooms: this.#rooms.size,
        users: this.onlineUsers(),
      }));
  }

  /** Distinct users in rooms at the last good poll. */
  onlineUsers(): number {
    const all = new Set<number>();
    for (const r of this.#rooms.values()) for (const u of r.users.keys()) all.add(u);
    return all.size;
  }

  /** Closes what a crash left open, then polls on the clock. */
  async start(): Promise<void> {
    const closed = await this.#o.store.closeDangling(this.#o.clock.now());
    if (closed) this.#o.log.info("closed visits left open by an earlier run", { visits: closed });
    this.#stopped = false;
    this.#schedule(0);
  }

  /** Stops polling and closes every open visit, round and room at now. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#o.clock.clearTimeout(this.#timer);
    await this.#running;
    await this.apply([], this.#o.clock.now()).catch((error) =>
      this.#o.log.error("cannot close statistics records", { error: String(error) })
    );
  }

  #schedule(ms: number): void {
    if (this.#stopped) return;
    this.#timer = this.#o.clock.setTimeout(() => {
      this.#running = this.pollOnce().finally(() => {
        this.#running = null;
        const delay = this.#failures === 0
          ? this.#o.intervalMs
          : Math.min(MAX_BACKOFF_MS, this.#o.intervalMs * 2 ** Math.min(this.#failures - 1, 16));
        this.#schedule(delay);
      });
    }, ms);
  }

  async #fetchRooms(): Promise<PolledRoom[]> {
    const res = await (this.#o.fetch ?? fetch)(this.#o.url, {
      signal: AbortSignal.timeout(this.#o.timeoutMs),
      headers: { accept: "application/json" },
    });
    if (!res.ok) {
      await res.body?.cancel();
      throw new Error(`HTTP ${res.status}`);
    }
    const text = await res.text();
    if (text.length > MAX_BODY) throw new Error(`body over ${MAX_BODY} bytes`);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new Error("not JSON");
    }
    const rooms = normalizeRooms(body);
    if (!rooms) throw new Error("not a room list");
    return rooms;
  }

  /** One poll: fetch, then record the differences. Never throws. */
  async pollOnce(): Promise<void> {
    let rooms: PolledRoom[];
    try {
      rooms = await this.#fetchRooms();
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (this.#failures++ === 0) {
        this.#o.log.warn("room API not answering; keeping the last state and retrying", {
          url: this.#o.url,
          error: message,
        });
      }
      this.#lastError = message;
      return;
    }
    if (this.#failures > 0) {
      this.#o.log.info("room API answering again", { url: this.#o.url, failures: this.#failures });
    }
    this.#failures = 0;
    const now = this.#o.clock.now();
    this.#lastOk = now;
    try {
      await this.apply(rooms, now);
      if (now >= this.#nextSample) {
        this.#nextSample = now + this.#o.sampleIntervalSecs * 1000;
        await this.#o.store.sample(now, this.onlineUsers(), this.#rooms.size);
        await this.#o.store.prune(now - this.#o.retentionDays * 86_400_000);
      }
    } catch (error) {
      this.#lastError = `cannot record: ${error instanceof Error ? error.message : String(error)}`;
      this.#o.log.error("cannot record room statistics", { error: this.#lastError });
    }
  }

  /** Records the differences between what was open and `rooms` at `now`. */
  async apply(rooms: readonly PolledRoom[], now: number): Promise<void> {
    const store = this.#o.store;
    const seen = new Set<string>();
    for (const polled of rooms) {
      seen.add(polled.name);
      let open = this.#rooms.get(polled.name);
      if (!open) {
        open = { roomId: await store.openRoom(polled.name, polled.host, now), users: new Map(), round: null };
        this.#rooms.set(polled.name, open);
      }
      const present = new Set(polled.users);
      for (const [user, visit] of open.users) {
        if (present.has(user)) continue;
        await store.leave(visit.activityId, user, open.roomId, visit.enteredAt, now);
        open.users.delete(user);
      }
      for (const user of polled.users) {
        if (!open.users.has(user)) {
          open.users.set(user, { activityId: await store.enter(user, open.roomId, now), enteredAt: now });
        }
      }
      await this.#round(open, polled, now);
    }
    for (const [name, open] of this.#rooms) {
      if (seen.has(name)) continue;
      await this.#endRound(open, now);
      for (const [user, visit] of open.users) {
        await store.leave(visit.activityId, user, open.roomId, visit.enteredAt, now);
      }
      await store.closeRoom(open.roomId, now);
      this.#rooms.delete(name);
    }
  }

  async #round(open: OpenRoom, polled: PolledRoom, now: number): Promise<void> {
    if (polled.state !== "playing") {
      await this.#endRound(open, now);
      return;
    }
    if (!open.round) {
      const roundId = await this.#o.store.startRound(open.roomId, polled.chart, now);
      open.round = { roundId, lastTick: now, play: new Map() };
      return;
    }
    // Time since the last poll counts for whoever is still playing; a gap longer than two intervals (an outage)
    // counts as two, so a server that was unreachable does not inflate play time.
    const step = Math.min(now - open.round.lastTick, this.#o.intervalMs * 2);
    open.round.lastTick = now;
    for (const user of polled.playing ?? polled.users) {
      open.round.play.set(user, (open.round.play.get(user) ?? 0) + step);
    }
  }

  async #endRound(open: OpenRoom, now: number): Promise<void> {
    if (!open.round) return;
    const round = open.round;
    open.round = null;
    await this.#o.store.endRound(round.roundId, now, round.play);
  }
}
