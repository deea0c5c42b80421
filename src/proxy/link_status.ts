/**
 * The room-monitor link's state as the rest of the proxy sees it -- up, or
 * down with the reason REST answers carry (503, never a hang) -- its
 * counters and its timing.
 *
 * @module
 */

/** Why the game server cannot answer now; REST maps it to 503. */
export class LinkUnavailable extends Error {
  override readonly name = "LinkUnavailable";
}

/** Counters of a {@link RoomLink}. */
export interface LinkCounts {
  /** Sessions opened. */
  connects: number;
  /** `QueryRoomInfo` sent. */
  queries: number;
  /** `UserVisit` received. */
  visits: number;
  /** `RoomEvent` received. */
  events: number;
}

/** State of the link. */
export type LinkStatus =
  | { readonly status: "up"; readonly since: number }
  | { readonly status: "down"; readonly reason: string; readonly since: number };

/** Timing of the link; every field has a default. */
export interface RoomLinkTiming {
  /** Give up a connection attempt after this long, ms (default 5000). */
  readonly connectTimeoutMs?: number;
  /** Wait for the login answer this long, ms (default 3000, extended.md §5.2). */
  readonly authTimeoutMs?: number;
  /** Wait for a `RoomResponse` this long, ms (default 3000). */
  readonly queryTimeoutMs?: number;
  /** A picture younger than this is fresh enough, ms (default 1000: at most one query a second). */
  readonly minQueryIntervalMs?: number;
  /** Heartbeat interval, ms (default 3000, extended.md §5.2). */
  readonly pingIntervalMs?: number;
  /** Declare the server gone after this long without any packet, ms (default 10000). */
  readonly silenceLimitMs?: number;
  /** First reconnection delay, ms (default 500); doubles up to {@link maxBackoffMs}. */
  readonly initialBackoffMs?: number;
  /** Largest reconnection delay, ms (default 15000). */
  readonly maxBackoffMs?: number;
}

/** Defaults of {@link RoomLinkTiming}. */
export const LINK_TIMING_DEFAULTS: Required<RoomLinkTiming> = {
  connectTimeoutMs: 5000,
  authTimeoutMs: 3000,
  queryTimeoutMs: 3000,
  minQueryIntervalMs: 1000,
  pingIntervalMs: 3000,
  silenceLimitMs: 10_000,
  initialBackoffMs: 500,
  maxBackoffMs: 15_000,
};
