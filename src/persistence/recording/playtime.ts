/**
 * Playtime: time spent inside rooms as a player (spec 3 §2.2), derived from
 * `room.joined` / `room.left` events. Accumulated in memory and flushed to
 * the journal every 60 s and at shutdown (spec 3 §8 "playtime flush 60 s");
 * an open stay is counted up to the flush and continues from there.
 *
 * @module
 */

/** Per-user playtime not yet journaled. */
export class PlaytimeTracker {
  /** User -> time the current stay (or its unflushed part) began. */
  readonly #open = new Map<number, number>();
  /** User -> milliseconds of finished stays not yet flushed. */
  readonly #pending = new Map<number, number>();

  /** A player entered a room. */
  joined(user: number, at: number): void {
    if (!this.#open.has(user)) this.#open.set(user, at);
  }

  /** A player left a room. */
  left(user: number, at: number): void {
    const since = this.#open.get(user);
    if (since === undefined) return;
    this.#open.delete(user);
    this.#add(user, at - since);
  }

  /** Users currently inside a room. */
  get inRooms(): number {
    return this.#open.size;
  }

  /** Unflushed milliseconds of `user` up to `now`. */
  pendingFor(user: number, now: number): number {
    const since = this.#open.get(user);
    return (this.#pending.get(user) ?? 0) + (since === undefined ? 0 : Math.max(0, now - since));
  }

  /** Every user's unflushed milliseconds up to `now`, resetting the counts (open stays continue from `now`). */
  take(now: number): [number, number][] {
    for (const [user, since] of this.#open) {
      this.#add(user, now - since);
      this.#open.set(user, now);
    }
    const out = [...this.#pending].filter(([, ms]) => ms > 0);
    this.#pending.clear();
    return out;
  }

  #add(user: number, ms: number): void {
    if (ms > 0) this.#pending.set(user, (this.#pending.get(user) ?? 0) + ms);
  }
}
