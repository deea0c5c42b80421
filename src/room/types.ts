/**
 * Room state as plain immutable data, and the effects a transition emits
 * (style-models §6). The machine never performs I/O: the server runtime
 * applies the effects in order.
 *
 * @module
 */

import type { DomainEventInput } from "../events/mod.ts";
import type { LocalText } from "../l10n/mod.ts";
import type { JoinRoomResponse, RecordData, Result, RoomEvent, ServerCommand } from "../protocol/mod.ts";
import type { Random } from "../util/random.ts";

/** A room member as the room sees it. */
export interface Member {
  readonly id: number;
  readonly name: string;
  /** True for spectators (monitors). */
  readonly monitor: boolean;
}

/** The selected chart. */
export interface ChartRef {
  readonly id: number;
  readonly name: string;
  /**
   * Audio length in seconds, probed from the chart archive after selection;
   * null until known (spec 3 §3.1 rule 5; kept at room level only).
   */
  readonly durationSecs?: number | null;
}

/** Host id meaning "the system hosts this room" (spec 3 §3.1 rule 3). */
export const SYSTEM_HOST = -1;

/** A room-level ban. */
export interface RoomBan {
  readonly user_id: number;
  readonly reason: string;
  readonly banned_at: number;
}

/** One chat line kept for replay to joiners (spec 3 §2.1). */
export interface ChatLine {
  readonly user: number;
  readonly content: string;
  readonly time: number;
}

/** A settled round kept in the room's play history. */
export interface RoundRecord {
  readonly uuid: string;
  readonly chart: ChartRef;
  readonly records: readonly RecordData[];
  readonly aborted: readonly number[];
  readonly startedAt: number;
  readonly finishedAt: number;
}

/** Lifecycle phase with its own data (spec 3 §2.1 `lifecycle`). */
export type Phase =
  | { readonly kind: "select" }
  | {
    readonly kind: "wait";
    readonly ready: readonly number[];
    /** When the ready countdown starts the round by itself; null = never (tournament). */
    readonly countdownAt: number | null;
  }
  | {
    readonly kind: "play";
    readonly round: string;
    readonly startedAt: number;
    readonly results: ReadonlyMap<number, RecordData>;
    readonly aborted: readonly number[];
    /** When unfinished players are aborted and the round settles (spec 3 §3.1 rule 1). */
    readonly deadline: number;
    /** The first finisher moved the deadline by one offset already. */
    readonly extended: boolean;
    /** Late joiners and when each gets the next progress notice. */
    readonly progress: ReadonlyMap<number, number>;
    /**
     * Players who joined after the round started (spec 3 §3.1 rule 6). They
     * do not hold up the end of the round and are not DNF when they never
     * finish; a result they do upload is ranked.
     */
    readonly late: readonly number[];
  };

/** A multiplayer room. Replaced, never mutated, by each transition. */
export interface Room {
  readonly id: string;
  readonly uuid: string;
  readonly createdAt: number;
  /** Who created it; null for rooms made by an operator. */
  readonly creatorId: number | null;
  /** Current host; null = none (the next player to join takes it); {@link SYSTEM_HOST} = the system. */
  readonly hostId: number | null;
  /** Players in join order. */
  readonly players: readonly Member[];
  /** Spectators in join order. */
  readonly monitors: readonly Member[];
  readonly locked: boolean;
  readonly cycle: boolean;
  /** Turns on for good when a monitor joins (protocol.md §5.6). */
  readonly live: boolean;
  /** Left out of public lists (names starting with `-` by default, spec 3 §2.1). */
  readonly hidden: boolean;
  /** Player capacity; monitors do not count. */
  readonly maxPlayers: number;
  /** Survives having no users (spec 3 §2.1). */
  readonly persistent: boolean;
  /** Tournament mode: automatic behaviour and chat off (spec 3 §2.1). */
  readonly tournament: boolean;
  /** A join compensation failed: new joins are refused until cleared. */
  readonly degraded: boolean;
  /** Upstream API override for this room's lookups; null = server default. */
  readonly apiEndpoint: string | null;
  /** Users refused by this room. */
  readonly bans: readonly RoomBan[];
  readonly chart: ChartRef | null;
  readonly phase: Phase;
  readonly chat: readonly ChatLine[];
  readonly rounds: readonly RoundRecord[];
}

/** Values a transition may depend on besides the room and the event. */
export interface RoomCtx {
  readonly now: number;
  readonly random: Random;
  readonly newUuid: () => string;
  /** Chat lines kept per room (spec: 50). */
  readonly chatHistoryLimit: number;
  /** Rounds kept per room (`play_history_cache_size`). */
  readonly playHistoryLimit: number;
  /** Round timing (spec 3 §3.1, §8). */
  readonly timing: RoomTiming;
}

/** Round timing settings, in seconds. */
export interface RoomTiming {
  /** Ready countdown before a waiting round starts by itself (`ready_countdown_secs`, 60). */
  readonly readyCountdownSecs: number;
  /** Added to the chart duration for the playing deadline (`playing_timeout_offset_secs`, 60). */
  readonly playingOffsetSecs: number;
  /** Duration assumed when the chart's audio could not be probed (10000). */
  readonly fallbackDurationSecs: number;
  /** Interval of progress notices to late joiners (30). */
  readonly progressIntervalSecs: number;
}

/** The value a successful command reply carries (JoinRoom's response, else nothing). */
export type ReplyValue = JoinRoomResponse | null;

/** One effect, applied by the runtime strictly in list order. */
export type RoomEffect =
  /** Encode once, deliver to each listed user's current session. */
  | { readonly t: "send"; readonly to: readonly number[]; readonly cmd: ServerCommand }
  /** A system chat line localized per recipient. */
  | { readonly t: "text"; readonly to: readonly number[]; readonly text: LocalText }
  /** The answer to the command being processed; exactly one per command. */
  | { readonly t: "reply"; readonly result: Result<ReplyValue, LocalText> }
  /** Record that a user is now in `room` (null = in none). */
  | { readonly t: "membership"; readonly user: number; readonly room: string | null; readonly monitor: boolean }
  /** Publish a domain event. */
  | { readonly t: "event"; readonly event: DomainEventInput }
  /** Push a `RoomEvent` to the room monitor only (protocol.md §3.5), beside the domain events. */
  | { readonly t: "monitor"; readonly event: RoomEvent }
  /** Resolve the selected chart's audio length again in the background (spec 3 §3.1 rule 5). */
  | { readonly t: "resolve-duration"; readonly chart: number };

/** Result of a transition: the new room (null = deleted) and its effects. */
export interface Transition {
  readonly room: Room | null;
  readonly effects: readonly RoomEffect[];
}
