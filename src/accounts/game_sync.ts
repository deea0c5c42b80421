/**
 * Keeps users' `game_username`, `game_rks` and `game_avatar` in step with
 * the upstream API (spec 2 §2.1 `last_sync_time`; §4.4 item 1 for the first
 * generation). Each user has a `next_sync_at`; every minute the due ones
 * (a bounded batch, soonest first) are fetched one at a time. A success
 * schedules the next refresh an interval later (1 hour by default). A
 * failure backs off per user -- 1 minute doubling up to a day -- and, when
 * the API itself is unreachable, the rest of the batch waits for the next
 * round instead of hammering it. The original refreshed every user on every
 * list request.
 *
 * @module
 */

import type { Clock, TimerHandle } from "../util/clock.ts";
import type { Logger } from "../util/log.ts";
import { UpstreamError } from "../upstream/mod.ts";
import type { GameDirectory } from "./game_accounts.ts";
import type { SyncSchedule } from "./store_sync.ts";

/** Options of {@link GameSync}. */
export interface GameSyncOptions {
  readonly schedule: SyncSchedule;
  readonly games: GameDirectory;
  readonly clock: Clock;
  readonly log: Logger;
  /** Time between refreshes of one user, ms (default 1 hour). */
  readonly intervalMs?: number;
  /** Time between rounds, ms (default 60 s). */
  readonly checkMs?: number;
  /** Users per round at most (default 20). */
  readonly batch?: number;
  /** First retry delay after a failure, ms (default 60 s); doubles per failure up to `maxBackoffMs` (default 1 day). */
  readonly minBackoffMs?: number;
  readonly maxBackoffMs?: number;
}

/** What one round did. */
export interface SyncRound {
  readonly synced: number;
  readonly failed: number;
}

/** The refresh schedule. */
export class GameSync {
  readonly #o: Required<GameSyncOptions>;
  #timer: TimerHandle | undefined;
  #running: Promise<unknown> = Promise.resolve();
  #closed = false;

  constructor(o: GameSyncOptions) {
    this.#o = {
      intervalMs: 3_600_000,
      checkMs: 60_000,
      batch: 20,
      minBackoffMs: 60_000,
      maxBackoffMs: 86_400_000,
      ...o,
    };
  }

  /** The delay before retrying a user that failed `failures` times in a row. */
  backoff(failures: number): number {
    return Math.min(this.#o.maxBackoffMs, this.#o.minBackoffMs * 2 ** Math.max(0, failures - 1));
  }

  /** Starts the rounds. */
  start(): void {
    this.#schedule();
  }

  /** Stops; waits for a round in progress. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#o.clock.clearTimeout(this.#timer);
    await this.#running.catch(() => {});
  }

  #schedule(): void {
    if (this.#closed) return;
    this.#timer = this.#o.clock.setTimeout(() => {
      this.#running = this.runOnce().catch((error) => {
        this.#o.log.warn("game data sync failed", { error: String(error) });
      }).finally(() => this.#schedule());
    }, this.#o.checkMs);
  }

  /** Refreshes the users due now. */
  async runOnce(): Promise<SyncRound> {
    const { schedule: store, games, clock } = this.#o;
    let synced = 0;
    let failed = 0;
    for (const user of await store.dueForSync(clock.now(), this.#o.batch)) {
      if (this.#closed || user.gameId === null) break;
      try {
        const profile = await games.byId(user.gameId);
        const now = clock.now();
        if (profile) {
          await store.recordSync(user.id, profile, now, now + this.#o.intervalMs);
          synced++;
          continue;
        }
        // The game account is gone: keep the last data, look again rarely.
        await store.recordSyncFailure(user.id, user.syncFailures + 1, now + this.#o.maxBackoffMs);
        failed++;
      } catch (error) {
        failed++;
        const failures = user.syncFailures + 1;
        await store.recordSyncFailure(user.id, failures, clock.now() + this.backoff(failures));
        const down = error instanceof UpstreamError &&
          (error.kind === "network" || error.kind === "timeout" || (error.status ?? 0) >= 500);
        if (down) {
          this.#o.log.warn("game API unreachable; user data sync waits", { user: user.id, error: error.message });
          break;
        }
      }
    }
    if (synced || failed) this.#o.log.debug("game data sync", { synced, failed });
    return { synced, failed };
  }
}
