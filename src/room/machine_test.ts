import { deepEqual, equal, ok } from "node:assert/strict";
import {
  abort,
  cancelReady,
  chat,
  createRoom,
  cycleRoom,
  joinRoom,
  leaveRoom,
  lockRoom,
  played,
  ready,
  requestStart,
  selectChart,
} from "./machine.ts";
import { A, B, C, events, M, makeCtx, record, wire } from "./room_test_util.ts";
import type { Room, RoomCtx } from "./types.ts";
import { clientRoomState, playingUsers, roomData } from "./views.ts";

function ctx(seed = 1): RoomCtx {
  return makeCtx(1000, seed);
}

/** A room with A (host), B and monitor M, chart 7 selected. */
function setup(c = ctx()): Room {
  let room = createRoom("abc", A, c, { maxPlayers: 8 }).room!;
  room = joinRoom(room, B, c, { canMonitor: false }).room!;
  room = joinRoom(room, M, c, { canMonitor: true }).room!;
  return selectChart(room, 1, { id: 7, name: "Seven" }, c).room!;
}

Deno.test("createRoom: creator is host; Message.CreateRoom then reply", () => {
  const t = createRoom("abc", A, ctx(), { maxPlayers: 8 });
  deepEqual(wire(t), ['1 Message.CreateRoom{"user":1}', "reply Ok"]);
  deepEqual(events(t), ["room.created"]);
  equal(t.room?.hostId, 1);
  equal(t.room?.hidden, false);
  equal(createRoom("-secret", A, ctx(), { maxPlayers: 8 }).room?.hidden, true);
});

Deno.test("joinRoom: OnJoinRoom and Message.JoinRoom to the room, then the reply, then chat history", () => {
  const c = ctx();
  let room = createRoom("abc", A, c, { maxPlayers: 8 }).room!;
  room = chat(room, 1, "hello", c).room!;
  const t = joinRoom(room, B, c, { canMonitor: false });
  deepEqual(wire(t), [
    "1,2 OnJoinRoom(2)",
    '1,2 Message.JoinRoom{"user":2,"name":"B"}',
    "reply Ok",
    '2 Message.Chat{"user":1,"content":"hello"}',
  ]);
  const reply = t.effects.find((e) => e.t === "reply");
  ok(reply?.t === "reply" && reply.result.ok);
  deepEqual(reply.result.value?.users.map((u) => u.id), [1, 2]);
});

Deno.test("joinRoom checks lock, state, monitor permission and capacity in order", () => {
  const c = ctx();
  const base = createRoom("abc", A, c, { maxPlayers: 2 }).room!;
  deepEqual(wire(joinRoom({ ...base, locked: true }, B, c, { canMonitor: false })), ["reply Err(join-room-locked)"]);
  deepEqual(
    wire(joinRoom({ ...base, phase: { kind: "wait", ready: [1], countdownAt: null } }, B, c, { canMonitor: false })),
    [
      "reply Err(join-game-ongoing)",
    ],
  );
  deepEqual(wire(joinRoom(base, M, c, { canMonitor: false })), ["reply Err(join-cant-monitor)"]);
  const full = joinRoom(base, B, c, { canMonitor: false }).room!;
  deepEqual(wire(joinRoom(full, C, c, { canMonitor: false })), ["reply Err(join-room-full)"]);
  // Monitors skip lock, state and capacity (spec 3 §3.1 rule 6) and make the room live.
  const t = joinRoom({ ...full, locked: true }, M, c, { canMonitor: true });
  equal(t.room?.live, true);
  deepEqual(t.room?.monitors.map((m) => m.id), [9]);
});

Deno.test("leave procedure: host leaves, random player becomes host", () => {
  const c = ctx(7);
  const room = setup(c);
  const t = leaveRoom(room, 1, c);
  const newHost = t.room!.hostId!;
  equal(newHost, 2);
  deepEqual(wire(t), [
    '1,2,9 Message.LeaveRoom{"user":1,"name":"A"}',
    `2,9 Message.NewHost{"user":${newHost}}`,
    `${newHost} ChangeHost(true)`,
    "reply Ok",
  ]);
  deepEqual(events(t), ["room.left", "room.updated"]);
});

