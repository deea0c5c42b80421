/**
 * Message order for every room command over real TCP, through a whole round
 * with a monitor (protocol.md §5.4–§5.6). Each client's complete log is
 * asserted, so any extra, missing or reordered message fails.
 */
import { deepEqual, equal } from "node:assert/strict";
import type { TouchFrame } from "../src/protocol/mod.ts";
import { expectLog, mark } from "./support/describe.ts";
import { startHarness } from "./support/harness.ts";

const TF: TouchFrame[] = [{ time: 1.5, points: [[0, { x: 0.5, y: -0.25 }]] }];

Deno.test("a full round: create, join, monitor, lock, cycle, select, start, ready, play, results, cycle host, leave", async () => {
  const h = await startHarness();
  const alice = await h.login(100);
  const bob = await h.login(200);
  const mon = await h.login(9);

  await alice.createRoom("abc");
  await expectLog(alice, ["Authenticate(Ok)", "Message.CreateRoom{user:100}", "CreateRoom(Ok)"]);

  let a = mark(alice);
  const joined = await bob.joinRoom("abc");
  deepEqual(joined.users.map((u) => u.id), [100, 200]);
  equal(joined.live, false);
  await expectLog(bob, ["Authenticate(Ok)", "OnJoinRoom(200)", "Message.JoinRoom{user:200,name:Bob}", "JoinRoom(Ok)"]);
  await expectLog(alice, ["OnJoinRoom(200)", "Message.JoinRoom{user:200,name:Bob}"], a);

  a = mark(alice);
  let b = mark(bob);
  const monJoin = await mon.joinRoom("abc", true);
  equal(monJoin.live, true);
  await expectLog(mon, [
    "Authenticate(Ok)",
    "OnJoinRoom(9,monitor)",
    "Message.JoinRoom{user:9,name:Player9}",
    "JoinRoom(Ok)",
  ]);
  await expectLog(alice, ["OnJoinRoom(9,monitor)", "Message.JoinRoom{user:9,name:Player9}"], a);
  equal(alice.live, true);
  let m = mark(mon);

  a = mark(alice);
  b = mark(bob);
  await alice.lockRoom(true);
  await alice.cycleRoom(true);
  await expectLog(alice, [
    "Message.LockRoom{lock:true}",
    "LockRoom(Ok)",
    "Message.CycleRoom{cycle:true}",
    "CycleRoom(Ok)",
  ], a);
  await expectLog(bob, ["Message.LockRoom{lock:true}", "Message.CycleRoom{cycle:true}"], b);

  a = mark(alice);
  b = mark(bob);
  await alice.selectChart(7);
  await expectLog(alice, [
    "Message.SelectChart{user:100,name:Lucky Seven,id:7}",
    "ChangeState(SelectChart:7)",
    "SelectChart(Ok)",
  ], a);
  await expectLog(bob, ["Message.SelectChart{user:100,name:Lucky Seven,id:7}", "ChangeState(SelectChart:7)"], b);

  a = mark(alice);
  b = mark(bob);
  m = mark(mon);
  await alice.requestStart();
  await expectLog(alice, ["Message.GameStart{user:100}", "ChangeState(WaitingForReady)", "RequestStart(Ok)"], a);
  await bob.ready();
  await expectLog(bob, [
    "Message.GameStart{user:100}",
    "ChangeState(WaitingForReady)",
    "Message.Ready{user:200}",
    "Ready(Ok)",
  ], b);
  // The monitor must be ready too (protocol.md §5.6).
  await mon.ready();
  await expectLog(mon, [
    "Message.GameStart{user:100}",
    "ChangeState(WaitingForReady)",
    "Message.Ready{user:200}",
    "Message.Ready{user:9}",
    "Message.StartPlaying",
    "ChangeState(Playing)",
    "Ready(Ok)",
  ], m);

  // Telemetry goes to monitors only, tagged with the player.
  m = mark(mon);
  bob.touches(TF);
  bob.judges([{ time: 2, line_id: 3, note_id: 7, judgement: "Good" }]);
  await expectLog(mon, ["Touches(200)", "Judges(200)"], m);

  a = mark(alice);
  b = mark(bob);
  m = mark(mon);
  await alice.played(100001);
  await bob.abort();
  await expectLog(alice, [
    "Message.Played{user:100,score:1000000,accuracy:1,full_combo:true}",
    "Played(Ok)",
    "Message.Abort{user:200}",
    "Message.Chat{user:0,content:▸ Lucky Seven results}",
    "Message.Chat{user:0,content:#1. Alice  1000000  100.00%  P928 G0 B0 M0  x928  FC}",
    "Message.Chat{user:0,content:–. Bob  DNF}",
    "Message.Chat{user:0,content:Results: 1/2 completed}",
    "Message.GameEnd",
    "Message.NewHost{user:200}",
    "ChangeHost(false)",
    "ChangeState(SelectChart:7)",
  ], a);
  await expectLog(bob, [
    "Message.Played{user:100,score:1000000,accuracy:1,full_combo:true}",
    "Message.Abort{user:200}",
    "Message.Chat{user:0,content:▸ Lucky Seven results}",
    "Message.Chat{user:0,content:#1. Alice  1000000  100.00%  P928 G0 B0 M0  x928  FC}",
    "Message.Chat{user:0,content:–. Bob  DNF}",
    "Message.Chat{user:0,content:Results: 1/2 completed}",
    "Message.GameEnd",
    "Message.NewHost{user:200}",
    "ChangeHost(true)",
    "ChangeState(SelectChart:7)",
    "Abort(Ok)",
  ], b);
  equal(bob.isHost, true);
  equal(alice.isHost, false);

  // The host leaves: a random remaining player (only Alice) becomes host.
  a = mark(alice);
  b = mark(bob);
  await bob.leaveRoom();
  await expectLog(alice, ["Message.LeaveRoom{user:200,name:Bob}", "Message.NewHost{user:100}", "ChangeHost(true)"], a);
  await expectLog(bob, ["Message.LeaveRoom{user:200,name:Bob}", "LeaveRoom(Ok)"], b);
  equal(bob.roomState, null);

  const room = h.server.core.rooms.get("abc")!;
  equal(room.rounds.length, 1);
  deepEqual(room.rounds[0]!.aborted, [200]);
  deepEqual(room.rounds[0]!.records.map((r) => r.player), [100]);
  await h.close();
});

