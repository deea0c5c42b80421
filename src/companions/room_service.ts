/**
 * `room` (spec 2 §4.4; port 5000): rooms from the game server's log file.
 * Follows the log ({@link LogFollower}), applies each line's events to a
 * {@link RoomTracker}, writes the user id → name map to `user_info.json`
 * (`{"<id>": "<name>"}`, indent 2, as the original; atomically, at most
 * once a second), removes rooms idle for `stale_room_secs` every
 * `cleanup_interval_secs`, and answers `/rooms`, `/status`, `/health`,
 * `/users/total` with the original's bodies (peers §5.2) plus a few fields
 * the pages use.
 *
 * @module
 */

import { Hono } from "hono";
import { dirname } from "node:path";
import type { Clock, TimerHandle } from "../util/clock.ts";
import type { Logger } from "../util/log.ts";
import { type CompanionEnv, json } from "./http_util.ts";
import { LogFollower } from "./log_follower.ts";
import { parseLogLine, type TrackedState } from "./log_lines.ts";
import { readUserInfo } from "./players.ts";
import { RoomTracker, type TrackedRoom } from "./room_tracker.ts";

/** Settings of the service (the configuration's `room` section and the map's path). */
export interface RoomServiceOptions {
  readonly logPath: string;
  readonly userInfoPath: string;
  readonly fromStart: boolean;
  readonly pollMs: number;
  readonly staleRoomSecs: number;
  readonly cleanupIntervalSecs: number;
  readonly clock: Clock;
  readonly log: Logger;
}

/** The original's state texts (peers §5.2); `state_code` carries the precise state. */
const STATE_TEXT: Record<TrackedState, string> = {
  selecting_chart: "选谱中",
  waiting_for_ready: "进行中",
  playing: "进行中",
  unknown: "未知",
};

/** Delay between a name change and the write of `user_info.json`. */
const WRITE_DELAY_MS = 1000;

/** The running service. */
export class RoomService {
  readonly tracker = new RoomTracker();
  readonly app: Hono<CompanionEnv>;
  readonly #o: RoomServiceOptions;
  readonly #follower: LogFollower;
  #cleanupTimer: TimerHandle | undefined;
  #writeTimer: TimerHandle | undefined;
  #writing: Promise<void> = Promise.resolve();
  #dirty = false;
  #stopped = false;

  constructor(o: RoomServiceOptions) {
    this.#o = o;
    this.#follower = new LogFollower({
      path: o.logPath,
      clock: o.clock,
      log: o.log,
      pollMs: o.pollMs,
      fromStart: o.fromStart,
      onLine: (line) => this.ingest(line),
    });
    this.app = this.#routes();
  }

  /** Loads the saved names, then starts following the log and the cleanup timer. */
  async start(): Promise<void> {
    this.tracker.loadNames(await readUserInfo(this.#o.userInfoPath));
    this.#follower.start();
    this.#scheduleCleanup();
  }

  /** Stops, writing pending names first. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#o.clock.clearTimeout(this.#cleanupTimer);
    await this.#follower.stop();
    await this.flush();
  }

  /** Reads what the log gained (tests drive the follower through this). */
  poll(): Promise<void> {
    return this.#follower.poll();
  }

  /** Applies one log line. */
  ingest(line: string): void {
    const { at, events } = parseLogLine(line);
    const when = at ?? this.#o.clock.now();
    let named = false;
    for (const ev of events) named = this.tracker.apply(ev, when) || named;
    if (named) this.#nameChanged();
  }

  #scheduleCleanup(): void {
    if (this.#stopped) return;
    this.#cleanupTimer = this.#o.clock.setTimeout(() => {
      const removed = this.tracker.cleanup(this.#o.clock.now(), this.#o.staleRoomSecs * 1000);
      if (removed.length) this.#o.log.info("removed idle rooms", { rooms: removed.length });
      this.#scheduleCleanup();
    }, this.#o.cleanupIntervalSecs * 1000);
  }

  #nameChanged(): void {
    this.#dirty = true;
    if (this.#writeTimer === undefined) {
      this.#writeTimer = this.#o.clock.setTimeout(() => void this.flush(), WRITE_DELAY_MS);
    }
  }

  /** Writes `user_info.json` now if names changed. */
  flush(): Promise<void> {
    this.#o.clock.clearTimeout(this.#writeTimer);
    this.#writeTimer = undefined;
    this.#writing = this.#writing.then(async () => {
      if (!this.#dirty) return;
      this.#dirty = false;
      const obj: Record<string, string> = {};
      for (const [id, name] of this.tracker.names) obj[String(id)] = name;
      const path = this.#o.userInfoPath;
      const tmp = `${path}.tmp`;
      try {
        await Deno.mkdir(dirname(path), { recursive: true });
        await Deno.writeTextFile(tmp, JSON.stringify(obj, null, 2) + "\n");
        await Deno.rename(tmp, path);
      } catch (error) {
        this.#dirty = true;
        this.#o.log.error("cannot write user_info.json", { path, error: String(error) });
      }
    });
    return this.#writing;
  }

  #view(room: TrackedRoom): Record<string, unknown> {
    const names = this.tracker.names;
    return {
      name: room.name,
      host_id: room.hostId,
      host_name: room.hostId === null ? null : names.get(room.hostId) ?? null,
      user_count: room.users.length,
      user_names: room.users.map((u) => names.get(u) ?? String(u)),
      users: room.users.map((u) => ({ id: u, name: names.get(u) ?? null })),
      created_at: room.createdAt / 1000,
      last_activity: room.lastActivity / 1000,
      state: STATE_TEXT[room.state],
      state_code: room.state,
      cycle: room.cycle,
      lock: room.lock,
      chart: room.chart ?? "无",
      chart_id: room.chart,
      chart_name: room.chartName,
    };
  }

  #routes(): Hono<CompanionEnv> {
    const app = new Hono<CompanionEnv>();
    app.get("/rooms", () => json([...this.tracker.rooms.values()].map((r) => this.#view(r))));
    app.get("/status", () =>
      json({
        room_count: this.tracker.rooms.size,
        user_count: this.tracker.userCount,
        last_activity: this.tracker.lastActivity === null ? null : this.tracker.lastActivity / 1000,
        running: this.#follower.attached,
      }));
    app.get("/health", () => json({ status: "ok", timestamp: this.#o.clock.now() / 1000 }));
    app.get("/users/total", () => {
      const examples: string[] = [];
      for (const name of this.tracker.names.values()) {
        if (examples.length === 10) break;
        examples.push(name);
      }
      return json({ total_users: this.tracker.names.size, example_usernames: examples });
    });
    return app;
  }
}
