/**
 * The room state machine: one pure function per room command. Each takes the
 * room, the acting user and a {@link RoomCtx}, and returns the new room and
 * the ordered effects, ending with exactly one `reply` effect. Preconditions
 * are checked in the official order and the first failure is the reply
 * (protocol.md §5.4). Upstream lookups (chart, record) happen before the
 * call; their results are arguments.
 *
 * Longer than 300 lines on purpose: the player commands of the room's one
 * state machine stay together (operator transitions are `admin_machine.ts`,
 * shared steps `procedures.ts`).
 *
 * @example Usage
 * ```ts
 * import { createRoom, joinRoom } from "./machine.ts";
 * import { SeededRandom } from "../util/random.ts";
 * import { equal } from "node:assert/strict";
 * const timing = { readyCountdownSecs: 60, playingOffsetSecs: 60, fallbackDurationSecs: 10000, progressIntervalSecs: 30 };
 * const ctx = { now: 0, random: new SeededRandom(1), newUuid: () => "u", chatHistoryLimit: 50, playHistoryLimit: 100, timing };
 * const created = createRoom("abc", { id: 1, name: "A", monitor: false }, ctx, { maxPlayers: 8 });
 * const joined = joinRoom(created.room!, { id: 2, name: "B", monitor: false }, ctx, { canMonitor: false });
 * equal(joined.room?.players.length, 2);
 * ```
 *
 * @module
 */

import type { LeaveReason } from "../events/mod.ts";
import type { RecordData } from "../protocol/mod.ts";
import { assignHost, checkAllDone, checkAllReady, leaveProcedure } from "./procedures.ts";
import { progressNotice } from "./timing.ts";
import { Tx } from "./tx.ts";
import type { ChartRef, Member, Room, RoomCtx, Transition } from "./types.ts";
import { findMember, joinResponse, keepLast, roomData } from "./views.ts";

/** Options fixed when a room is created. */
export interface CreateOptions {
  maxPlayers: number;
  /** Defaults to names starting with `-` (spec 3 §2.1). */
  hidden?: boolean;
  persistent?: boolean;
  apiEndpoint?: string | null;
}

/** A new room value with nobody in it yet. */
export function newRoom(id: string, ctx: RoomCtx, options: CreateOptions, creator: Member | null): Room {
  return {
    id,
    uuid: ctx.newUuid(),
    createdAt: ctx.now,
    creatorId: creator?.id ?? null,
    hostId: creator?.id ?? null,
    players: creator ? [{ ...creator, monitor: false }] : [],
    monitors: [],
    locked: false,
    cycle: false,
    live: false,
    hidden: options.hidden ?? id.startsWith("-"),
    maxPlayers: options.maxPlayers,
    persistent: options.persistent ?? false,
    tournament: false,
    degraded: false,
    apiEndpoint: options.apiEndpoint ?? null,
    bans: [],
    chart: null,
    phase: { kind: "select" },
    chat: [],
    rounds: [],
  };
}

/** Creates a room with `creator` as host and only player (protocol.md §5.4 CreateRoom). */
export function createRoom(id: string, creator: Member, ctx: RoomCtx, options: CreateOptions): Transition {
  const room = newRoom(id, ctx, options, creator);
  const tx = new Tx(room, ctx);
  tx.membership(creator.id, id, false);
  // The creator's membership is part of `room.created` (its data lists them);
  // no separate `room.joined`, so stream consumers do not count them twice.
  tx.event({ kind: "room.created", by: creator.id, data: roomData(room) });
  tx.message({ type: "CreateRoom", user: creator.id });
  return tx.ok();
}

/** Options of {@link joinRoom}. */
export interface JoinOptions {
  /** Whether the user may spectate (listed in `monitors`, or a game-monitor session). */
  canMonitor: boolean;
  /** The user already saw the late-join prompt and joins again in time (spec 3 §3.1 rule 6). */
  confirmedLateJoin?: boolean;
}

