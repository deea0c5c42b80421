/**
 * The server's shared state and the runtime that applies room transitions:
 * the registry of users, rooms and sessions, and effect application (encode
 * once, deliver to each recipient's current session). User records come and
 * go in `presence.ts`; features attach from outside (`onEffect`, the bus,
 * the command pipeline) instead of adding fields or cases here.
 *
 * @module
 */

import type { LeaveReason } from "../events/mod.ts";
import { type Locale, type LocalText, translate } from "../l10n/mod.ts";
import { encodeServerCommand, type Result, type ServerCommand } from "../protocol/mod.ts";
import {
  leaveRoom,
  type ReplyValue,
  type Room,
  type RoomCtx,
  type RoomEffect,
  setChartDuration,
  tick,
  type Transition,
} from "../room/mod.ts";
import { isRoomScoped, type Session } from "../session/session.ts";
import { ObservedSet } from "../util/observed_set.ts";
import { AuthCache } from "./auth_cache.ts";
import { type BanList, MemoryBanList } from "./bans.ts";
import type { ChartMeta, GameServerConfig, ServerContext, UpstreamApi } from "./context.ts";
import { Counters } from "./counters.ts";
import { MemoryPlaytime, type PlaytimeSource, withCachedTop } from "./playtime.ts";
import { RoomTimers } from "./room_timers.ts";
import type { User } from "./user.ts";

export type { User } from "./user.ts";

/** Receives the reply of the command that caused a transition. */
export interface Replier {
  reply(result: Result<ReplyValue, LocalText>): void;
}

/** Chart duration assumed when the audio could not be probed (spec 3 §3.1 rule 1). */
export const FALLBACK_DURATION_SECS = 10000;
/** Progress notices to late joiners, every 30 s (spec 3 §8). */
export const PROGRESS_INTERVAL_SECS = 30;

/** The room effects the core applies itself; any other kind is a feature's ({@link ServerCore.onEffect}). */
type CoreEffect = Extract<RoomEffect, { t: "send" | "text" | "reply" | "membership" | "event" | "resolve-duration" }>;

/** Room effects the core leaves to a feature that registers for them (today the room monitor's `monitor`). */
export type ExtensionEffect = Exclude<RoomEffect, CoreEffect>;

/** Keys read only at startup: `config reload` reports them as needing a restart. */
const RESTART_ONLY = [
  "port",
  "bind_address",
  "service_secret_key",
  "proxy_allow_cidr",
  "connection_rate_limit",
  "connection_rate_window",
] as const;

/** System chat messages use user id 0 (spec 3 §4.6 `send-chat`). */
export const SYSTEM_USER = 0;

/** Shared server state plus the effect runtime. */
export class ServerCore {
  readonly users = new Map<number, User>();
  /** See {@link countOnlinePlayers}. */
  #onlinePlayers = 0;
  readonly rooms = new Map<string, Room>();
  readonly sessions = new Set<Session>();
  readonly counters = new Counters();
  readonly authCache = new AuthCache(4096);
  readonly bans: BanList;
  readonly playtime: PlaytimeSource;
  /** Ids of every player who ever logged in since start (the durable store extends this). */
  readonly seenPlayers = new Set<number>();
  /** Logins in flight until Active or failed, journal and reply flush included (bounded by `max_pending_auth`). */
  pendingAuth = 0;
  /** Bumped on every room change: readers cache views of the room list by it. */
  roomsVersion = 0;
  /** Set once shutdown began: no new logins. */
  shuttingDown = false;
  /**
   * Runtime switches (spec 3 §2.3): set from the configuration at startup,
   * then only by operators; `config reload` leaves them alone.
   */
  readonly switches: { roomCreation: boolean; connections: boolean };
  /** Game user ids with in-game console rights (`admin_game_ids`, `admin-id`); reports changes for persisting. */
  readonly adminIds: ObservedSet<number>;
  /** Everything the server reads from outside; `config` is replaced by `reloadConfig`. */
  ctx: ServerContext;
  readonly #newUuid: () => string;
  /** Handlers of the effects features take care of (the room monitor's `monitor`). */
  readonly #effectHandlers = new Map<ExtensionEffect["t"], (effect: ExtensionEffect) => void>();
  /** One wake-up timer per room, for its next deadline. */
  readonly #timers: RoomTimers;