Deno.test("leave procedure: the last player leaving deletes the room even with monitors", () => {
  const c = ctx();
  let room = setup(c);
  room = leaveRoom(room, 2, c).room!;
  const t = leaveRoom(room, 1, c);
  equal(t.room, null);
  deepEqual(wire(t), ['1,9 Message.LeaveRoom{"user":1,"name":"A"}', "reply Ok"]);
  deepEqual(events(t), ["room.left", "room.deleted"]);
  const cleared = t.effects.filter((e) => e.t === "membership").map((e) => e.t === "membership" && e.user);
  deepEqual(cleared, [1, 9]);
});

Deno.test("lock and cycle are host only and broadcast", () => {
  const c = ctx();
  const room = setup(c);
  deepEqual(wire(lockRoom(room, 2, true, c)), ["reply Err(only-host)"]);
  deepEqual(wire(lockRoom(room, 1, true, c)), ['1,2,9 Message.LockRoom{"lock":true}', "reply Ok"]);
  deepEqual(wire(cycleRoom(room, 1, true, c)), ['1,2,9 Message.CycleRoom{"cycle":true}', "reply Ok"]);
});

Deno.test("selectChart and requestStart: message order and preconditions", () => {
  const c = ctx();
  let room = createRoom("abc", A, c, { maxPlayers: 8 }).room!;
  deepEqual(wire(requestStart(room, 1, c)), ["reply Err(start-no-chart-selected)"]);
  const sel = selectChart(room, 1, { id: 7, name: "Seven" }, c);
  deepEqual(wire(sel), [
    '1 Message.SelectChart{"user":1,"name":"Seven","id":7}',
    "1 ChangeState(SelectChart:7)",
    "reply Ok",
  ]);
  room = joinRoom(sel.room!, B, c, { canMonitor: false }).room!;
  deepEqual(wire(selectChart(room, 2, { id: 8, name: "x" }, c)), ["reply Err(only-host)"]);
  deepEqual(wire(requestStart(room, 2, c)), ["reply Err(only-host)"]);
  const start = requestStart(room, 1, c);
  deepEqual(wire(start), ['1,2 Message.GameStart{"user":1}', "1,2 ChangeState(WaitingForReady)", "reply Ok"]);
  deepEqual(wire(selectChart(start.room!, 1, { id: 8, name: "x" }, c)), ["reply Err(invalid-state)"]);
  deepEqual(wire(requestStart(start.room!, 1, c)), ["reply Err(invalid-state)"]);
});

Deno.test("a lone host starts playing immediately after RequestStart", () => {
  const c = ctx();
  let room = createRoom("abc", A, c, { maxPlayers: 8 }).room!;
  room = selectChart(room, 1, { id: 7, name: "Seven" }, c).room!;
  const t = requestStart(room, 1, c);
  deepEqual(wire(t), [
    '1 Message.GameStart{"user":1}',
    "1 ChangeState(WaitingForReady)",
    "1 Message.StartPlaying",
    "1 ChangeState(Playing)",
    "reply Ok",
  ]);
  deepEqual(events(t), ["room.updated", "room.updated", "round.started"]);
});

Deno.test("ready: every player and monitor must be ready; other states reply Ok", () => {
  const c = ctx();
  let room = requestStart(setup(c), 1, c).room!;
  deepEqual(wire(ready(room, 1, c)), ["reply Err(already-ready)"]);
  const b = ready(room, 2, c);
  deepEqual(wire(b), ['1,2,9 Message.Ready{"user":2}', "reply Ok"]);
  room = b.room!;
  const m = ready(room, 9, c);
  deepEqual(wire(m), [
    '1,2,9 Message.Ready{"user":9}',
    "1,2,9 Message.StartPlaying",
    "1,2,9 ChangeState(Playing)",
    "reply Ok",
  ]);
  deepEqual(wire(ready(m.room!, 2, c)), ["reply Ok"]);
});

Deno.test("cancelReady: a player cancels; the host cancels the game", () => {
  const c = ctx();
  let room = requestStart(setup(c), 1, c).room!;
  deepEqual(wire(cancelReady(room, 2, c)), ["reply Err(not-ready)"]);
  room = ready(room, 2, c).room!;
  deepEqual(wire(cancelReady(room, 2, c)), ['1,2,9 Message.CancelReady{"user":2}', "reply Ok"]);
  const host = cancelReady(room, 1, c);
  deepEqual(wire(host), ['1,2,9 Message.CancelGame{"user":1}', "1,2,9 ChangeState(SelectChart:7)", "reply Ok"]);
  equal(host.room?.phase.kind, "select");
  deepEqual(wire(cancelReady(host.room!, 1, c)), ["reply Ok"]);
});

