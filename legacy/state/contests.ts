/**
 * Contest rooms (tphira's "one-off rooms"; lua-cpp `enable_contest`): a
 * whitelist of who may join, an optional manual start, and an optional
 * disband once the round is settled. In memory, as in tphira: a restart
 * ends every contest. What the settings do to the room (tournament mode,
 * the organiser seat that holds the round until the organiser starts it)
 * is done by the contest operations (`ops_contest.ts`).
 *
 * @module
 */

/** One contest room. */
export interface Contest {
  /** Who may join; empty = anyone. */
  readonly whitelist: ReadonlySet<number>;
  /** The round waits for the organiser's start (`start_contest`). */
  readonly manualStart: boolean;
  /** The room is disbanded once a round is settled. */
  readonly autoDisband: boolean;
}

/** Contest settings by room id. */
export class Contests {
  readonly #rooms = new Map<string, Contest>();

  get(roomId: string): Contest | undefined {
    return this.#rooms.get(roomId);
  }

  set(roomId: string, contest: Contest): void {
    this.#rooms.set(roomId, contest);
  }

  delete(roomId: string): boolean {
    return this.#rooms.delete(roomId);
  }

  /** Room ids with a contest. */
  rooms(): string[] {
    return [...this.#rooms.keys()].sort();
  }

  /** True when `userId` may join `roomId` (no contest, an empty whitelist, or listed). */
  allows(roomId: string, userId: number): boolean {
    const c = this.#rooms.get(roomId);
    return !c || c.whitelist.size === 0 || c.whitelist.has(userId);
  }
}
