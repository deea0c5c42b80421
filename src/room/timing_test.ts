import { deepEqual, equal, ok } from "node:assert/strict";
import { createRoom, joinRoom, played, ready, requestStart, selectChart } from "./machine.ts";
import { A, B, C, events, makeCtx, record, wire } from "./room_test_util.ts";
import { nextWake, progressArgs, setChartDuration, tick } from "./timing.ts";
import type { Room } from "./types.ts";

/** A (host), B and C in a room with chart 7 (duration `duration` s, or unknown) selected, at t=1000. */
function room(duration: number | null = 100): Room {
  const c = makeCtx();
  let r = createRoom("abc", A, c, { maxPlayers: 8 }).room!;
  r = joinRoom(r, B, c, { canMonitor: false }).room!;
  r = joinRoom(r, C, c, { canMonitor: false }).room!;
  r = selectChart(r, 1, { id: 7, name: "Seven" }, c).room!;
  return duration === null ? r : setChartDuration(r, 7, duration, c).room!;
}

Deno.test("the ready countdown starts the round by itself and marks players who are not ready aborted", () => {
  const c = makeCtx();
  let r = requestStart(room(), 1, c).room!;
  r = ready(r, 2, c).room!;
  equal(nextWake(r), 1000 + 60_000);
  equal(wire(tick(r, c.at(60_999))).length, 0);
  const t = tick(r, c.at(61_000));
  deepEqual(wire(t), ["1,2,3 Message.StartPlaying", "1,2,3 ChangeState(Playing)"]);
  const phase = t.room!.phase;
  ok(phase.kind === "play");
  deepEqual(phase.aborted, [3]);
  // Deadline: start + duration + offset.
  equal(phase.deadline, 61_000 + (100 + 60) * 1000);
});

Deno.test("the playing deadline aborts unfinished players and settles, also when nobody finished", () => {
  const c = makeCtx();
  let r = requestStart(room(null), 1, c).room!;
  r = ready(r, 2, c).room!;
  r = ready(r, 3, c).room!;
  const phase = r.phase;
  ok(phase.kind === "play");
  // Unknown duration: the 10000 s fallback.
  equal(phase.deadline, 1000 + (10000 + 60) * 1000);
  const t = tick(r, c.at(phase.deadline));
  deepEqual(wire(t), [
    '1,2,3 Message.Abort{"user":1}',
    '1,2,3 Message.Abort{"user":2}',
    '1,2,3 Message.Abort{"user":3}',
    "1,2,3 text(result-title)",
    "1,2,3 text(result-line-dnf)",
    "1,2,3 text(result-line-dnf)",
    "1,2,3 text(result-line-dnf)",
    "1,2,3 text(result-summary)",
    "1,2,3 Message.GameEnd",
    "1,2,3 ChangeState(SelectChart:7)",
  ]);
  deepEqual(events(t), ["round.completed", "room.updated"]);
  equal(nextWake(t.room!), null);
});

Deno.test("the first finisher moves the deadline later by one offset, once", () => {
  const c = makeCtx();
  let r = requestStart(room(), 1, c).room!;
  r = ready(ready(r, 2, c).room!, 3, c).room!;
  const before = r.phase.kind === "play" ? r.phase.deadline : 0;
  r = played(r, 1, record(1), c).room!;
  equal(r.phase.kind === "play" && r.phase.deadline, before + 60_000);
  r = played(r, 2, record(2), c).room!;
  equal(r.phase.kind === "play" && r.phase.deadline, before + 60_000);
});

Deno.test("a duration probed after the start moves the deadline; after settlement it is released", () => {
  const c = makeCtx();
  let r = requestStart(room(null), 1, c).room!;
  r = ready(ready(r, 2, c).room!, 3, c).room!;
  r = setChartDuration(r, 7, 90, c).room!;
  equal(r.phase.kind === "play" && r.phase.deadline, 1000 + 150_000);
  equal(setChartDuration(r, 8, 5, c).room!.chart?.durationSecs, 90, "another chart's duration is ignored");
  r = played(played(played(r, 1, record(1), c).room!, 2, record(2), c).room!, 3, record(3), c).room!;
  equal(r.phase.kind, "select");
  equal(r.chart?.durationSecs, null);
});

Deno.test("late join: confirm first, then join as a late joiner with a progress notice now and every 30 s", () => {
  const c = makeCtx();
  let r = requestStart(room(), 1, c).room!;
  r = ready(ready(r, 2, c).room!, 3, c).room!;
  const D = { id: 4, name: "D", monitor: false };
  deepEqual(wire(joinRoom(r, D, c.at(11_000), { canMonitor: false })), ["reply Err(join-game-ongoing-confirm)"]);
  const t = joinRoom(r, D, c.at(11_000), { canMonitor: false, confirmedLateJoin: true });
  deepEqual(wire(t), [
    "1,2,3,4 OnJoinRoom(4)",
    '1,2,3,4 Message.JoinRoom{"user":4,"name":"D"}',
    "reply Ok",
    '4 Message.SelectChart{"user":1,"name":"Seven","id":7}',
    "4 text(room-progress)",
  ]);
  r = t.room!;
  ok(r.phase.kind === "play" && r.phase.late.includes(4) && !r.phase.aborted.includes(4));
  equal(nextWake(r), 41_000);
  const notice = tick(r, c.at(41_000));
  deepEqual(wire(notice), ["4 text(room-progress)"]);
  equal(nextWake(notice.room!), 71_000);
  // Finishing the round does not wait for the late joiner.
  r = played(played(played(notice.room!, 1, record(1), c).room!, 2, record(2), c).room!, 3, record(3), c).room!;
  equal(r.phase.kind, "select");
});

Deno.test("progressArgs draws a 20-cell bar with percent and minutes left", () => {
  deepEqual(progressArgs(30, 120), { bar: "█████░░░░░░░░░░░░░░░", percent: 25, remaining: 2 });
  deepEqual(progressArgs(200, 120), { bar: "████████████████████", percent: 100, remaining: 0 });
});

Deno.test("settlement releases the duration and asks for it again; late joiners are neither ranked nor DNF", () => {
  const c = makeCtx();
  let r = requestStart(room(), 1, c).room!;
  r = ready(ready(r, 2, c).room!, 3, c).room!;
  r = joinRoom(r, { id: 4, name: "D", monitor: false }, c, { canMonitor: false, confirmedLateJoin: true }).room!;
  r = played(played(r, 1, record(1), c).room!, 2, record(2), c).room!;
  const t = played(r, 3, record(3), c);
  equal(t.room!.chart?.durationSecs, null);
  deepEqual(t.effects.filter((e) => e.t === "resolve-duration"), [{ t: "resolve-duration", chart: 7 }]);
  const summary = t.effects.find((e) => e.t === "text" && e.text.key === "result-summary");
  deepEqual(summary?.t === "text" && summary.text.args, { passed: 3, total: 3 });
  deepEqual(t.room!.rounds.at(-1)!.aborted, []);
});
