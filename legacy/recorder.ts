/**
 * Replay recording (spec 3 §4.7 "Replays are recorded automatically during
 * play"), as tphira does it so that its files and tools keep working:
 *
 * - only rooms created while `replay_enabled` is on are recorded; turning it
 *   off stops every recording (files are closed) and forgets those rooms;
 * - clients send touches and judges only in a live room (protocol notes
 *   §5.6), so a recorded room is made live at creation, and its creator --
 *   already inside, so never told otherwise -- is told that a monitor named
 *   "Replay recorder" joined (`OnJoinRoom {monitor: true}`, which sets the
 *   client's live flag). Later joiners see `live` in their join reply;
 * - when a round starts, one file per player: `record/<user>/<chart>/<ms>
 *   .phirarec` under `data_dir` (`src/replay`), every `Touches` and
 *   `Judges` payload exactly as the client sent it, the record id patched in
 *   when the player's `Played` is accepted, the file closed when the round
 *   is settled or the room goes;
 * - files older than `legacy.replay_retention_days` (by the time in their
 *   name) are deleted at start and every hour.
 *
 * With the durable store, the files are the store's (issue 15: stored
 * telemetry is kept as these very files, `src/persistence/telemetry/`, same
 * path, same bytes, record id patched the same way): the recorder then only
 * makes recorded rooms live and writes nothing itself, so a round is not
 * written twice; its sweep then also drops the index rows of the files it
 * deletes. The replay routes read the same folder either way.
 *
 * @module
 */

import type { DomainEvent } from "../src/events/mod.ts";
import { translate } from "../src/l10n/mod.ts";
import type { ReplayWriter } from "../src/replay/mod.ts";
import type { TimerHandle } from "../src/util/clock.ts";
import type { LegacyContext } from "./context.ts";

/** The id of the replay recorder's monitor seat as the creator's client sees it (tphira's). */
export const RECORDER_USER_ID = 2_000_000_000;
const SWEEP_EVERY_MS = 3_600_000;
const SYSTEM = { kind: "system", component: "replay-recorder" } as const;

/** Figures of the recorder. */
export interface RecorderStatus {
  readonly enabled: boolean;
  readonly rooms: number;
  readonly recording: number;
  readonly files: number;
  readonly dropped: number;
}

/** Drops the durable store's index rows of removed files (paths relative to the record folder). */
type ForgetFiles = (paths: readonly string[]) => Promise<unknown>;

/** Records replays of recorded rooms. */
export class ReplayRecorder {
  readonly #ctx: LegacyContext;
  /** Uuids of rooms created while recording was on. */
  readonly #rooms = new Set<string>();
  /** `<round>:<user>` -> the file being written. */
  readonly #writers = new Map<string, ReplayWriter>();
  readonly #byRound = new Map<string, { room: string; keys: string[] }>();
  #files = 0;
  #dropped = 0;
  #sweepTimer: TimerHandle | undefined;
  #delivery: { close(): Promise<void>; idle(): Promise<void> } | null = null;
  #wasEnabled: boolean;

  readonly #writeFiles: boolean;
  readonly #forget: ForgetFiles | null;

  /**
   * Without `store`, this recorder writes the replay files; with it (the
   * durable store writes them as its telemetry, see the module doc) it only
   * sweeps them and has the store drop their index rows.
   */
  constructor(ctx: LegacyContext, store: { forgetTelemetryFiles: ForgetFiles } | null = null) {
    this.#ctx = ctx;
    this.#wasEnabled = ctx.switches.replay;
    this.#writeFiles = store === null;
    this.#forget = store ? (paths) => store.forgetTelemetryFiles(paths) : null;
  }