/**
 * Joins as player or monitor. Checks, in order: room ban, degraded, locked,
 * state, monitor permission, capacity; monitors skip lock, state and
 * capacity (spec 3 §3.1 rule 6). A monitor turns the room live for good. A
 * player joining a running round is first asked to confirm; once confirmed
 * they join as aborted for that round and get progress notices. A player
 * joining a room without host becomes host, told after the reply.
 */
export function joinRoom(room: Room, user: Member, ctx: RoomCtx, options: JoinOptions): Transition {
  const tx = new Tx(room, ctx);
  if (room.bans.some((b) => b.user_id === user.id)) return tx.fail("join-room-banned");
  if (room.degraded) return tx.fail("room-degraded");
  const lateJoin = !user.monitor && room.phase.kind === "play";
  if (user.monitor) {
    if (!options.canMonitor) return tx.fail("join-cant-monitor");
  } else {
    if (room.locked) return tx.fail("join-room-locked");
    if (room.phase.kind === "wait" || (lateJoin && room.tournament)) return tx.fail("join-game-ongoing");
    if (lateJoin && !options.confirmedLateJoin) return tx.fail("join-game-ongoing-confirm");
    if (room.players.length >= room.maxPlayers) return tx.fail("join-room-full");
  }
  const member: Member = { id: user.id, name: user.name, monitor: user.monitor };
  if (member.monitor) tx.set({ monitors: [...room.monitors, member], live: true });
  else tx.set({ players: [...room.players, member] });
  const phase = tx.r.phase;
  if (lateJoin && phase.kind === "play") {
    // spec 3 §3.1 rule 6: a late joiner watches the round out; they are not
    // one of its players, so they neither hold it up nor count as DNF.
    const progress = new Map(phase.progress).set(member.id, ctx.now + ctx.timing.progressIntervalSecs * 1000);
    tx.set({ phase: { ...phase, late: [...phase.late, member.id], progress } });
  }
  if (member.monitor && phase.kind === "wait") {
    // protocol.md §5.6: phira-monitor sends Ready when it sees
    // ChangeState(WaitingForReady), which a monitor joining mid-wait never
    // receives; count it as ready so the round does not wait for the countdown.
    tx.set({ phase: { ...phase, ready: [...phase.ready, member.id] } });
  }
  tx.membership(member.id, room.id, member.monitor);
  tx.event({ kind: "room.joined", user: member.id, name: member.name, monitor: member.monitor });
  tx.toRoom({ type: "OnJoinRoom", user: { id: member.id, name: member.name, monitor: member.monitor } });
  tx.message({ type: "JoinRoom", user: member.id, name: member.name });
  tx.effects.push({ t: "reply", result: { ok: true, value: joinResponse(tx.r) } });
  // After the reply the joiner has room state. JoinRoom(Ok{WaitingForReady |
  // Playing}) does not name the chart, and the official client panics on the
  // StartPlaying / ChangeState(Playing) that follow unless it learned the
  // chart (TeamFlos/phira-mp#33, protocol.md §5.5): repeat the selection to
  // the joiner first, as the reconnect path does.
  const chart = tx.r.chart;
  if (chart && tx.r.phase.kind !== "select") {
    tx.to([member.id], {
      type: "Message",
      message: { type: "SelectChart", user: tx.r.hostId ?? 0, name: chart.name, id: chart.id },
    });
  }
  // Then replay the chat history (spec 3 §2.1) ...
  for (const line of tx.r.chat) {
    tx.to([member.id], { type: "Message", message: { type: "Chat", user: line.user, content: line.content } });
  }
  // ... the compensating host assignment of a room that had none ...
  if (!member.monitor && tx.r.hostId === null && !tx.r.tournament) assignHost(tx, member.id);
  // ... and a late joiner's first progress notice.
  if (lateJoin) progressNotice(tx, [member.id]);
  return tx.done();
}

/** `LeaveRoom` and every other way out of a room (disconnect, kick). */
export function leaveRoom(room: Room, userId: number, ctx: RoomCtx, reason: LeaveReason = "leave"): Transition {
  const tx = new Tx(room, ctx);
  const member = findMember(room, userId);
  if (!member) return tx.fail("no-room");
  leaveProcedure(tx, member, reason);
  return tx.ok();
}

