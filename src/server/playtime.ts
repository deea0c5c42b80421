/**
 * Playtime: time users spend inside rooms (spec 3 §2.2). The durable store
 * of the persistence layer implements {@link PlaytimeSource}; without it,
 * {@link MemoryPlaytime} counts from the event bus for the life of the process.
 *
 * @module
 */

import type { DomainEvent, EventBus } from "../events/mod.ts";

/** A ranked playtime entry. */
export interface PlaytimeEntry {
  readonly user_id: number;
  readonly name: string;
  readonly seconds: number;
}

/** Where playtime figures come from (the durable store answers asynchronously). */
export interface PlaytimeSource {
  /** Accumulated seconds of a user, including a stay in progress. */
  seconds(userId: number): Promise<number>;
  /** The users with the most playtime, longest first. */
  top(limit: number): Promise<PlaytimeEntry[]>;
}

/** Counts time in rooms from `room.*` events. Players only (monitors and negative ids are not counted). */
export class MemoryPlaytime implements PlaytimeSource {
  readonly #now: () => number;
  readonly #nameOf: (id: number) => string | undefined;
  readonly #totals = new Map<number, { name: string; ms: number }>();
  readonly #since = new Map<number, number>();
  readonly #stop: () => void;

  /** `nameOf` resolves display names of users who are online. */
  constructor(bus: EventBus, now: () => number, nameOf: (id: number) => string | undefined) {
    this.#now = now;
    this.#nameOf = nameOf;
    this.#stop = bus.listen((e) => this.#on(e));
  }

  /** Stops listening. */
  close(): void {
    this.#stop();
  }

  #on(e: DomainEvent): void {
    if (e.kind === "room.created" && e.by !== null) this.#enter(e.by, e.time);
    else if (e.kind === "room.joined" && !e.monitor) this.#enter(e.user, e.time);
    else if (e.kind === "room.left" && !e.monitor) this.#leave(e.user, e.time);
  }

  #enter(user: number, at: number): void {
    if (user <= 0 || this.#since.has(user)) return;
    this.#since.set(user, at);
    if (!this.#totals.has(user)) this.#totals.set(user, { name: this.#nameOf(user) ?? `#${user}`, ms: 0 });
  }

  #leave(user: number, at: number): void {
    const since = this.#since.get(user);
    if (since === undefined) return;
    this.#since.delete(user);
    const entry = this.#totals.get(user)!;
    entry.ms += Math.max(0, at - since);
    entry.name = this.#nameOf(user) ?? entry.name;
  }

  seconds(userId: number): Promise<number> {
    return Promise.resolve(this.secondsNow(userId));
  }

  /** Synchronous form of {@link seconds}. */
  secondsNow(userId: number): number {
    const since = this.#since.get(userId);
    const ms = (this.#totals.get(userId)?.ms ?? 0) + (since === undefined ? 0 : Math.max(0, this.#now() - since));
    return ms / 1000;
  }

  top(limit: number): Promise<PlaytimeEntry[]> {
    return Promise.resolve(
      [...this.#totals.entries()]
        .map(([user_id, e]) => ({ user_id, name: this.#nameOf(user_id) ?? e.name, seconds: this.secondsNow(user_id) }))
        .sort((a, b) => b.seconds - a.seconds || a.user_id - b.user_id)
        .slice(0, Math.max(0, limit)),
    );
  }
}

/**
 * Caches `top()` for `ttlMs`: the welcome message asks for it on every
 * login, and ranking all users (or querying the store) each time was a
 * large share of a login burst's CPU (BENCHMARKS.md "Load generator").
 */
export function withCachedTop(source: PlaytimeSource, now: () => number, ttlMs = 30_000): PlaytimeSource {
  let cached: { at: number; limit: number; value: Promise<PlaytimeEntry[]> } | null = null;
  return {
    seconds: (id) => source.seconds(id),
    top(limit) {
      const t = now();
      if (!cached || cached.limit < limit || t - cached.at >= ttlMs) {
        const value = source.top(limit);
        cached = { at: t, limit, value };
        value.catch(() => (cached = null));
      }
      return cached.value.then((entries) => entries.slice(0, limit));
    },
  };
}
