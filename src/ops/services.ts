/**
 * What the built-in operations reach (the context of `Ops`): the game
 * server and its operator actions, the optional subsystems of the process
 * (durable store, logs, configuration, benchmark), room visits and operator
 * input kept in memory, and the points where other parts of the process
 * attach (the console's line runner for `cli.execute`, status sections such
 * as OpenUDS's). History answers come from the durable store when it is
 * plugged in, else from memory, and say which.
 *
 * @module
 */

import denoConfig from "../../deno.json" with { type: "json" };
import type { Room } from "../room/mod.ts";
import { Admin, type IpRecord, MemoryIpHistory, type ServerCore } from "../server/mod.ts";
import type { Actor } from "./actor.ts";
import { ConfigControl } from "./config_reload.ts";
import type { OpsDeps, RoomVisit, StoredRound } from "./deps.ts";
import { OpsError, type OpsErrorCode, roomNotFound } from "./errors.ts";
import { InputLog } from "./input_log.ts";
import { MemoryRoomVisits } from "./room_visits.ts";
import { type RuntimeReport, runtimeReport } from "./runtime_report.ts";
import { memoryRound, type RoundView, storedRound } from "./views.ts";

/** Outcome of one console line (`cli.execute`). */
export type CliOutcome =
  | { readonly ok: true; readonly lines: string[] }
  | { readonly ok: false; readonly code: OpsErrorCode; readonly message: string; readonly lines: string[] };

/** The console's line runner, attached by the console registry (`cli.execute`, spec 3 §4.5). */
export interface CliRunner {
  /** Runs one console line as `actor`; never rejects. */
  run(line: string, actor: Actor): Promise<CliOutcome>;
  /** Console commands registered (the `runtime` report's `registered_commands`). */
  commandCount(): number;
}

/** A named status section an attached part reports (`runtime.status`, `runtime.actors`), e.g. `openuds`. */
export type StatusSection = () => Readonly<Record<string, unknown>>;

/** Where a history answer came from. */
export type HistorySource = "persistence" | "memory";

/** What the built-in operations reach. */
export class OpsServices {
  readonly deps: OpsDeps;
  /** Operator actions on users and, through `admin.roomOps`, the one operator path of room changes. */
  readonly admin: Admin;
  /**
   * Room visits and addresses since start, kept only when no durable store
   * is plugged in (with one, the store answers: issue 15, nothing kept per
   * player that nobody reads).
   */
  readonly visits: MemoryRoomVisits | null;
  readonly #ipHistory: MemoryIpHistory | null;
  /** Recent operator input from every front end (OpenUDS `logs.input`). */
  readonly inputs: InputLog;
  readonly config: ConfigControl;
  readonly startedAt: number;
  readonly version: string;
  #cli: CliRunner | null = null;
  readonly #sections = new Map<string, StatusSection>();

  constructor(deps: OpsDeps) {
    this.deps = deps;
    this.admin = new Admin(deps.server.core);
    const bus = deps.server.core.ctx.bus;
    this.visits = deps.persistence ? null : new MemoryRoomVisits(bus);
    this.#ipHistory = deps.persistence ? null : new MemoryIpHistory(bus);
    this.inputs = new InputLog();
    this.config = new ConfigControl(deps.config, () => this.core, deps.logs);
    this.startedAt = deps.startedAt ?? deps.server.core.ctx.clock.now();
    this.version = deps.version ?? denoConfig.version;
  }

  /** Attaches the console's line runner (one at a time); returns a function that detaches it. */
  attachCli(cli: CliRunner): () => void {
    this.#cli = cli;
    return () => {
      if (this.#cli === cli) this.#cli = null;
    };
  }

  /** The attached console line runner. */
  get cli(): CliRunner | null {
    return this.#cli;
  }

  /** Adds a status section (replacing one of that name); returns a function that removes it. */
  addStatusSection(name: string, section: StatusSection): () => void {
    this.#sections.set(name, section);
    return () => {
      if (this.#sections.get(name) === section) this.#sections.delete(name);
    };
  }

  /** The status sections, evaluated now. */
  statusSections(): Record<string, Readonly<Record<string, unknown>>> {
    return Object.fromEntries([...this.#sections].map(([name, section]) => [name, section()]));
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
    this.visits?.close();
    this.#ipHistory?.close();
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

  /** Settled rounds of a room, newest first: from the durable store when plugged in, else the room's memory. */
  async roomRounds(roomId: string, limit: number): Promise<{ source: HistorySource; rounds: RoundView[] }> {
    const core = this.core;
    const store = this.deps.persistence;
    if (store) {
      const rows = await store.queries.roundsByRoom(roomId, limit);
      return { source: "persistence", rounds: await Promise.all(rows.map((r) => this.#withResults(r))) };
    }
    const room = this.room(roomId);
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
    const missing = (note = "") => new OpsError("INVALID_ARGUMENT", `no round ${ref} in ${roomId}${note}`);
    if (store) {
      const row = byPosition
        ? (await store.queries.roundsByRoom(roomId, Number(ref)))[Number(ref) - 1]
        : await store.queries.round(ref);
      if (!row || row.room_id !== roomId) throw missing();
      return { source: "persistence", round: await this.#withResults(row) };
    }
    const room = this.room(roomId);
    const newestFirst = [...room.rounds].reverse();
    const round = byPosition ? newestFirst[Number(ref) - 1] : newestFirst.find((r) => r.uuid === ref);
    if (!round) throw missing(` (memory keeps ${room.rounds.length})`);
    return { source: "memory", round: memoryRound(this.core, room, round) };
  }

  /** Rooms a user visited, newest first. */
  async userRooms(userId: number, limit: number): Promise<{ source: HistorySource; visits: readonly RoomVisit[] }> {
    const store = this.deps.persistence;
    if (store) return { source: "persistence", visits: await store.queries.userRoomHistory(userId, limit) };
    return { source: "memory", visits: this.visits?.history(userId, limit) ?? [] };
  }

  /** Addresses a user came from, newest first. */
  async ipHistory(userId: number): Promise<readonly IpRecord[]> {
    const store = this.deps.persistence;
    return store ? await store.queries.ipHistory(userId) : this.#ipHistory?.history(userId) ?? [];
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

  /** A room by id; throws `ROOM_NOT_FOUND`. */
  room(roomId: string): Room {
    return this.core.rooms.get(roomId) ?? roomNotFound(roomId);
  }

  /** The `runtime` report. */
  runtime(): RuntimeReport {
    return runtimeReport(this, this.#cli?.commandCount() ?? 0);
  }
}
