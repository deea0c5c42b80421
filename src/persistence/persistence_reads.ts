/**
 * Reads behind `Persistence` that take more than one query: the state
 * loaded at startup, every room snapshot (paged), the playtime ranking with
 * time not flushed yet, and the replay of every dead letter.
 *
 * @module
 */

import type { Logger } from "../util/log.ts";
import type { ReplayOutcome, Store } from "./apply/mod.ts";
import type { Queryable } from "./backends/mod.ts";
import { loadBans, loadSettings, type PlaytimeRow, type Queries, type SnapshotRow } from "./queries/mod.ts";
import type { PlaytimeTracker } from "./recording/mod.ts";

/** Outcome of replaying the dead letters. */
export interface DeadLetterReplay {
  readonly replayed: number;
  readonly failed: readonly ReplayOutcome[];
}

/** What startup loads into memory. */
export interface LoadedState {
  readonly bans: Awaited<ReturnType<typeof loadBans>>;
  readonly settings: Map<string, unknown>;
  /** Dead letters in the store. */
  readonly deadLetters: number;
}

/** What startup loads into memory: bans, settings, and how many dead letters there are. */
export async function loadState(db: Queryable, store: Store): Promise<LoadedState> {
  return { bans: await loadBans(db), settings: await loadSettings(db), deadLetters: await store.deadLetterCount() };
}

/** Every saved room snapshot, in pages of 1,000. */
export async function allRoomSnapshots(queries: Queries): Promise<SnapshotRow[]> {
  const out: SnapshotRow[] = [];
  for (let since = 0;;) {
    const page = await queries.roomSnapshots(since, 1000);
    out.push(...page);
    if (page.length < 1000) return out;
    since = page.at(-1)!.seq;
  }
}

/** The `n` users with the most playtime, counting time in rooms not journaled yet. */
export async function livePlaytimeRanking(
  queries: Queries,
  playtime: PlaytimeTracker,
  n: number,
  now: number,
): Promise<PlaytimeRow[]> {
  const rows = await queries.topPlaytime(n + playtime.inRooms);
  const live = rows.map((r) => ({ ...r, total_ms: r.total_ms + playtime.pendingFor(r.user_id, now) }));
  return live.sort((a, b) => b.total_ms - a.total_ms || a.user_id - b.user_id).slice(0, Math.max(0, n));
}

/** Applies every dead letter again; the ones that succeed leave the list. */
export async function replayAllDeadLetters(store: Store, now: () => number, log: Logger): Promise<DeadLetterReplay> {
  const failed: ReplayOutcome[] = [];
  let replayed = 0;
  for (const letter of await store.deadLetters(1000)) {
    const outcome = await store.replayDeadLetter(letter, now());
    if (outcome.ok) replayed++;
    else failed.push(outcome);
  }
  log.info("dead letters replayed", { replayed, failed: failed.length });
  return { replayed, failed };
}