Deno.test("cancel ready and host cancel return the room to chart selection", async () => {
  const h = await startHarness();
  const alice = await h.login(100);
  const bob = await h.login(200);
  const carol = await h.login(300);
  await alice.createRoom("r1");
  await bob.joinRoom("r1");
  // Carol never readies, so the room keeps waiting.
  await carol.joinRoom("r1");
  await alice.selectChart(42);
  await alice.requestStart();
  await bob.ready();
  const a = mark(alice);
  const b = mark(bob);
  await bob.cancelReady();
  await alice.cancelReady();
  await expectLog(alice, [
    "Message.CancelReady{user:200}",
    "Message.CancelGame{user:100}",
    "ChangeState(SelectChart:42)",
    "CancelReady(Ok)",
  ], a);
  await expectLog(bob, [
    "Message.CancelReady{user:200}",
    "CancelReady(Ok)",
    "Message.CancelGame{user:100}",
    "ChangeState(SelectChart:42)",
  ], b);
  // Outside WaitForReady, Ready and CancelReady answer Ok and change nothing.
  await bob.ready();
  await bob.cancelReady();
  await h.close();
});

Deno.test("a lone host starts at once; Played outside play is still broadcast", async () => {
  const h = await startHarness();
  const alice = await h.login(100);
  await alice.createRoom("solo");
  await alice.selectChart(1);
  const a = mark(alice);
  await alice.requestStart();
  await expectLog(alice, [
    "Message.GameStart{user:100}",
    "ChangeState(WaitingForReady)",
    "Message.StartPlaying",
    "ChangeState(Playing)",
    "RequestStart(Ok)",
  ], a);
  await alice.played(100002);
  await alice.played(100001);
  const tail = alice.received.slice(a + 5).map((c) => c.type);
  // Played in play (ranking lines, GameEnd, back to selection, reply), then Played outside play.
  deepEqual(tail, [
    "Message",
    "Message",
    "Message",
    "Message",
    "Message",
    "ChangeState",
    "Played",
    "Message",
    "Played",
  ]);
  await h.close();
});

Deno.test("joining replays the last chat lines after the JoinRoom reply", async () => {
  const h = await startHarness();
  const alice = await h.login(100);
  const bob = await h.login(200);
  await alice.createRoom("chatty");
  await alice.chat("first");
  await alice.chat("second");
  await bob.joinRoom("chatty");
  await expectLog(bob, [
    "Authenticate(Ok)",
    "OnJoinRoom(200)",
    "Message.JoinRoom{user:200,name:Bob}",
    "JoinRoom(Ok)",
    "Message.Chat{user:100,content:first}",
    "Message.Chat{user:100,content:second}",
  ]);
  await h.close();
});

Deno.test("touches in a room without monitors are not relayed and reach nobody", async () => {
  const h = await startHarness();
  const alice = await h.login(100);
  const bob = await h.login(200);
  await alice.createRoom("quiet");
  await bob.joinRoom("quiet");
  const a = mark(alice);
  bob.touches(TF);
  await bob.chat("after");
  await expectLog(alice, ["Message.Chat{user:200,content:after}"], a);
  await h.close();
});
