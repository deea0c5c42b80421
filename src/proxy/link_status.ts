/**
 * The room-monitor link's state as the rest of the proxy sees it: up, or
 * down with the reason REST answers carry (503, never a hang).
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
