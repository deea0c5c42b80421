/**
 * Room procedures shared by several commands (protocol.md §5.5, spec 3
 * §3.1): the leave procedure, the all-ready and all-done checks, starting a
 * round with its deadline, and settlement with the ranking.
 *
 * @module
 */

import type { LeaveReason } from "../events/mod.ts";
import { pick } from "../util/random.ts";
import { rankingLines } from "./ranking.ts";
import type { Tx } from "./tx.ts";
import { SettledRound } from "./settled_round.ts";
import { type Member, type Room, SYSTEM_HOST } from "./types.ts";
import { keepLast, roundData } from "./views.ts";

/**
 * Leave procedure: tell the room (leaver included), remove the user, pick a
 * random new host if the host left (unless the room is in tournament mode),
 * delete the room when no players are left (unless it is persistent;
 * monitors never keep a room alive), then run the all-ready / all-done
 * checks, since a leave can start or end the round.
 */
export function leaveProcedure(tx: Tx, member: Member, reason: LeaveReason): void {
  const room = tx.r;
  tx.message({ type: "LeaveRoom", user: member.id, name: member.name });
  const phase = room.phase;
  tx.set({
    players: room.players.filter((p) => p.id !== member.id),
    monitors: room.monitors.filter((m) => m.id !== member.id),
    phase: phase.kind === "wait"
      ? { ...phase, ready: phase.ready.filter((id) => id !== member.id) }
      : phase.kind === "play" && phase.progress.has(member.id)
      ? { ...phase, progress: without(phase.progress, member.id) }
      : phase,
  });
  tx.membership(member.id, null, false);
  tx.event({ kind: "room.left", user: member.id, name: member.name, monitor: member.monitor, reason });
  if (tx.r.players.length === 0) {
    if (!tx.r.persistent) {
      // spec 3 §2.1: deleted with its last player; monitors get no further messages.
      tx.event({ kind: "room.deleted" });
      for (const m of tx.r.monitors) tx.membership(m.id, null, false);
      tx.room = null;
      return;
    }
    emptyPersistentRoom(tx);
    return;
  }
  if (room.hostId === member.id) {
    if (tx.r.tournament) {
      // Tournament rooms do not hand the host on by themselves (spec 3 §2.1).
      tx.set({ hostId: null });
      tx.updated({ host: -1 });
    } else assignHost(tx, pick(tx.ctx.random, tx.r.players).id);
  }
  checkAllReady(tx);
  checkAllDone(tx);
}

/** A persistent room without players waits, empty, for the next one. */
function emptyPersistentRoom(tx: Tx): void {
  const room = tx.r;
  if (room.hostId !== SYSTEM_HOST && room.hostId !== null) {
    tx.set({ hostId: null });
    tx.updated({ host: -1 });
  }
  if (room.phase.kind !== "select") {
    tx.set({ phase: { kind: "select" } });
    tx.toRoom({ type: "ChangeState", state: { type: "SelectChart", chart: room.chart?.id ?? null } });
    tx.updated({ state: "SelectingChart" });
  }
}

/** Makes `id` the host: `Message::NewHost` to the room, `ChangeHost(true)` to them. */
export function assignHost(tx: Tx, id: number): void {
  tx.set({ hostId: id });
  tx.message({ type: "NewHost", user: id });
  tx.to([id], { type: "ChangeHost", is_host: true });
  tx.updated({ host: id });
}

/** Starts playing when every player and every monitor is ready (protocol.md §5.5). */
export function checkAllReady(tx: Tx): void {
  const room = tx.r;
  const phase = room.phase;
  if (phase.kind !== "wait" || room.players.length === 0) return;
  const everyone = [...room.players, ...room.monitors];
  if (!everyone.every((m) => phase.ready.includes(m.id))) return;
  startPlaying(tx, []);
}

/**
 * Moves the room into play. `aborted` players (not ready when the countdown
 * ran out) are counted as aborted from the start. The deadline is the
 * chart's duration plus the offset (spec 3 §3.1 rule 1).
 */
