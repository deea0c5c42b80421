/**
 * Operations shared by the console commands and the OpenUDS commands that
 * are more than one call into the server: configuration check and reload
 * (runtime switches keep their values, spec 3 §2.3), the `runtime` report,
 * round and visit history from the durable store or from memory.
 *
 * @module
 */

import denoConfig from "../../deno.json" with { type: "json" };
import { changedKeys, ConfigError, type LoadedConfig, renderEffectiveConfig } from "../config/mod.ts";
import { Admin, type IpRecord, type ServerCore } from "../server/mod.ts";
import type { ConsoleDeps, RoomVisit, StoredRound } from "./deps.ts";
import { CommandError } from "./errors.ts";
import { MemoryRoomVisits } from "./room_visits.ts";
import { type RuntimeReport, runtimeReport } from "./runtime_report.ts";
import { memoryRound, type RoundView, storedRound } from "./views.ts";

/** Keys the running server reads at each use, so a reload applies them (spec 3 §2.3). */
const LIVE_KEYS = new Set([
  "server_name",
  "monitors",
  "chat_enabled",
  "cli_enabled",
  "max_rooms",
  "max_users_per_room",
  "max_sessions",
  "max_pending_auth",
  "play_history_cache_size",
  "chat_history_limit",
  "ready_countdown_secs",
  "playing_timeout_offset_secs",
  "heartbeat_timeout",
  "auth_timeout",
  "auth_budget_ms",
  "dangle_grace",
  "playing_reconnect_grace",
  "graceful_shutdown_timeout",
  "welcome.enabled",
  "welcome.show_time",
  "welcome.messages",
]);

/** What `config reload` did. */
export interface ReloadReport {
  readonly file: string | null;
  /** Keys whose value changed in the sources. */
  readonly changed: readonly string[];
  /** Changed keys now in effect. */
  readonly applied: readonly string[];
  /** Changed keys that take effect at the next start. */
  readonly restart_required: readonly string[];
  /** Runtime switches and other notes. */
  readonly notes: readonly string[];
}

/** Where a history answer came from. */
export type HistorySource = "persistence" | "memory";

/** Shared operator operations over one server. */
export class ConsoleServices {
  readonly deps: ConsoleDeps;
  readonly admin: Admin;
  /** Room visits since start (used when no durable store is plugged in). */
  readonly visits: MemoryRoomVisits;
  readonly startedAt: number;
  readonly version: string;
  #loaded: LoadedConfig | null;

  constructor(deps: ConsoleDeps) {
    this.deps = deps;
    this.admin = new Admin(deps.server.core);
    this.visits = new MemoryRoomVisits(deps.server.core.ctx.bus);
    this.startedAt = deps.startedAt ?? deps.server.core.ctx.clock.now();
    this.version = deps.version ?? denoConfig.version;
    this.#loaded = deps.config?.initial ?? null;
  }

  /** The server's shared state. */
  get core(): ServerCore {
    return this.deps.server.core;
  }

  /** Seconds since start. */
  uptimeSecs(): number {
    return Math.max(0, Math.floor((this.core.ctx.clock.now() - this.startedAt) / 1000));
  }

  /** Stops background bookkeeping. */
  close(): void {
    this.visits.close();
  }

  /** Online players (positive ids), rooms and sessions: the heartbeat figures. */
  counts(): { users: number; rooms: number; sessions: number } {
    const core = this.core;
    return {
      users: core.onlineUsers().filter((u) => u.id > 0).length,
      rooms: core.rooms.size,
      sessions: core.sessions.size,
    };
  }

  #config(): { access: NonNullable<ConsoleDeps["config"]>; loaded: LoadedConfig } {
    const access = this.deps.config;
    if (!access || !this.#loaded) {
      throw new CommandError("UNAVAILABLE", "configuration access is not available in this process");
    }
    return { access, loaded: this.#loaded };
  }

