/**
 * Operator transitions (spec 3 §3.1, §4.2 `room ...`, §4.5 `room.*`): rooms
 * created empty, forced start and cancel, host changes, flags, room bans.
 * Like player commands they are pure and end with one `reply` effect, which
 * the runtime turns into the operator's answer.
 *
 * @module
 */

import type { LeaveReason } from "../events/mod.ts";
import type { MessageKey } from "../l10n/mod.ts";
import { countdownAt, type CreateOptions, newRoom } from "./machine.ts";
import { assignHost, checkAllReady, leaveProcedure, settle, startPlaying, unfinishedPlayers } from "./procedures.ts";
import { Tx } from "./tx.ts";
import { type ChartRef, type Room, type RoomCtx, SYSTEM_HOST, type Transition } from "./types.ts";
import { findMember, roomData } from "./views.ts";

/** A room made by an operator: nobody in it, no host yet (or the system host). */
export function createEmptyRoom(
  id: string,
  ctx: RoomCtx,
  options: CreateOptions & { systemHost?: boolean },
): Transition {
  const room = { ...newRoom(id, ctx, options, null), hostId: options.systemHost ? SYSTEM_HOST : null };
  const tx = new Tx(room, ctx);
  tx.event({ kind: "room.created", by: null, data: roomData(room) });
  return tx.ok();
}

/**
 * Forced start: from chart selection the room waits for ready as if the host
 * had asked; while waiting, the round starts now and players who are not
 * ready are marked aborted.
 */
export function adminStart(room: Room, ctx: RoomCtx): Transition {
  const tx = new Tx(room, ctx);
  const phase = room.phase;
  if (phase.kind === "play") return tx.fail("invalid-state");
  if (!room.chart) return tx.fail("start-no-chart-selected");
  if (room.players.length === 0) return tx.fail("room-empty");
  if (phase.kind === "select") {
    const host = room.hostId !== null && room.hostId !== SYSTEM_HOST ? room.hostId : null;
    tx.set({
      phase: {
        kind: "wait",
        ready: host === null ? [] : [host],
        countdownAt: countdownAt(room, ctx),
      },
    });
    tx.message({ type: "GameStart", user: host ?? 0 });
    tx.toRoom({ type: "ChangeState", state: { type: "WaitingForReady" } });
    tx.updated({ state: "WaitingForReady" });
    checkAllReady(tx);
    return tx.ok();
  }
  startPlaying(tx, room.players.filter((p) => !phase.ready.includes(p.id)).map((p) => p.id));
  return tx.ok();
}

/** Cancels a start: waiting goes back to chart selection; a running round is ended with everyone unfinished aborted. */
export function adminCancel(room: Room, ctx: RoomCtx): Transition {
  const tx = new Tx(room, ctx);
  const phase = room.phase;
  if (phase.kind === "select") return tx.fail("invalid-state");
  if (phase.kind === "wait") {
    tx.message({ type: "CancelGame", user: room.hostId !== null && room.hostId !== SYSTEM_HOST ? room.hostId : 0 });
    tx.set({ phase: { kind: "select" } });
    tx.toRoom({ type: "ChangeState", state: { type: "SelectChart", chart: room.chart?.id ?? null } });
    tx.updated({ state: "SelectingChart" });
    return tx.ok();
  }
  const unfinished = unfinishedPlayers(room);
  for (const id of unfinished) tx.message({ type: "Abort", user: id });
  tx.set({ phase: { ...phase, aborted: [...phase.aborted, ...unfinished] } });
  settle(tx);
  return tx.ok();
}

/** Marks a member ready on their behalf (spec 3 §4.5 `room.ready`). */
export function adminReady(room: Room, userId: number, ctx: RoomCtx): Transition {
  const tx = new Tx(room, ctx);
  const phase = room.phase;
  if (!findMember(room, userId)) return tx.fail("user-not-in-room");
  if (phase.kind !== "wait") return tx.fail("invalid-state");
  if (phase.ready.includes(userId)) return tx.fail("already-ready");
  tx.set({ phase: { ...phase, ready: [...phase.ready, userId] } });
  tx.message({ type: "Ready", user: userId });
  checkAllReady(tx);
  return tx.ok();
}

/**
 * Sets the host: a player of the room, {@link SYSTEM_HOST}, or null (none;
 * the next joiner takes it). The previous host is told it lost the role.
 */
export function setHost(room: Room, target: number | null, ctx: RoomCtx): Transition {
  const tx = new Tx(room, ctx);
  if (target !== null && target !== SYSTEM_HOST && !room.players.some((p) => p.id === target)) {
    return tx.fail("user-not-in-room");
  }
  const old = room.hostId;
  if (old === target) return tx.ok();
  if (old !== null && old !== SYSTEM_HOST && room.players.some((p) => p.id === old)) {
    tx.to([old], { type: "ChangeHost", is_host: false });
  }
  if (target === null || target === SYSTEM_HOST) {
    tx.set({ hostId: target });
    tx.updated({ host: -1 });
  } else assignHost(tx, target);
  return tx.ok();
}

/** Room settings an operator can change. */
export interface RoomFlags {
  locked?: boolean;
  cycle?: boolean;
  hidden?: boolean;
  persistent?: boolean;
  degraded?: boolean;
  tournament?: boolean;
  live?: boolean;
  maxPlayers?: number;
  apiEndpoint?: string | null;
}

