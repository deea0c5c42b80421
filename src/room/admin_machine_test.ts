import { deepEqual, equal, ok } from "node:assert/strict";
import {
  adminCancel,
  adminReady,
  adminStart,
  closeRoom,
  createEmptyRoom,
  roomBan,
  roomUnban,
  setFlags,
  setHost,
} from "./admin_machine.ts";
import { chat, createRoom, joinRoom, leaveRoom, requestStart, selectChart } from "./machine.ts";
import { A, B, C, events, M, makeCtx, wire } from "./room_test_util.ts";
import { nextWake } from "./timing.ts";
import { SYSTEM_HOST } from "./types.ts";

Deno.test("an empty room gets its first joiner as host, told after the JoinRoom reply", () => {
  const c = makeCtx();
  const empty = createEmptyRoom("lobby", c, { maxPlayers: 8, persistent: true });
  deepEqual(events(empty), ["room.created"]);
  equal(empty.room!.players.length, 0);
  const t = joinRoom(empty.room!, A, c, { canMonitor: false });
  deepEqual(wire(t), [
    "1 OnJoinRoom(1)",
    '1 Message.JoinRoom{"user":1,"name":"A"}',
    "reply Ok",
    '1 Message.NewHost{"user":1}',
    "1 ChangeHost(true)",
  ]);
  equal(t.room!.hostId, 1);
});

Deno.test("a persistent room survives its last player and goes back to chart selection", () => {
  const c = makeCtx();
  let r = createEmptyRoom("lobby", c, { maxPlayers: 8, persistent: true }).room!;
  r = joinRoom(r, A, c, { canMonitor: false }).room!;
  r = selectChart(r, 1, { id: 7, name: "x" }, c).room!;
  r = requestStart(joinRoom(r, B, c, { canMonitor: false }).room!, 1, c).room!;
  r = leaveRoom(r, 2, c).room!;
  const t = leaveRoom(r, 1, c);
  ok(t.room);
  equal(t.room.hostId, null);
  equal(t.room.phase.kind, "select");
  deepEqual(events(t), ["room.left", "room.updated", "room.updated"]);
});

Deno.test("system host: players never take the host, the operator starts the round", () => {
  const c = makeCtx();
  let r = createEmptyRoom("cup", c, { maxPlayers: 8, systemHost: true }).room!;
  r = joinRoom(r, A, c, { canMonitor: false }).room!;
  equal(r.hostId, SYSTEM_HOST);
  deepEqual(wire(requestStart(r, 1, c)), ["reply Err(only-host)"]);
  deepEqual(wire(adminStart(r, c)), ["reply Err(start-no-chart-selected)"]);
  r = setFlags(r, {}, c).room!;
  r = { ...r, chart: { id: 7, name: "x" } };
  const start = adminStart(r, c);
  deepEqual(wire(start), ['1 Message.GameStart{"user":0}', "1 ChangeState(WaitingForReady)", "reply Ok"]);
  r = start.room!;
  const force = adminStart(r, c.at(5000));
  deepEqual(wire(force), [
    "1 Message.StartPlaying",
    "1 ChangeState(Playing)",
    "1 text(result-title)",
    "1 text(result-line-dnf)",
    "1 text(result-summary)",
    "1 Message.GameEnd",
    "1 ChangeState(SelectChart:7)",
    "reply Ok",
  ]);
});

Deno.test("adminReady and adminCancel", () => {
  const c = makeCtx();
  let r = createRoom("abc", A, c, { maxPlayers: 8 }).room!;
  r = joinRoom(r, B, c, { canMonitor: false }).room!;
  r = selectChart(r, 1, { id: 7, name: "x" }, c).room!;
  deepEqual(wire(adminCancel(r, c)), ["reply Err(invalid-state)"]);
  r = requestStart(r, 1, c).room!;
  deepEqual(wire(adminReady(r, 5, c)), ["reply Err(user-not-in-room)"]);
  const cancel = adminCancel(r, c);
  deepEqual(wire(cancel), ['1,2 Message.CancelGame{"user":1}', "1,2 ChangeState(SelectChart:7)", "reply Ok"]);
  const readied = adminReady(r, 2, c);
  deepEqual(wire(readied), [
    '1,2 Message.Ready{"user":2}',
    "1,2 Message.StartPlaying",
    "1,2 ChangeState(Playing)",
    "reply Ok",
  ]);
});

Deno.test("setHost: to a player, to the system, refused for non-members", () => {
  const c = makeCtx();
  let r = createRoom("abc", A, c, { maxPlayers: 8 }).room!;
  r = joinRoom(r, B, c, { canMonitor: false }).room!;
  deepEqual(wire(setHost(r, 3, c)), ["reply Err(user-not-in-room)"]);
  const toB = setHost(r, 2, c);
  deepEqual(wire(toB), ["1 ChangeHost(false)", '1,2 Message.NewHost{"user":2}', "2 ChangeHost(true)", "reply Ok"]);
  const sys = setHost(toB.room!, SYSTEM_HOST, c);
  deepEqual(wire(sys), ["2 ChangeHost(false)", "reply Ok"]);
  equal(sys.room!.hostId, SYSTEM_HOST);
});