export function startPlaying(tx: Tx, aborted: readonly number[]): void {
  const { ctx } = tx;
  const round = ctx.newUuid();
  const duration = tx.r.chart?.durationSecs ?? ctx.timing.fallbackDurationSecs;
  const deadline = ctx.now + (duration + ctx.timing.playingOffsetSecs) * 1000;
  tx.message({ type: "StartPlaying" });
  tx.set({
    phase: {
      kind: "play",
      round,
      startedAt: ctx.now,
      results: new Map(),
      aborted,
      deadline,
      extended: false,
      progress: new Map(),
      late: [],
    },
  });
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
  checkAllDone(tx);
}

/**
 * Ends the round once every player has a result or has aborted (monitors and
 * late joiners are ignored: spec 3 §3.1 rule 6, they do not hold it up).
 */
export function checkAllDone(tx: Tx): void {
  const room = tx.r;
  const phase = room.phase;
  if (phase.kind !== "play") return;
  if (unfinishedPlayers(room).length) return;
  settle(tx);
}

/** Ids of the round's players who neither finished nor aborted (late joiners excluded). */
export function unfinishedPlayers(room: Room): number[] {
  const phase = room.phase;
  if (phase.kind !== "play") return [];
  return room.players
    .filter((p) => !phase.results.has(p.id) && !phase.aborted.includes(p.id) && !phase.late.includes(p.id))
    .map((p) => p.id);
}

/**
 * Settlement: record the round, the localized ranking as system chat lines
 * (not in tournament mode), `GameEnd`, back to chart selection with the chart
 * still selected (its probed duration released and resolved again for the
 * next round), cycle the host if enabled, then `ChangeState` (spec 3 §3.1
 * table, protocol.md §5.5). Late joiners without a result are not part of
 * the round: neither ranked nor counted as aborted.
 */
export function settle(tx: Tx): void {
  const room = tx.r;
  const phase = room.phase;
  if (phase.kind !== "play") return;
  const chart = room.chart ?? { id: -1, name: "" };
  const record = new SettledRound({
    uuid: phase.round,
    chart: { id: chart.id, name: chart.name },
    records: [...phase.results.values()],
    aborted: phase.aborted,
    startedAt: phase.startedAt,
    finishedAt: tx.ctx.now,
  });
  if (!room.tournament) {
    const ids = [...room.players, ...room.monitors].map((m) => m.id);
    for (const line of rankingLines(room, record)) tx.text(ids, line.key, line.args);
  }
  tx.message({ type: "GameEnd" });
  tx.set({
    phase: { kind: "select" },
    rounds: keepLast([...room.rounds, record], tx.ctx.playHistoryLimit),
    chart: room.chart ? { id: room.chart.id, name: room.chart.name, durationSecs: null } : null,
  });
  // spec 3 §3.1 rule 5: the length is released after settlement and
  // re-resolved; without this the next round on the same chart (no new
  // selection) would run on the 10000 s fallback.
  if (room.chart) tx.effects.push({ t: "resolve-duration", chart: room.chart.id });
  tx.event({
    kind: "round.completed",
    round: record.uuid,
    chart: chart.id,
    chartName: chart.name,
    data: roundData(record),
    aborted: record.aborted,
    startedAt: record.startedAt,
  });
  if (tx.r.cycle && !tx.r.tournament) cycleHost(tx);
  tx.toRoom({ type: "ChangeState", state: { type: "SelectChart", chart: tx.r.chart?.id ?? null } });
  tx.updated({ state: "SelectingChart" });
}

/** Cycle mode: the host passes to the next player in list order, wrapping around (spec 3 §3.1 rule 2). */
function cycleHost(tx: Tx): void {
  const room = tx.r;
  if (room.players.length === 0 || room.hostId === SYSTEM_HOST) return;
  const old = room.hostId;
  const index = room.players.findIndex((p) => p.id === old);
  const next = room.players[(index + 1) % room.players.length]!;
  tx.set({ hostId: next.id });
  tx.message({ type: "NewHost", user: next.id });
  if (old !== null && room.players.some((p) => p.id === old)) tx.to([old], { type: "ChangeHost", is_host: false });
  tx.to([next.id], { type: "ChangeHost", is_host: true });
  tx.updated({ host: next.id });
}

function without<K, V>(map: ReadonlyMap<K, V>, key: K): Map<K, V> {
  const copy = new Map(map);
  copy.delete(key);
  return copy;
}