function playing(c: RoomCtx): Room {
  let room = requestStart(setup(c), 1, c).room!;
  room = ready(room, 2, c).room!;
  return ready(room, 9, c).room!;
}

Deno.test("played and abort: broadcast, all-done, GameEnd, chart stays selected", () => {
  const c = ctx();
  let room = playing(c);
  deepEqual(playingUsers(room), [1, 2]);
  const p = played(room, 1, record(1), c);
  deepEqual(wire(p), ['1,2,9 Message.Played{"user":1,"score":900000,"accuracy":0.99,"full_combo":true}', "reply Ok"]);
  room = p.room!;
  deepEqual(wire(played(room, 1, record(1), c)).slice(1), ["reply Err(already-uploaded)"]);
  deepEqual(wire(abort(room, 1, c)), ["reply Err(already-uploaded)"]);
  const a = abort(room, 2, c);
  deepEqual(wire(a), [
    '1,2,9 Message.Abort{"user":2}',
    "1,2,9 text(result-title)",
    "1,2,9 text(result-line-fc)",
    "1,2,9 text(result-line-dnf)",
    "1,2,9 text(result-summary)",
    "1,2,9 Message.GameEnd",
    "1,2,9 ChangeState(SelectChart:7)",
    "reply Ok",
  ]);
  deepEqual(events(a), ["round.completed", "room.updated"]);
  room = a.room!;
  equal(room.rounds.length, 1);
  deepEqual(room.rounds[0]!.aborted, [2]);
  deepEqual(roomData(room).rounds, [{ chart: 7, records: [record(1)] }]);
  // Outside play: still broadcast, Ok.
  deepEqual(wire(played(room, 2, record(2), c)).at(-1), "reply Ok");
  deepEqual(wire(abort(room, 2, c)), ["reply Ok"]);
});

Deno.test("an aborted player's later Played is broadcast, then refused", () => {
  const c = ctx();
  const room = abort(playing(c), 2, c).room!;
  const t = played(room, 2, record(2), c);
  deepEqual(wire(t).slice(1), ["reply Err(aborted)"]);
  ok(wire(t)[0]!.includes("Message.Played"));
});

Deno.test("cycle after a round passes the host to the next player", () => {
  const c = ctx();
  let room = cycleRoom(playing(c), 1, true, c).room!;
  room = played(room, 1, record(1), c).room!;
  const t = played(room, 2, record(2), c);
  deepEqual(wire(t).slice(1), [
    "1,2,9 text(result-title)",
    "1,2,9 text(result-line-fc)",
    "1,2,9 text(result-line-fc)",
    "1,2,9 text(result-summary)",
    "1,2,9 Message.GameEnd",
    '1,2,9 Message.NewHost{"user":2}',
    "1 ChangeHost(false)",
    "2 ChangeHost(true)",
    "1,2,9 ChangeState(SelectChart:7)",
    "reply Ok",
  ]);
});

Deno.test("a leave can end the round and the play history is capped", () => {
  const c = ctx();
  let room = playing(c);
  room = played(room, 1, record(1), c).room!;
  const t = leaveRoom(room, 2, c);
  deepEqual(wire(t), [
    '1,2,9 Message.LeaveRoom{"user":2,"name":"B"}',
    "1,9 text(result-title)",
    "1,9 text(result-line-fc)",
    "1,9 text(result-summary)",
    "1,9 Message.GameEnd",
    "1,9 ChangeState(SelectChart:7)",
    "reply Ok",
  ]);
  room = t.room!;
  for (let i = 0; i < 3; i++) {
    room = requestStart(room, 1, c).room!;
    room = ready(room, 9, c).room!;
    room = played(room, 1, record(1, i), c).room!;
  }
  equal(room.rounds.length, 2);
});

Deno.test("chat keeps the last lines; clientRoomState reflects the viewer", () => {
  const c = ctx();
  let room = setup(c);
  for (const text of ["1", "2", "3", "4"]) room = chat(room, 2, text, c).room!;
  deepEqual(room.chat.map((l) => l.content), ["2", "3", "4"]);
  const state = clientRoomState(requestStart(room, 1, c).room!, 1);
  equal(state.is_host, true);
  equal(state.is_ready, true);
  equal(state.live, true);
  deepEqual([...state.users.keys()], [1, 2, 9]);
});