/**
 * Changes flags; lock and cycle are announced to the room as if the host had
 * changed them. Hiding or showing a room at run time (spec 3 §2.1) looks
 * like its deletion or creation to public consumers; switching tournament
 * mode re-arms the ready countdown of a waiting round.
 */
export function setFlags(room: Room, flags: RoomFlags, ctx: RoomCtx): Transition {
  const tx = new Tx(room, ctx);
  if (flags.maxPlayers !== undefined && (!Number.isInteger(flags.maxPlayers) || flags.maxPlayers < 1)) {
    return tx.fail("invalid-argument");
  }
  if (flags.locked !== undefined && flags.locked !== room.locked) {
    tx.set({ locked: flags.locked });
    tx.message({ type: "LockRoom", lock: flags.locked });
    tx.updated({ lock: flags.locked });
  }
  if (flags.cycle !== undefined && flags.cycle !== room.cycle) {
    tx.set({ cycle: flags.cycle });
    tx.message({ type: "CycleRoom", cycle: flags.cycle });
    tx.updated({ cycle: flags.cycle });
  }
  const { locked: _l, cycle: _c, hidden, tournament, ...rest } = flags;
  const patch = Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined)) as Partial<Room>;
  // These flags are not part of the protocol's room data; no update event.
  if (Object.keys(patch).length) tx.set(patch);
  if (tournament !== undefined && tournament !== room.tournament) setTournament(tx, tournament);
  if (hidden !== undefined && hidden !== room.hidden) setHidden(tx, hidden);
  return tx.ok();
}

/**
 * Tournament mode turns the automatic start off (spec 3 §2.1): a waiting
 * round loses its countdown, and gets a fresh full one when the mode is
 * switched off (the old one may be long past: the round would start at once).
 */
function setTournament(tx: Tx, on: boolean): void {
  tx.set({ tournament: on });
  const phase = tx.r.phase;
  if (phase.kind !== "wait") return;
  tx.set({ phase: { ...phase, countdownAt: on ? null : tx.ctx.now + tx.ctx.timing.readyCountdownSecs * 1000 } });
}

/**
 * Public consumers (the streams' `isPublic`, the room monitor) never see a
 * hidden room's events: hiding looks to them like the room's deletion and
 * showing like its creation with full data. Both events are stamped
 * `hidden: false`, so they pass the filters. The room-monitor wire has no
 * deletion variant (protocol.md §3.5): it sees every player leave, as when a
 * room empties.
 */
function setHidden(tx: Tx, hidden: boolean): void {
  if (hidden) {
    tx.event({ kind: "room.deleted" });
    for (const p of tx.r.players) {
      tx.effects.push({ t: "monitor", event: { type: "LeaveRoom", room: tx.r.id, user: p.id } });
    }
    tx.set({ hidden: true });
  } else {
    tx.set({ hidden: false });
    tx.event({ kind: "room.created", by: null, data: roomData(tx.r) });
  }
}

/** Selects a chart for the room on the operator's behalf (no host check). */
export function adminSelectChart(room: Room, chart: ChartRef, ctx: RoomCtx): Transition {
  const tx = new Tx(room, ctx);
  if (room.phase.kind !== "select") return tx.fail("invalid-state");
  tx.set({ chart });
  tx.message({ type: "SelectChart", user: room.hostId ?? 0, name: chart.name, id: chart.id });
  tx.toRoom({ type: "ChangeState", state: { type: "SelectChart", chart: chart.id } });
  tx.updated({ chart: chart.id });
  return tx.ok();
}

/** Bans a user from the room, taking them out of it if present. */
export function roomBan(room: Room, userId: number, reason: string, ctx: RoomCtx): Transition {
  const tx = new Tx(room, ctx);
  tx.set({ bans: [...room.bans.filter((b) => b.user_id !== userId), { user_id: userId, reason, banned_at: ctx.now }] });
  const member = findMember(tx.r, userId);
  if (member) {
    tx.text([userId], "room-ban-notice", { room: room.id });
    leaveProcedure(tx, member, "banned");
  }
  return tx.ok();
}

/** Lifts a room ban. */
export function roomUnban(room: Room, userId: number, ctx: RoomCtx): Transition {
  const tx = new Tx(room, ctx);
  if (!room.bans.some((b) => b.user_id === userId)) return tx.fail("user-not-found");
  tx.set({ bans: room.bans.filter((b) => b.user_id !== userId) });
  return tx.ok();
}

/** Takes a member out of the room (kick, force-move), with a notice key for them. */
export function removeMember(
  room: Room,
  userId: number,
  reason: LeaveReason,
  notice: MessageKey | null,
  ctx: RoomCtx,
): Transition {
  const tx = new Tx(room, ctx);
  const member = findMember(room, userId);
  if (!member) return tx.fail("user-not-in-room");
  leaveProcedure(tx, member, reason);
  if (notice) tx.text([userId], notice, { room: room.id });
  return tx.ok();
}

/** Deletes the room: every member leaves (players last), whatever its flags. */
export function closeRoom(room: Room, ctx: RoomCtx): Transition {
  const tx = new Tx({ ...room, persistent: false }, ctx);
  const members = [...room.monitors, ...room.players];
  tx.text(members.map((m) => m.id), "room-closed-by-admin", { room: room.id });
  for (const member of members) {
    if (!tx.room) break;
    leaveProcedure(tx, member, "closed");
  }
  if (tx.room) {
    // No players were in it (an empty persistent room).
    tx.event({ kind: "room.deleted" });
    for (const m of tx.r.monitors) tx.membership(m.id, null, false);
    tx.room = null;
  }
  return tx.ok();
}