function requireHost(tx: Tx, userId: number): boolean {
  return tx.r.hostId === userId;
}

/** `LockRoom`: host only, no state check. */
export function lockRoom(room: Room, userId: number, lock: boolean, ctx: RoomCtx): Transition {
  const tx = new Tx(room, ctx);
  if (!requireHost(tx, userId)) return tx.fail("only-host");
  tx.set({ locked: lock });
  tx.message({ type: "LockRoom", lock });
  tx.updated({ lock });
  return tx.ok();
}

/** `CycleRoom`: host only. */
export function cycleRoom(room: Room, userId: number, cycle: boolean, ctx: RoomCtx): Transition {
  const tx = new Tx(room, ctx);
  if (!requireHost(tx, userId)) return tx.fail("only-host");
  tx.set({ cycle });
  tx.message({ type: "CycleRoom", cycle });
  tx.updated({ cycle });
  return tx.ok();
}

/** Why `SelectChart` would be refused now (checked before the upstream lookup), or null. */
export function selectChartProblem(room: Room, userId: number): "invalid-state" | "only-host" | null {
  if (room.phase.kind !== "select") return "invalid-state";
  if (room.hostId !== userId) return "only-host";
  return null;
}

/** `SelectChart` with the chart already looked up (or its `#id` fallback name). */
export function selectChart(room: Room, userId: number, chart: ChartRef, ctx: RoomCtx): Transition {
  const tx = new Tx(room, ctx);
  const problem = selectChartProblem(room, userId);
  if (problem) return tx.fail(problem);
  tx.set({ chart });
  tx.message({ type: "SelectChart", user: userId, name: chart.name, id: chart.id });
  tx.toRoom({ type: "ChangeState", state: { type: "SelectChart", chart: chart.id } });
  tx.updated({ chart: chart.id });
  return tx.ok();
}

/** `RequestStart`: host only, needs a chart; the host counts as ready. */
export function requestStart(room: Room, userId: number, ctx: RoomCtx): Transition {
  const tx = new Tx(room, ctx);
  if (room.phase.kind !== "select") return tx.fail("invalid-state");
  if (!requireHost(tx, userId)) return tx.fail("only-host");
  if (!room.chart) return tx.fail("start-no-chart-selected");
  tx.set({ phase: { kind: "wait", ready: [userId], countdownAt: countdownAt(room, ctx) } });
  tx.message({ type: "GameStart", user: userId });
  tx.toRoom({ type: "ChangeState", state: { type: "WaitingForReady" } });
  tx.updated({ state: "WaitingForReady" });
  checkAllReady(tx);
  return tx.ok();
}

/** When a round entering WaitingForReady starts by itself: never in tournament mode (spec 3 §2.1). */
export function countdownAt(room: Room, ctx: RoomCtx): number | null {
  return room.tournament ? null : ctx.now + ctx.timing.readyCountdownSecs * 1000;
}

/** `Ready`: only meaningful while waiting; Ok and nothing otherwise. */
export function ready(room: Room, userId: number, ctx: RoomCtx): Transition {
  const tx = new Tx(room, ctx);
  const phase = room.phase;
  if (phase.kind !== "wait") return tx.ok();
  if (phase.ready.includes(userId)) {
    // A monitor that joined mid-wait is counted ready already (see joinRoom);
    // its tool's own Ready is then a harmless no-op, not an error.
    return room.monitors.some((m) => m.id === userId) ? tx.ok() : tx.fail("already-ready");
  }
  tx.set({ phase: { ...phase, ready: [...phase.ready, userId] } });
  tx.message({ type: "Ready", user: userId });
  checkAllReady(tx);
  return tx.ok();
}

