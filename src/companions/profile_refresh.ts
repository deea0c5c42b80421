/**
 * Background refresh of each user's game name, avatar and rks from the
 * upstream API (spec 2 §4.4 behaviour 1), one user at a time, paced by
 * `refresh_gap_ms`. Back-off at two levels: a user whose lookup fails waits
 * `interval × 2^failures` (capped at `max_backoff_secs`) before the next
 * try; an upstream that cannot be reached at all (network error, timeout,
 * 5xx, 429) pauses the whole loop, doubling from 30 s to the same cap, so
 * an outage costs one request per pause instead of one per user. (The
 * original polled every user every 10 s and never backed off.)
 *
 * @module
 */

import { type Upstream, UpstreamError } from "../upstream/mod.ts";
import type { Clock, TimerHandle } from "../util/clock.ts";
import type { Logger } from "../util/log.ts";
import type { UserStore } from "./user_store.ts";

/** Settings of {@link ProfileRefresher}. */
export interface RefreshPolicy {
  /** Seconds between refreshes of one user; 0 switches the refresh off. */
  readonly refresh_interval_secs: number;
  /** Milliseconds between two upstream requests. */
  readonly refresh_gap_ms: number;
  /** Longest back-off, seconds. */
  readonly max_backoff_secs: number;
}

/** First pause after the upstream could not be reached. */
const OUTAGE_PAUSE_MS = 30_000;

/** Longest wait before looking for due users again when none is due. */
const IDLE_CHECK_MS = 60_000;

function unreachable(error: unknown): boolean {
  if (!(error instanceof UpstreamError)) return true;
  if (error.kind === "network" || error.kind === "timeout") return true;
  return error.kind === "http" && (error.status === 429 || (error.status ?? 0) >= 500);
}

/** The refresh loop. */
export class ProfileRefresher {
  readonly #store: UserStore;
  readonly #upstream: Upstream;
  readonly #clock: Clock;
  readonly #log: Logger;
  readonly #policy: RefreshPolicy;
  #timer: TimerHandle | undefined;
  #running: Promise<void> | null = null;
  #stopped = true;
  #outages = 0;

  constructor(o: { store: UserStore; upstream: Upstream; clock: Clock; log: Logger; policy: RefreshPolicy }) {
    this.#store = o.store;
    this.#upstream = o.upstream;
    this.#clock = o.clock;
    this.#log = o.log;
    this.#policy = o.policy;
  }

  /** Starts the loop (no-op when the interval is 0). */
  start(): void {
    if (this.#policy.refresh_interval_secs === 0 || !this.#stopped) return;
    this.#stopped = false;
    this.#schedule(0);
  }

  /** Stops the loop and waits for a refresh in flight. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#clock.clearTimeout(this.#timer);
    await this.#running;
  }

  /** Looks for due users now (a user was just registered or bound to another game account). */
  nudge(): void {
    if (this.#stopped || this.#running) return;
    this.#clock.clearTimeout(this.#timer);
    this.#schedule(0);
  }

  #schedule(ms: number): void {
    if (this.#stopped) return;
    this.#timer = this.#clock.setTimeout(() => {
      this.#running = this.step().then(
        (next) => this.#schedule(next),
        (error) => {
          this.#log.error("profile refresh failed", { error: error instanceof Error ? error.message : String(error) });
          this.#schedule(IDLE_CHECK_MS);
        },
      ).finally(() => this.#running = null);
    }, ms);
  }

  #backoffMs(base: number, failures: number): number {
    return Math.min(this.#policy.max_backoff_secs * 1000, base * 2 ** Math.min(failures, 30));
  }

  /** Refreshes the next due user, if any; resolves with the delay before the next step. */
  async step(): Promise<number> {
    const now = this.#clock.now();
    const interval = this.#policy.refresh_interval_secs * 1000;
    const [due] = await this.#store.dueForRefresh(now, 1);
    if (!due) return IDLE_CHECK_MS;
    try {
      const p = await this.#upstream.user(due.game_id, { budgetMs: 15_000 });
      await this.#store.refreshed(
        due.id,
        due.game_id,
        { game_name: p.name.slice(0, 64), game_rks: p.rks ?? 0, image_url: p.avatar ?? "" },
        this.#clock.now(),
        this.#clock.now() + interval,
      );
      this.#outages = 0;
      return this.#policy.refresh_gap_ms;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (unreachable(error)) {
        const pause = this.#backoffMs(OUTAGE_PAUSE_MS, this.#outages++);
        this.#log.warn("game API unreachable; pausing the profile refresh", { error: message, pause_s: pause / 1000 });
        return pause;
      }
      const failures = due.failures + 1;
      await this.#store.refreshFailed(due.id, failures, now + this.#backoffMs(Math.max(interval, 1000), failures));
      this.#log.info("profile refresh failed for a user", { user: due.game_id, failures, error: message });
      return this.#policy.refresh_gap_ms;
    }
  }
}
