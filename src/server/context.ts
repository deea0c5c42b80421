/**
 * What the game server is built from: configuration values it reads and the
 * injected I/O seams (clock, random, logger, upstream, event bus). `main.ts`
 * builds one {@link ServerContext}; tests build their own.
 *
 * @module
 */

import type { EventBus } from "../events/mod.ts";
import type { Room } from "../room/mod.ts";
import type { BanList } from "./bans.ts";
import type { PlaytimeSource } from "./playtime.ts";
import type { TelemetryBudget } from "./telemetry_limit.ts";
import type { Clock } from "../util/clock.ts";
import type { Logger } from "../util/log.ts";
import type { Random } from "../util/random.ts";

/** The configuration keys the game server reads (spec 3 §2.3; a subset of `Config`). */
export interface GameServerConfig {
  readonly port: number;
  readonly bind_address: string;
  readonly monitors: readonly number[];
  readonly chat_enabled: boolean;
  readonly room_creation_enabled: boolean;
  readonly max_rooms: number | null;
  readonly max_users_per_room: number;
  readonly max_sessions: number;
  readonly max_pending_auth: number;
  readonly max_pending_auth_per_ip: number;
  /** Bytes all sessions may buffer for frames in flight, MiB (issue 14). */
  readonly frame_buffer_budget_mb: number;
  readonly play_history_cache_size: number;
  readonly chat_history_limit: number;
  readonly heartbeat_timeout: number;
  readonly auth_timeout: number;
  readonly dangle_grace: number;
  readonly playing_reconnect_grace: number;
  readonly auth_budget_ms: number;
  /** Budget of the record fetch behind `Played`, retries included (ms). */
  readonly record_budget_ms: number;
  readonly graceful_shutdown_timeout: number;
  readonly ready_countdown_secs: number;
  readonly playing_timeout_offset_secs: number;
  readonly proxy_allow_cidr: readonly string[];
  readonly connection_rate_limit: number;
  readonly connection_rate_window: number;
  readonly server_name: string;
  readonly cli_enabled: boolean;
  readonly admin_game_ids: readonly number[];
  readonly welcome: {
    readonly enabled: boolean;
    readonly show_time: boolean;
    readonly messages: Readonly<Record<string, readonly string[]>>;
  };
  /** Shared secret of the room-monitor key (spec 3 §5 rule 2); null = room monitors refused. */
  readonly service_secret_key: string | null;
}

/** Identity returned by the upstream `/me`. */
export interface UpstreamIdentity {
  readonly id: number;
  readonly name: string;
  readonly language: string;
}

/** A record as returned by the upstream `/record/{id}` (`std` fields may be null). */
export interface UpstreamRecordLike {
  readonly id: number;
  readonly player: number;
  readonly score: number;
  readonly perfect: number;
  readonly good: number;
  readonly bad: number;
  readonly miss: number;
  readonly max_combo: number;
  readonly accuracy: number;
  readonly full_combo: boolean;
  readonly std?: number | null;
  readonly std_score?: number | null;
}

/** Options of an upstream call. */
export interface UpstreamCallOptions {
  /** Time for all attempts and backoff (ms). */
  budgetMs?: number;
  /** Cancels the call. */
  signal?: AbortSignal;
}

/** The upstream calls the game server makes (implemented by `src/upstream`). */
export interface UpstreamApi {
  me(token: string, options?: UpstreamCallOptions): Promise<UpstreamIdentity>;
  chart(id: number, options?: UpstreamCallOptions): Promise<{ readonly id: number; readonly name: string }>;
  record(id: number, options?: UpstreamCallOptions): Promise<UpstreamRecordLike>;
  /** The same client against another base URL (per-room endpoint override). */
  withBaseUrl?(url: string): UpstreamApi;
}

/** Chart metadata as `UpstreamApi.chart` returned it (the real client's carries more fields). */
export type ChartMeta = Awaited<ReturnType<UpstreamApi["chart"]>>;

/**
 * Finds a chart's audio length in seconds (spec 3 §3.1 rule 5), through the
 * given upstream; `chart` is metadata already fetched, when the caller has
 * it. Rejects when it cannot; the room then uses the fallback.
 */
export type ChartDurationResolver = (chartId: number, upstream: UpstreamApi, chart?: ChartMeta) => Promise<number>;

/** A login about to be answered (spec 3 §3.2). */
export interface LoginRecord {
  readonly user_id: number;
  readonly name: string;
  readonly language: string;
  readonly ip: string;
  readonly session_id: number;
  readonly category: "normal" | "console" | "room-monitor" | "game-monitor";
  readonly at: number;
}

/**
 * Makes logins durable before they are answered: `recordLogin` resolves once
 * the login's journal record is queued (Authenticating -> DurableAccepted);
 * if it rejects, the login fails and nothing is bound.
 */
export interface LoginJournal {
  /** Journals a login; a rejection with `committed: true` means the record was written anyway. */
  recordLogin(login: LoginRecord): Promise<void>;
  /** Compensates a journaled login that never became Active (spec 3 §3.2 rollback), so it never counts. */
  revokeLogin(login: LoginRecord, reason: string): void;
}

/** Everything the game server needs from outside. */
export interface ServerContext {
  readonly config: GameServerConfig;
  readonly clock: Clock;
  readonly random: Random;
  readonly log: Logger;
  readonly upstream: UpstreamApi;
  readonly bus: EventBus;
  /** New unique ids (rooms, rounds); defaults to `crypto.randomUUID`. */
  readonly newUuid?: () => string;
  /** Ban lists; defaults to an in-memory list. */
  readonly bans?: BanList;
  /** Playtime figures (the persistence layer's); defaults to counting in memory. */
  readonly playtime?: PlaytimeSource;
  /** Called after every room change (persistent-room snapshots); `room` null = deleted. */
  readonly onRoomChanged?: (roomId: string, room: Room | null) => void;
  /** Probes chart audio lengths for playing deadlines; none = always the fallback. */
  readonly chartDuration?: ChartDurationResolver;
  /** Durability gate of logins (the persistence layer); none = memory only. */
  readonly loginJournal?: LoginJournal;
  /** Telemetry budget of each player (`telemetry_limit.ts`); defaults to `TELEMETRY_BUDGET`. Tests raise it. */
  readonly telemetryBudget?: TelemetryBudget;
}
