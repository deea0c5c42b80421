/**
 * Room procedures shared by several commands (protocol.md §5.5): the leave
 * procedure, the all-ready and all-done checks, and settlement.
 *
 * @module
 */

import type { LeaveReason } from "../events/mod.ts";
import { pick } from "../util/random.ts";
import type { Tx } from "./tx.ts";
import type { Member, RoundRecord } from "./types.ts";
import { keepLast, roundData } from "./views.ts";

/**
 * Leave procedure: tell the room (leaver included), remove the user, pick a
 * random new host if the host left (or delete the room when no players are
 * left; monitors do not keep a room alive), then run the all-ready /
 * all-done checks, since a leave can start or end the game.
 */
export function leaveProcedure(tx: Tx, member: Member, reason: LeaveReason): void {
  const room = tx.r;
  tx.message({ type: "LeaveRoom", user: member.id, name: member.name });
  const phase = room.phase;
  tx.set({
    players: room.players.filter((p) => p.id !== member.id),
    monitors: room.monitors.filter((m) => m.id !== member.id),
    phase: phase.kind === "wait" ? { kind: "wait", ready: phase.ready.filter((id) => id !== member.id) } : phase,
  });
  tx.membership(member.id, null, false);
  tx.event({ kind: "room.left", user: member.id, name: member.name, monitor: member.monitor, reason });
  if (room.hostId === member.id) {
    const players = tx.r.players;
    if (players.length === 0) {
      // spec 3 §2.1: deleted with its last player; monitors get no further messages.
      tx.event({ kind: "room.deleted" });
      for (const m of tx.r.monitors) tx.membership(m.id, null, false);
      tx.room = null;
      return;
    }
    const next = pick(tx.ctx.random, players);
    tx.set({ hostId: next.id });
    tx.message({ type: "NewHost", user: next.id });
    tx.to([next.id], { type: "ChangeHost", is_host: true });
    tx.updated({ host: next.id });
  }
  checkAllReady(tx);
  checkAllDone(tx);
}

/** Starts playing when every player and every monitor is ready (protocol.md §5.5). */
export function checkAllReady(tx: Tx): void {
  const room = tx.r;
  const phase = room.phase;
  if (phase.kind !== "wait") return;
  const everyone = [...room.players, ...room.monitors];
  if (!everyone.every((m) => phase.ready.includes(m.id))) return;
  startPlaying(tx);
}

/** Moves a waiting room into play. */
export function startPlaying(tx: Tx): void {
  const round = tx.ctx.newUuid();
  tx.message({ type: "StartPlaying" });
  tx.set({ phase: { kind: "play", round, startedAt: tx.ctx.now, results: new Map(), aborted: [] } });
  tx.toRoom({ type: "ChangeState", state: { type: "Playing" } });
  tx.updated({ state: "Playing" });
  const chart = tx.r.chart;
  tx.event({
    kind: "round.started",
    round,
    chart: chart?.id ?? -1,
    chartName: chart?.name ?? "",
    players: tx.r.players.map((p) => p.id),
  });
}

/** Ends the round once every player has a result or has aborted (monitors are ignored). */
export function checkAllDone(tx: Tx): void {
  const room = tx.r;
  const phase = room.phase;
  if (phase.kind !== "play") return;
  if (!room.players.every((p) => phase.results.has(p.id) || phase.aborted.includes(p.id))) return;
  settle(tx);
}

/**
 * Settlement: record the round, `GameEnd`, back to chart selection with the
 * chart still selected, cycle the host if enabled, then `ChangeState`.
 */
export function settle(tx: Tx): void {
  const room = tx.r;
  const phase = room.phase;
  if (phase.kind !== "play") return;
  const chart = room.chart ?? { id: -1, name: "" };
  const record: RoundRecord = {
    uuid: phase.round,
    chart,
    records: [...phase.results.values()],
    aborted: phase.aborted,
    startedAt: phase.startedAt,
    finishedAt: tx.ctx.now,
  };
  const rounds = keepLast([...room.rounds, record], tx.ctx.playHistoryLimit);
  tx.message({ type: "GameEnd" });
  tx.set({ phase: { kind: "select" }, rounds });
  tx.event({
    kind: "round.completed",
    round: record.uuid,
    chart: chart.id,
    chartName: chart.name,
    data: roundData(record),
    aborted: record.aborted,
    startedAt: record.startedAt,
  });
  if (tx.r.cycle) cycleHost(tx);
  tx.toRoom({ type: "ChangeState", state: { type: "SelectChart", chart: tx.r.chart?.id ?? null } });
  tx.updated({ state: "SelectingChart" });
}

/** Cycle mode: the host passes to the next player in list order, wrapping around (spec 3 §3.1 rule 2). */
function cycleHost(tx: Tx): void {
  const room = tx.r;
  if (room.players.length === 0) return;
  const old = room.hostId;
  const index = room.players.findIndex((p) => p.id === old);
  const next = room.players[(index + 1) % room.players.length]!;
  tx.set({ hostId: next.id });
  tx.message({ type: "NewHost", user: next.id });
  if (old !== null && room.players.some((p) => p.id === old)) tx.to([old], { type: "ChangeHost", is_host: false });
  tx.to([next.id], { type: "ChangeHost", is_host: true });
  tx.updated({ host: next.id });
}