Deno.test("tournament mode: no countdown start, no host hand-over, no late join, no chat, no ranking", () => {
  const c = makeCtx();
  let r = createRoom("cup", A, c, { maxPlayers: 8 }).room!;
  r = joinRoom(r, B, c, { canMonitor: false }).room!;
  r = joinRoom(r, C, c, { canMonitor: false }).room!;
  r = setFlags(r, { tournament: true }, c).room!;
  deepEqual(wire(chat(r, 2, "hi", c)), ["reply Err(chat-disabled)"]);
  r = requestStart(selectChart(r, 1, { id: 7, name: "x" }, c).room!, 1, c).room!;
  equal(nextWake(r), null);
  r = adminStart(r, c).room!;
  const D = { id: 4, name: "D", monitor: false };
  deepEqual(wire(joinRoom(r, D, c, { canMonitor: false, confirmedLateJoin: true })), ["reply Err(join-game-ongoing)"]);
  const left = leaveRoom(r, 1, c);
  equal(left.room!.hostId, null);
  ok(!wire(left).some((line) => line.includes("NewHost")));
  const ended = adminCancel(left.room!, c);
  ok(!wire(ended).some((line) => line.includes("text(")));
});

Deno.test("room bans keep a user out and take them out if present; flags are announced", () => {
  const c = makeCtx();
  let r = createRoom("abc", A, c, { maxPlayers: 8 }).room!;
  r = joinRoom(r, B, c, { canMonitor: false }).room!;
  const ban = roomBan(r, 2, "spam", c);
  deepEqual(wire(ban), ["2 text(room-ban-notice)", '1,2 Message.LeaveRoom{"user":2,"name":"B"}', "reply Ok"]);
  r = ban.room!;
  deepEqual(wire(joinRoom(r, B, c, { canMonitor: false })), ["reply Err(join-room-banned)"]);
  r = roomUnban(r, 2, c).room!;
  deepEqual(wire(roomUnban(r, 2, c)), ["reply Err(user-not-found)"]);
  r = setFlags(r, { degraded: true, locked: true }, c).room!;
  deepEqual(wire(joinRoom(r, B, c, { canMonitor: false })), ["reply Err(room-degraded)"]);
  deepEqual(wire(setFlags(r, { locked: false, cycle: true, hidden: true }, c)), [
    '1 Message.LockRoom{"lock":false}',
    '1 Message.CycleRoom{"cycle":true}',
    "reply Ok",
  ]);
  deepEqual(wire(setFlags(r, { maxPlayers: 0 }, c)), ["reply Err(invalid-argument)"]);
});

Deno.test("closeRoom takes everyone out, persistent or not, and deletes the room", () => {
  const c = makeCtx();
  let r = createEmptyRoom("lobby", c, { maxPlayers: 8, persistent: true }).room!;
  r = joinRoom(joinRoom(r, A, c, { canMonitor: false }).room!, M, c, { canMonitor: true }).room!;
  const t = closeRoom(r, c);
  equal(t.room, null);
  deepEqual(events(t).at(-1), "room.deleted");
  const empty = closeRoom(createEmptyRoom("e", c, { maxPlayers: 8, persistent: true }).room!, c);
  deepEqual(events(empty), ["room.deleted"]);
});

Deno.test("tournament mode clears a waiting round's countdown; switching it off arms a full new one", () => {
  const c = makeCtx();
  let r = createRoom("abc", A, c, { maxPlayers: 8 }).room!;
  r = selectChart(joinRoom(r, B, c, { canMonitor: false }).room!, 1, { id: 7, name: "x" }, c).room!;
  r = setFlags(r, { tournament: true }, c).room!;
  r = requestStart(r, 1, c).room!;
  equal(r.phase.kind === "wait" && r.phase.countdownAt, null, "no countdown when starting in tournament mode");
  r = setFlags(r, { tournament: false }, c.at(500_000)).room!;
  equal(r.phase.kind === "wait" && r.phase.countdownAt, 560_000);
  equal(nextWake(r), 560_000);
  r = setFlags(r, { tournament: true }, c.at(510_000)).room!;
  equal(r.phase.kind === "wait" && r.phase.countdownAt, null);
  equal(nextWake(r), null);
});

Deno.test("hiding and showing a room publish its deletion and creation as public events", () => {
  const c = makeCtx();
  const r = joinRoom(createRoom("abc", A, c, { maxPlayers: 8 }).room!, B, c, { canMonitor: false }).room!;
  const hide = setFlags(r, { hidden: true }, c);
  deepEqual(
    hide.effects.filter((e) => e.t === "event" || e.t === "monitor").map((e) =>
      e.t === "event"
        ? [e.event.kind, "hidden" in e.event && e.event.hidden]
        : [e.event.type, e.event.type === "LeaveRoom" && e.event.user]
    ),
    [["room.deleted", false], ["LeaveRoom", 1], ["LeaveRoom", 2]],
  );
  equal(hide.room!.hidden, true);
  const show = setFlags(hide.room!, { hidden: false }, c);
  const created = show.effects.find((e) => e.t === "event");
  ok(created?.t === "event" && created.event.kind === "room.created");
  equal(created.event.hidden, false);
  deepEqual(created.event.data.users, [1, 2]);
  deepEqual(events(setFlags(show.room!, { hidden: false }, c)), []);
});