  constructor(ctx: ServerContext) {
    this.ctx = ctx;
    this.#newUuid = ctx.newUuid ?? (() => crypto.randomUUID());
    this.bans = ctx.bans ?? new MemoryBanList();
    this.#timers = new RoomTimers(() => this.ctx.clock, (roomId) => {
      const room = this.rooms.get(roomId);
      if (room && !this.shuttingDown) this.apply(roomId, tick(room, this.roomCtx()), null);
    });
    this.switches = { roomCreation: ctx.config.room_creation_enabled, connections: true };
    this.adminIds = new ObservedSet(ctx.config.admin_game_ids);
    this.playtime = withCachedTop(
      ctx.playtime ?? new MemoryPlaytime(ctx.bus, () => ctx.clock.now(), (id) => this.users.get(id)?.name),
      () => this.ctx.clock.now(),
    );
  }

  /**
   * Lets a feature apply the room effects of kind `kind` (one handler per
   * kind); the core drops them while none is registered. Returns a remover.
   */
  onEffect<K extends ExtensionEffect["t"]>(
    kind: K,
    handler: (effect: Extract<ExtensionEffect, { t: K }>) => void,
  ): () => void {
    this.#effectHandlers.set(kind, handler as (effect: ExtensionEffect) => void);
    return () => void this.#effectHandlers.delete(kind);
  }

  /**
   * Applies a reloaded configuration. Runtime switches keep their values;
   * keys that only take effect at startup are returned so the caller can say so.
   */
  reloadConfig(next: GameServerConfig): string[] {
    const before = this.ctx.config;
    const restartOnly = RESTART_ONLY.filter((k) => JSON.stringify(before[k]) !== JSON.stringify(next[k]));
    this.ctx = { ...this.ctx, config: next };
    return restartOnly;
  }

  /** Context for a room transition happening now. */
  roomCtx(): RoomCtx {
    const { config, clock, random } = this.ctx;
    return {
      now: clock.now(),
      random,
      newUuid: this.#newUuid,
      chatHistoryLimit: config.chat_history_limit,
      playHistoryLimit: config.play_history_cache_size,
      timing: {
        readyCountdownSecs: config.ready_countdown_secs,
        playingOffsetSecs: config.playing_timeout_offset_secs,
        fallbackDurationSecs: FALLBACK_DURATION_SECS,
        progressIntervalSecs: PROGRESS_INTERVAL_SECS,
      },
    };
  }

  /** Users with a live session. */
  onlineUsers(): User[] {
    return [...this.users.values()].filter((u) => u.session !== null);
  }

  /**
   * Players (not monitors or consoles) with a live session: kept up to date
   * by {@link bindSession} and {@link setCategory}, not counted per call
   * (every login's welcome shows it: counting made 10,000 logins quadratic).
   */
  countOnlinePlayers(): number {
    return this.#onlinePlayers;
  }

  /** Makes `session` the user's current connection (null: none), keeping {@link countOnlinePlayers}. */
  bindSession(user: User, session: Session | null): void {
    const was = user.session !== null && user.category === "normal";
    user.session = session;
    this.#onlinePlayers += Number(session !== null && user.category === "normal") - Number(was);
  }

  /** Changes the user's kind of session (a new login), keeping {@link countOnlinePlayers}. */
  setCategory(user: User, category: User["category"]): void {
    const was = user.session !== null && user.category === "normal";
    user.category = category;
    this.#onlinePlayers += Number(user.session !== null && category === "normal") - Number(was);
  }

  /**
   * Delivers a command to users' current sessions, encoded once; a login in
   * flight gets it too, held until it is Active (spec 3 §3.2).
   */
  sendTo(ids: readonly number[], cmd: ServerCommand): void {
    const frame = encodeServerCommand(cmd);
    const scoped = isRoomScoped(cmd);
    for (const id of ids) {
      const user = this.users.get(id);
      user?.session?.push(frame, scoped);
      user?.pending?.push(frame, scoped);
    }
  }

  /** A system chat line, localized per recipient (encoded once per locale). */
  sendText(ids: readonly number[], text: LocalText): void {
    const frames = new Map<Locale, Uint8Array>();
    for (const id of ids) {
      const user = this.users.get(id);
      if (!user?.session && !user?.pending) continue;
      let frame = frames.get(user.locale);
      if (!frame) {
        const content = translate(user.locale, text.key, text.args);
        frame = encodeServerCommand({ type: "Message", message: { type: "Chat", user: SYSTEM_USER, content } });
        frames.set(user.locale, frame);
      }
      user.session?.push(frame, false);
      user.pending?.push(frame, false);
    }
  }

  /**
   * Applies a transition of room `roomId`: stores the new room (or deletes it)
   * and runs the effects in order. The `reply` effect goes to `origin` only.
   */
  apply(roomId: string, t: Transition, origin: Replier | null): void {
    if (t.room) this.rooms.set(t.room.id, t.room);
    else this.rooms.delete(roomId);
    this.roomsVersion++;
    this.#timers.schedule(roomId, t.room);
    this.ctx.onRoomChanged?.(roomId, t.room);
    for (const effect of t.effects) {
      switch (effect.t) {
        case "send":
          this.sendTo(effect.to, effect.cmd);
          break;
        case "text":
          this.sendText(effect.to, effect.text);
          break;
        case "reply":
          origin?.reply(effect.result);
          break;
        case "membership": {
          const user = this.users.get(effect.user);
          if (user) {
            user.roomId = effect.room;
            user.monitor = effect.monitor;
          }
          break;
        }
        case "event":
          this.ctx.bus.publish(effect.event);
          break;
        case "resolve-duration":
          if (t.room) this.resolveChartDuration(t.room.id, effect.chart);
          break;
        default:
          // Not the core's: the feature that registered for this kind applies it (dropped when none did).
          this.#effectHandlers.get(effect.t)?.(effect);
      }
    }
  }

  /** Cancels every room timer (shutdown). */
  clearTimers(): void {
    this.#timers.clear();
  }

  /** The upstream for a room's lookups: its endpoint override, or the server's. */
  upstreamFor(room: Room | undefined): UpstreamApi {
    const upstream = this.ctx.upstream;
    return room?.apiEndpoint && upstream.withBaseUrl ? upstream.withBaseUrl(room.apiEndpoint) : upstream;
  }

  /**
   * Resolves the selected chart's audio length in the background and records
   * it on the room if the same chart is still selected (spec 3 §3.1 rule 5).
   * `chart` is the metadata the selection already fetched, so the resolver
   * need not ask `/chart/{id}` again.
   */
  resolveChartDuration(roomId: string, chartId: number, chart?: ChartMeta): void {
    const resolver = this.ctx.chartDuration;
    if (!resolver) return;
    const room = this.rooms.get(roomId);
    const upstream = this.upstreamFor(room);
    (chart ? resolver(chartId, upstream, chart) : resolver(chartId, upstream)).then((secs) => {
      const now = this.rooms.get(roomId);
      if (now && now.chart?.id === chartId && Number.isFinite(secs) && secs > 0) {
        this.apply(roomId, setChartDuration(now, chartId, secs, this.roomCtx()), null);
      }
    }, (error) => {
      this.ctx.log.info("chart duration unknown, using the fallback", {
        room: roomId,
        chart: chartId,
        reason: String(error),
      });
    });
  }

  /** The room a user is in, clearing a stale reference to a deleted room. */
  roomOf(user: User): Room | undefined {
    if (!user.roomId) return undefined;
    const room = this.rooms.get(user.roomId);
    if (!room) {
      user.roomId = null;
      user.monitor = false;
    }
    return room;
  }

  /** Takes a user out of their room without a reply (disconnect, kick). */
  removeFromRoom(user: User, reason: LeaveReason): void {
    const room = this.roomOf(user);
    if (!room) return;
    this.apply(room.id, leaveRoom(room, user.id, this.roomCtx(), reason), null);
  }
}
