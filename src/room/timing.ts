/**
 * Time-driven room transitions (spec 3 §3.1 rule 1, §8). A room stores its
 * deadlines as absolute times; the runtime arms one timer per room for
 * {@link nextWake} and calls {@link tick} when it fires. Nothing here reads a
 * clock: `ctx.now` is the time.
 *
 * @module
 */

import type { MessageArgs } from "../l10n/mod.ts";
import { checkAllDone, settle, startPlaying, unfinishedPlayers } from "./procedures.ts";
import { Tx } from "./tx.ts";
import type { Room, RoomCtx, Transition } from "./types.ts";

/** The earliest time this room needs a {@link tick}, or null. */
export function nextWake(room: Room): number | null {
  const phase = room.phase;
  if (phase.kind === "wait") return room.tournament ? null : phase.countdownAt;
  if (phase.kind !== "play") return null;
  let at = phase.deadline;
  for (const due of phase.progress.values()) if (due < at) at = due;
  return at;
}

/**
 * Runs what is due: the ready countdown starts the round and marks players
 * who are not ready as aborted; the playing deadline aborts every unfinished
 * player and settles (also when nobody finished); late joiners get their
 * progress notice.
 */
export function tick(room: Room, ctx: RoomCtx): Transition {
  const tx = new Tx(room, ctx);
  const phase = room.phase;
  if (phase.kind === "wait") {
    if (!room.tournament && phase.countdownAt !== null && phase.countdownAt <= ctx.now) {
      const notReady = room.players.filter((p) => !phase.ready.includes(p.id)).map((p) => p.id);
      startPlaying(tx, notReady);
    }
    return tx.done();
  }
  if (phase.kind !== "play") return tx.done();
  if (phase.deadline <= ctx.now) {
    const unfinished = unfinishedPlayers(room);
    for (const id of unfinished) tx.message({ type: "Abort", user: id });
    tx.set({ phase: { ...phase, aborted: [...phase.aborted, ...unfinished] } });
    settle(tx);
    return tx.done();
  }
  const due = [...phase.progress].filter(([, at]) => at <= ctx.now).map(([id]) => id);
  if (due.length) {
    const progress = new Map(phase.progress);
    for (const id of due) progress.set(id, ctx.now + ctx.timing.progressIntervalSecs * 1000);
    tx.set({ phase: { ...phase, progress } });
    progressNotice(tx, due);
  }
  return tx.done();
}

/** Sends the progress notice (20-cell bar, percent, minutes left) to some late joiners. */
export function progressNotice(tx: Tx, ids: readonly number[]): void {
  const room = tx.r;
  const phase = room.phase;
  if (phase.kind !== "play") return;
  const duration = room.chart?.durationSecs;
  if (!duration) {
    tx.text(ids, "room-progress-unknown");
    return;
  }
  tx.text(ids, "room-progress", progressArgs((tx.ctx.now - phase.startedAt) / 1000, duration));
}

/** Bar, percentage and minutes left for `elapsed` of `duration` seconds. */
export function progressArgs(elapsed: number, duration: number): MessageArgs {
  const fraction = Math.min(1, Math.max(0, elapsed / duration));
  const filled = Math.round(fraction * 20);
  return {
    bar: "\u2588".repeat(filled) + "\u2591".repeat(20 - filled),
    percent: Math.round(fraction * 100),
    remaining: Math.max(0, Math.ceil((duration - elapsed) / 60)),
  };
}

/**
 * Records the probed audio length of the selected chart. Ignored when another
 * chart was selected meanwhile. During play the deadline follows the new
 * duration (unless the first finisher already extended it).
 */
export function setChartDuration(room: Room, chartId: number, durationSecs: number, ctx: RoomCtx): Transition {
  const tx = new Tx(room, ctx);
  if (room.chart?.id !== chartId) return tx.done();
  tx.set({ chart: { ...room.chart, durationSecs } });
  const phase = tx.r.phase;
  if (phase.kind === "play" && !phase.extended) {
    const deadline = phase.startedAt + (durationSecs + ctx.timing.playingOffsetSecs) * 1000;
    tx.set({ phase: { ...phase, deadline } });
  }
  checkAllDone(tx);
  return tx.done();
}