  /** Starts following the bus and the retention sweep. */
  start(): void {
    this.#delivery = this.#ctx.core.ctx.bus.deliver(
      (item) => item.type === "event" ? this.#on(item.event) : undefined,
      {
        name: "legacy:replay-recorder",
        kinds: [
          "room.created",
          "room.deleted",
          "round.started",
          "round.scored",
          "round.completed",
          "touches",
          "judges",
        ],
      },
    );
    void this.sweep();
  }

  /** Figures for the runtime report and the console. */
  status(): RecorderStatus {
    return {
      enabled: this.#ctx.switches.replay,
      rooms: this.#rooms.size,
      recording: this.#writers.size,
      files: this.#files,
      dropped: this.#dropped + [...this.#writers.values()].reduce((n, w) => n + w.stats().dropped, 0),
    };
  }

  /** Resolves once every event published so far was handled. */
  async idle(): Promise<void> {
    await this.#delivery?.idle();
    await Promise.all([...this.#writers.values()].map((w) => w.flush()));
  }

  /** Deletes replays past the retention, then plans the next sweep. */
  async sweep(): Promise<number> {
    const ctx = this.#ctx;
    ctx.clock.clearTimeout(this.#sweepTimer);
    let removed = 0;
    try {
      const files = await ctx.replays.sweep(ctx.clock.now() - ctx.config.legacy.replay_retention_days * 86_400_000);
      removed = files.length;
      // With the durable store these files are its telemetry: their index rows go with them.
      if (this.#forget) await this.#forget(files);
      if (removed) {
        ctx.log.info("old replays deleted", { files: removed, days: ctx.config.legacy.replay_retention_days });
      }
    } catch (error) {
      ctx.log.warn("replay retention sweep failed", { error: String(error) });
    }
    if (this.#delivery) this.#sweepTimer = ctx.clock.setTimeout(() => void this.sweep(), SWEEP_EVERY_MS);
    return removed;
  }

  /** Stops: every open file is closed. */
  async close(): Promise<void> {
    this.#ctx.clock.clearTimeout(this.#sweepTimer);
    const delivery = this.#delivery;
    this.#delivery = null;
    await delivery?.close();
    await this.#closeAll();
  }

  async #on(e: DomainEvent): Promise<void> {
    const ctx = this.#ctx;
    const enabled = ctx.switches.replay;
    if (enabled !== this.#wasEnabled) {
      this.#wasEnabled = enabled;
      if (!enabled) {
        this.#rooms.clear();
        await this.#closeAll();
        ctx.log.info("replay recording stopped");
      }
    }
    switch (e.kind) {
      case "room.created":
        if (enabled && !this.#rooms.has(e.uuid) && ctx.core.rooms.get(e.room)?.uuid === e.uuid) {
          this.#record(e.room, e.uuid, e.by);
        }
        return;
      case "room.deleted":
        if (ctx.core.rooms.get(e.room)?.uuid === e.uuid) return; // hidden, not deleted
        this.#rooms.delete(e.uuid);
        for (const [round, info] of this.#byRound) if (info.room === e.uuid) await this.#closeRound(round);
        return;
      case "round.started":
        if (enabled && this.#writeFiles && this.#rooms.has(e.uuid)) {
          await this.#open(e.uuid, e.round, e.chart, e.players, e.time);
        }
        return;
      case "touches":
      case "judges": {
        if (!e.round || !e.raw) return;
        const writer = this.#writers.get(`${e.round}:${e.user}`);
        if (writer && !writer.append(e.raw)) this.#dropped++;
        return;
      }
      case "round.scored":
        if (e.round) void this.#writers.get(`${e.round}:${e.user}`)?.setRecordId(e.record.id);
        return;
      case "round.completed":
        await this.#closeRound(e.round);
        return;
    }
  }

  /** Makes a new room live and tells its creator a monitor (the recorder) joined. */
  #record(roomId: string, uuid: string, creator: number | null): void {
    const ctx = this.#ctx;
    this.#rooms.add(uuid);
    const live = ctx.ops.tryCallNow("room.set_live", { room_id: roomId, live: true }, SYSTEM);
    if (live instanceof Promise || !live.ok) return;
    const user = creator === null ? undefined : ctx.core.users.get(creator);
    if (!user || user.roomId !== roomId) return;
    const name = translate(user.locale, "replay-recorder-name");
    ctx.core.sendTo([user.id], { type: "OnJoinRoom", user: { id: RECORDER_USER_ID, name, monitor: true } });
    ctx.core.sendTo([user.id], { type: "Message", message: { type: "JoinRoom", user: RECORDER_USER_ID, name } });
  }

  async #open(roomUuid: string, round: string, chart: number, players: readonly number[], time: number): Promise<void> {
    const ctx = this.#ctx;
    const keys: string[] = [];
    this.#byRound.set(round, { room: roomUuid, keys });
    for (const userId of players) {
      if (userId < 0) continue;
      try {
        const { writer } = await ctx.replays.create({ chartId: chart >>> 0, userId, recordId: 0 }, time);
        const key = `${round}:${userId}`;
        this.#writers.set(key, writer);
        keys.push(key);
        this.#files++;
      } catch (error) {
        ctx.log.warn("cannot start a replay file", { user: userId, round, error: String(error) });
      }
    }
  }

  async #closeRound(round: string): Promise<void> {
    const info = this.#byRound.get(round);
    if (!info) return;
    this.#byRound.delete(round);
    await Promise.all(info.keys.map((key) => this.#closeWriter(key)));
  }

  async #closeWriter(key: string): Promise<void> {
    const writer = this.#writers.get(key);
    if (!writer) return;
    this.#writers.delete(key);
    await writer.close();
    const stats = writer.stats();
    this.#dropped += stats.dropped;
    if (stats.error) this.#ctx.log.warn("replay file incomplete", { file: writer.path, error: stats.error });
  }

  async #closeAll(): Promise<void> {
    for (const round of [...this.#byRound.keys()]) await this.#closeRound(round);
  }
}
