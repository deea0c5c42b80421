/**
 * The server's shared state and the runtime that applies room transitions:
 * the registry of users, rooms and sessions, effect application (encode once,
 * deliver to each recipient's current session), dangling users and the
 * leave-on-disconnect path.
 *
 * @module
 */

import type { LeaveReason } from "../events/mod.ts";
import { type Locale, type LocalText, resolveLocale, translate } from "../l10n/mod.ts";
import { TokenBucket } from "../net/rate_limit.ts";
import { encodeServerCommand, type Result, type ServerCommand, type UserInfo } from "../protocol/mod.ts";
import {
  leaveRoom,
  type ReplyValue,
  type Room,
  type RoomCtx,
  roomData,
  setChartDuration,
  tick,
  type Transition,
} from "../room/mod.ts";
import { isRoomScoped, type Session, type SessionCategory } from "../session/session.ts";
import { ObservedSet } from "../util/observed_set.ts";
import { AuthCache } from "./auth_cache.ts";
import { type BanList, MemoryBanList } from "./bans.ts";
import type { ChartMeta, GameServerConfig, ServerContext, UpstreamApi } from "./context.ts";
import { Counters } from "./counters.ts";
import type { ConsoleRunner } from "./ingame_cli.ts";
import { type IpHistorySource, MemoryIpHistory } from "./ip_history.ts";
import { roomMonitorKey } from "./monitor_key.ts";
import { MemoryPlaytime, type PlaytimeSource, withCachedTop } from "./playtime.ts";
import { forwardToRoomMonitor, pushToRoomMonitor } from "./room_monitor.ts";
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

/** Rate-limited command classes. */
export type CommandClass = "chat" | "room";

/** How long a late-join prompt stays valid: joining again within it confirms. */
export const LATE_JOIN_CONFIRM_MS = 30_000;

/** System chat messages use user id 0 (spec 3 §4.6 `send-chat`). */
export const SYSTEM_USER = 0;