/** `CancelReady`: a host cancel returns the room to chart selection. */
export function cancelReady(room: Room, userId: number, ctx: RoomCtx): Transition {
  const tx = new Tx(room, ctx);
  const phase = room.phase;
  if (phase.kind !== "wait") return tx.ok();
  if (!phase.ready.includes(userId)) return tx.fail("not-ready");
  const readyNow = phase.ready.filter((id) => id !== userId);
  if (room.hostId === userId) {
    tx.message({ type: "CancelGame", user: userId });
    tx.set({ phase: { kind: "select" } });
    tx.toRoom({ type: "ChangeState", state: { type: "SelectChart", chart: room.chart?.id ?? null } });
    tx.updated({ state: "SelectingChart" });
  } else {
    tx.set({ phase: { ...phase, ready: readyNow } });
    tx.message({ type: "CancelReady", user: userId });
  }
  return tx.ok();
}

/**
 * `Played` with the record already fetched and checked to belong to the user.
 * The score is broadcast first, as in the official server; then, while
 * playing, an aborted user gets `aborted` and a second upload gets
 * `already uploaded` (the first result is kept, unlike the official quirk
 * that overwrote it). Monitors never count as finishers.
 */
export function played(room: Room, userId: number, record: RecordData, ctx: RoomCtx): Transition {
  const tx = new Tx(room, ctx);
  tx.message({
    type: "Played",
    user: userId,
    score: record.score,
    accuracy: record.accuracy,
    full_combo: record.full_combo,
  });
  const phase = room.phase;
  if (phase.kind !== "play") return tx.ok();
  if (phase.aborted.includes(userId)) return tx.fail("aborted");
  if (phase.results.has(userId)) return tx.fail("already-uploaded");
  if (!room.players.some((p) => p.id === userId)) return tx.ok();
  const results = new Map(phase.results);
  results.set(userId, record);
  const late = phase.late.includes(userId);
  // spec 3 §3.1 rule 1: the first finisher moves the deadline later by one
  // offset (a late joiner's result is ranked but is not the round's finisher).
  const extend = !late && !phase.extended && [...phase.results.keys()].every((id) => phase.late.includes(id));
  const deadline = extend ? phase.deadline + ctx.timing.playingOffsetSecs * 1000 : phase.deadline;
  // A late joiner with a result needs no more progress notices.
  const progress = late && phase.progress.has(userId) ? withoutKey(phase.progress, userId) : phase.progress;
  tx.set({ phase: { ...phase, results, deadline, extended: phase.extended || extend, progress } });
  // Only an accepted result is a round score (not a refused or out-of-round upload).
  tx.event({ kind: "round.scored", round: phase.round, chart: room.chart?.id ?? null, user: userId, record });
  checkAllDone(tx);
  return tx.ok();
}

/** `Abort`: only while playing. */
export function abort(room: Room, userId: number, ctx: RoomCtx): Transition {
  const tx = new Tx(room, ctx);
  const phase = room.phase;
  if (phase.kind !== "play") return tx.ok();
  if (phase.results.has(userId)) return tx.fail("already-uploaded");
  if (phase.aborted.includes(userId)) return tx.fail("aborted");
  // A late joiner never started this round: nothing to abort (spec 3 §3.1 rule 6).
  if (phase.late.includes(userId)) return tx.ok();
  tx.set({ phase: { ...phase, aborted: [...phase.aborted, userId] } });
  tx.message({ type: "Abort", user: userId });
  checkAllDone(tx);
  return tx.ok();
}

/** `Chat`: broadcast and keep the last lines for joiners (spec 3 §2.1). */
export function chat(room: Room, userId: number, content: string, ctx: RoomCtx): Transition {
  const tx = new Tx(room, ctx);
  if (room.tournament) return tx.fail("chat-disabled");
  tx.message({ type: "Chat", user: userId, content });
  const line = { user: userId, content, time: ctx.now };
  tx.set({ chat: keepLast([...room.chat, line], ctx.chatHistoryLimit) });
  tx.event({ kind: "chat.message", user: userId, content });
  return tx.ok();
}

function withoutKey<K, V>(map: ReadonlyMap<K, V>, key: K): Map<K, V> {
  const copy = new Map(map);
  copy.delete(key);
  return copy;
}