  #load(): LoadedConfig {
    try {
      return this.#config().access.load();
    } catch (error) {
      if (error instanceof ConfigError) {
        throw new CommandError("INVALID_ARGUMENT", `configuration is invalid; nothing changed: ${error.message}`);
      }
      throw error;
    }
  }

  /** `check-config`: validates the sources again and shows the result with live figures; applies nothing. */
  checkConfig(): string[] {
    const { loaded } = this.#config();
    const next = this.#load();
    const changed = changedKeys(loaded.config, next.config);
    const core = this.core;
    return [
      "configuration is valid",
      ...renderEffectiveConfig(next),
      changed.length
        ? `differs from the running configuration: ${
          changed.join(", ")
        } (config reload picks up what can change at run time)`
        : "same as the running configuration",
      `active: ${core.sessions.size} sessions, ${core.onlineUsers().length} users online, ${core.rooms.size} rooms`,
    ];
  }

  /** `config reload`: applies what can change at run time and names the rest. */
  reloadConfig(): ReloadReport {
    const { loaded } = this.#config();
    const next = this.#load();
    const core = this.core;
    const changed = changedKeys(loaded.config, next.config);
    const restartByCore = new Set(core.reloadConfig(next.config));
    this.#loaded = next;
    const applied: string[] = [];
    const restart: string[] = [];
    const notes: string[] = [];
    for (const key of changed) {
      if (key === "log_level" && this.deps.logs) {
        this.deps.logs.setLevel(next.config.log_level);
        applied.push(key);
      } else if (key === "admin_game_ids") {
        // The file's list replaces the runtime list only when the file changed it.
        core.adminIds.clear();
        for (const id of next.config.admin_game_ids) core.adminIds.add(id);
        applied.push(key);
      } else if (key === "room_creation_enabled") {
        notes.push(
          `room_creation_enabled applies at startup only; the runtime switch stays ${
            onOff(core.switches.roomCreation)
          } (use roomcreation on|off)`,
        );
      } else if (key === "update.auto") {
        notes.push("update.auto applies at startup only; use update auto on|off at run time");
      } else if (LIVE_KEYS.has(key) && !restartByCore.has(key)) applied.push(key);
      else restart.push(key);
    }
    return { file: next.file, changed, applied, restart_required: restart, notes };
  }

  /** Settled rounds of a room, newest first: from the durable store when plugged in, else the room's memory. */
  async roomRounds(roomId: string, limit: number): Promise<{ source: HistorySource; rounds: RoundView[] }> {
    const core = this.core;
    const store = this.deps.persistence;
    if (store) {
      const rows = await store.queries.roundsByRoom(roomId, limit);
      return { source: "persistence", rounds: await Promise.all(rows.map((r) => this.#withResults(r))) };
    }
    const room = this.#room(roomId);
    const rounds = [...room.rounds].reverse().slice(0, Math.max(0, limit)).map((r) => memoryRound(core, room, r));
    return { source: "memory", rounds };
  }

  async #withResults(row: StoredRound): Promise<RoundView> {
    const results = await this.deps.persistence!.queries.roundResults(row.round_uuid);
    return storedRound(this.core, row, results.map((r) => r.record));
  }

  /** One round of a room by uuid, or by position (`1` = the latest). */
  async round(roomId: string, ref: string): Promise<{ source: HistorySource; round: RoundView }> {
    const store = this.deps.persistence;
    const byPosition = /^\d+$/.test(ref);
    const missing = (note = "") => new CommandError("INVALID_ARGUMENT", `no round ${ref} in ${roomId}${note}`);
    if (store) {
      const row = byPosition
        ? (await store.queries.roundsByRoom(roomId, Number(ref)))[Number(ref) - 1]
        : await store.queries.round(ref);
      if (!row || row.room_id !== roomId) throw missing();
      return { source: "persistence", round: await this.#withResults(row) };
    }
    const room = this.#room(roomId);
    const newestFirst = [...room.rounds].reverse();
    const round = byPosition ? newestFirst[Number(ref) - 1] : newestFirst.find((r) => r.uuid === ref);
    if (!round) throw missing(` (memory keeps ${room.rounds.length})`);
    return { source: "memory", round: memoryRound(this.core, room, round) };
  }

  /** Rooms a user visited, newest first. */
  async userRooms(userId: number, limit: number): Promise<{ source: HistorySource; visits: readonly RoomVisit[] }> {
    const store = this.deps.persistence;
    if (store) return { source: "persistence", visits: await store.queries.userRoomHistory(userId, limit) };
    return { source: "memory", visits: this.visits.history(userId, limit) };
  }

  /** Addresses a user came from, newest first. */
  async ipHistory(userId: number): Promise<readonly IpRecord[]> {
    const store = this.deps.persistence;
    return store ? await store.queries.ipHistory(userId) : this.admin.ipHistory(userId);
  }

  /** A user's playtime in seconds. */
  async playtimeSecs(userId: number): Promise<number> {
    const store = this.deps.persistence;
    return store ? (await store.playtime(userId)) / 1000 : this.core.playtime.seconds(userId);
  }

  /** The users with the most playtime. */
  async topPlaytime(limit: number): Promise<{ user_id: number; name: string; seconds: number }[]> {
    const store = this.deps.persistence;
    if (!store) return this.core.playtime.top(limit);
    return (await store.topPlaytime(limit)).map((r) => ({
      user_id: r.user_id,
      name: this.core.users.get(r.user_id)?.name ?? r.name ?? `#${r.user_id}`,
      seconds: r.total_ms / 1000,
    }));
  }

  #room(roomId: string) {
    const room = this.core.rooms.get(roomId);
    if (!room) throw new CommandError("ROOM_NOT_FOUND", `room not found: ${roomId}`);
    return room;
  }

  /** The `runtime` report; `commands` = console commands registered. */
  runtime(commands: number): RuntimeReport {
    return runtimeReport(this, commands);
  }
}

/** `on` / `off`. */
export function onOff(value: boolean): string {
  return value ? "on" : "off";
}