/** Shared server state plus the effect runtime. */
export class ServerCore {
  readonly users = new Map<number, User>();
  readonly rooms = new Map<string, Room>();
  readonly sessions = new Set<Session>();
  readonly counters = new Counters();
  readonly authCache = new AuthCache(4096);
  readonly bans: BanList;
  readonly playtime: PlaytimeSource;
  readonly ipHistory: IpHistorySource;
  /** Ids of every player who ever logged in since start (the durable store extends this). */
  readonly seenPlayers = new Set<number>();
  /** Logins in flight until Active or failed, journal and reply flush included (bounded by `max_pending_auth`). */
  pendingAuth = 0;
  /** The connected room-monitor session, if any (protocol.md §3.5). */
  roomMonitor: Session | null = null;
  /** The key room monitors must present; null when no secret is configured. */
  readonly monitorKey: Promise<Uint8Array | null>;
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
  /** The console command runner for the in-game console; null until a console is attached. */
  cli: ConsoleRunner | null = null;
  /** Everything the server reads from outside; `config` is replaced by `reloadConfig`. */
  ctx: ServerContext;
  readonly #newUuid: () => string;
  /** Per-session command budgets (spec 3 §5 rule 6). */
  readonly #buckets = new WeakMap<Session, Record<CommandClass, TokenBucket>>();
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
    this.ipHistory = ctx.ipHistory ?? new MemoryIpHistory(ctx.bus);
    this.playtime = withCachedTop(
      ctx.playtime ?? new MemoryPlaytime(ctx.bus, () => ctx.clock.now(), (id) => this.users.get(id)?.name),
      () => this.ctx.clock.now(),
    );
    // Derived once at startup: Argon2id takes tens of milliseconds.
    const secret = ctx.config.service_secret_key;
    this.monitorKey = secret ? roomMonitorKey(secret) : Promise.resolve(null);
    ctx.bus.listen((event) => forwardToRoomMonitor(this, event));
  }

  /**
   * Applies a reloaded configuration. Runtime switches keep their values;
   * keys that only take effect at startup are returned so the caller can say so.
   */
  reloadConfig(next: GameServerConfig): string[] {
    const before = this.ctx.config;
    const restartOnly = ([
      "port",
      "bind_address",
      "service_secret_key",
      "proxy_allow_cidr",
      "connection_rate_limit",
      "connection_rate_window",
    ] as const)
      .filter((k) => JSON.stringify(before[k]) !== JSON.stringify(next[k]));
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

  /** Wire identity of a user. */
  userInfo(user: User): UserInfo {
    return { id: user.id, name: user.name, monitor: user.monitor };
  }

  /** Creates or refreshes a user record from an identity. */
  upsertUser(id: number, name: string, language: string, category: SessionCategory): User {
    let user = this.users.get(id);
    if (!user) {
      user = {
        id,
        name,
        language,
        locale: resolveLocale(language),
        category,
        roomId: null,
        monitor: false,
        session: null,
        pending: null,
        dangle: undefined,
        joinPending: null,
        cliPending: null,
        firstSeen: this.ctx.clock.now(),
      };
      this.users.set(id, user);
    } else {
      user.name = name;
      user.language = language;
      user.locale = resolveLocale(language);
      user.category = category;
    }
    return user;
  }

  /** Users with a live session. */
  onlineUsers(): User[] {
    return [...this.users.values()].filter((u) => u.session !== null);
  }

  /** Players (not monitors or consoles) with a live session, counted without allocating. */
  countOnlinePlayers(): number {
    let n = 0;
    for (const u of this.users.values()) if (u.session !== null && u.category === "normal") n++;
    return n;
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
        case "monitor":
          pushToRoomMonitor(this, effect.event);
          break;
        case "resolve-duration":
          if (t.room) this.resolveChartDuration(t.room.id, effect.chart);
          break;
      }
    }
  }

  /**
   * Takes one command of `cls` from the session's budget: Chat 10 per 3 s,
   * room operations 20 per 6 s (spec 3 §5 rule 6). False = refuse it.
   */
  allowCommand(session: Session, cls: CommandClass): boolean {
    const now = this.ctx.clock.monotonic();
    let buckets = this.#buckets.get(session);
    if (!buckets) {
      buckets = { chat: new TokenBucket(10, 3000, now), room: new TokenBucket(20, 6000, now) };
      this.#buckets.set(session, buckets);
    }
    return buckets[cls].take(now);
  }

  /** Puts back a room restored from storage (a persistent room at startup). */
  restoreRoom(room: Room): void {
    if (this.rooms.has(room.id)) return;
    this.rooms.set(room.id, room);
    this.roomsVersion++;
    this.ctx.bus.publish({
      kind: "room.created",
      room: room.id,
      uuid: room.uuid,
      hidden: room.hidden,
      by: null,
      data: roomData(room),
    });
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

  /**
   * A session closed. If it was its user's current session the user dangles:
   * in a room they keep it for `dangle_grace` (in a Playing room
   * `playing_reconnect_grace`) and leave if they do not log in again in time
   * (spec 3 §4.1; issue 3 "Heartbeat").
   */
  sessionClosed(session: Session): void {
    this.sessions.delete(session);
    if (this.roomMonitor === session) this.roomMonitor = null;
    if (session.userId === null) return;
    const user = this.users.get(session.userId);
    if (!user || user.session !== session) return;
    user.session = null;
    this.ctx.bus.publish({ kind: "user.offline", user: user.id, name: user.name });
    // A login in flight decides what follows (spec 3 §3.2): it takes over, or its rollback calls `dangle`.
    if (user.pending) return;
    this.dangle(user);
  }

  /** A user without a connection dangles in their room for the grace, or is forgotten when in none. */
  dangle(user: User): void {
    const room = this.roomOf(user);
    if (!room) {
      this.users.delete(user.id);
      return;
    }
    if (this.shuttingDown) return;
    const { config, clock } = this.ctx;
    const graceSecs = room.phase.kind === "play" ? config.playing_reconnect_grace : config.dangle_grace;
    this.ctx.log.info("user dangling", { user: user.id, room: room.id, grace_s: graceSecs });
    user.dangle = clock.setTimeout(() => {
      user.dangle = undefined;
      if (user.session || this.users.get(user.id) !== user) return;
      this.ctx.log.info("dangling user did not come back, leaving room", { user: user.id, room: user.roomId ?? "" });
      this.removeFromRoom(user, "disconnect");
      this.users.delete(user.id);
    }, graceSecs * 1000);
  }
}
