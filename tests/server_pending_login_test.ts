/**
 * Edge cases around a login still pending (spec 3 §3.2: a new connection
 * takes over only once its `Authenticate(Ok)` is flushed): telemetry for a
 * reconnecting monitor, an operator's force-move of a user who is logging
 * in. The pending connection is virtual (its writes are held); everyone
 * else talks over loopback TCP.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import type { TouchFrame } from "../src/protocol/mod.ts";
import { startConsoleHarness } from "./support/console.ts";
import { expectLog, log, mark, waitUntil } from "./support/describe.ts";
import { type Harness, startHarness, UNLIMITED_TELEMETRY } from "./support/harness.ts";
import { HeldConnection, loginBytes } from "./support/held_connection.ts";

// Bystanders send nothing for a while: a long heartbeat keeps them connected.
const QUIET = { heartbeat_timeout: 3600 };
const TF: TouchFrame[] = [{ time: 1.5, points: [[0, { x: 0.5, y: -0.25 }]] }];

/** Starts a second login of `id` whose reply is held; resolves once it is DurableAccepted. */
async function heldRelogin(h: Harness, id: number) {
  const conn = new HeldConnection(loginBytes(id));
  const session = h.server.attach(conn, "127.0.0.1")!;
  await waitUntil(() => session.state === "durable-accepted", "login answered, not flushed");
  return { conn, session };
}

Deno.test("telemetry for a monitor reconnecting mid-round goes to the old connection until takeover, then the new one", async () => {
  const h = await startHarness({ config: QUIET, telemetryBudget: UNLIMITED_TELEMETRY });
  const alice = await h.login(100);
  const mon = await h.login(9);
  await alice.createRoom("abc");
  await mon.joinRoom("abc", true);
  await alice.selectChart(7);
  await alice.requestStart();
  await mon.ready();
  await waitUntil(() => alice.roomState?.state.type === "Playing", "playing");
  const core = h.server.core;
  const oldSession = core.users.get(9)!.session!;
  const { conn, session } = await heldRelogin(h, 9);
  const gated = session.gatedFrames;
  equal(gated, 1, "only the chart repeat waits behind the reply");

  // More telemetry than the gate's 256 frames: none of it may fail the login.
  const m = mark(mon);
  const burst = 300;
  for (let i = 0; i < burst; i++) alice.touches(TF);
  alice.judges([{ time: 2, line_id: 3, note_id: 7, judgement: "Good" }]);
  await waitUntil(() => mon.received.length - m >= burst + 1, "the old connection received the burst", 5000);
  const seen = log(mon, m);
  equal(seen.filter((l) => l === "Touches(100)").length, burst);
  deepEqual(seen.slice(-1), ["Judges(100)"]);
  equal(session.gatedFrames, gated, "telemetry never enters the pending session's gate");
  equal(session.state, "durable-accepted");
  equal(core.users.get(9)!.session, oldSession, "no takeover yet");

  conn.release();
  await waitUntil(() => session.state === "active", "takeover");
  await mon.closed;
  equal(core.users.get(9)!.session, session);
  alice.touches(TF);
  await waitUntil(() => conn.log().includes("Touches(100)"), "the new connection receives telemetry");
  deepEqual(conn.log(), ["Authenticate(Ok)", "Message.SelectChart{user:100,name:Lucky Seven,id:7}", "Touches(100)"]);
  equal(log(mon, m).length, burst + 1, "nothing more reached the replaced connection");
  conn.close();
  await h.close();
});

Deno.test("console room force-move of a user whose login is pending is refused; after takeover it moves them", async () => {
  const c = await startConsoleHarness();
  try {
    const h = c.h;
    const core = h.server.core;
    const alice = await h.login(100);
    const bob = await h.login(200);
    await alice.createRoom("old");
    await bob.createRoom("abc");
    const { conn, session } = await heldRelogin(h, 100);
    const a = mark(alice);
    const b = mark(bob);

    const refused = await c.run("room force-move abc 100");
    deepEqual(refused, {
      ok: false,
      code: "CONFLICT",
      message: "user 100 is logging in; try again",
      lines: ["error: user 100 is logging in; try again"],
    });
    equal(core.users.get(100)!.roomId, "old", "membership untouched");
    deepEqual(core.rooms.get("abc")!.players.map((p) => p.id), [200]);
    equal(alice.isClosed, false, "the old connection is not closed");
    await expectLog(alice, [], a);
    await expectLog(bob, [], b);
    equal(session.gatedFrames, 0, "nothing was queued for the pending connection");

    conn.release();
    await waitUntil(() => session.state === "active", "takeover");
    await alice.closed;
    const reply = conn.commands()[0];
    ok(reply?.type === "Authenticate" && reply.result.ok);
    equal(reply.result.value[1]?.id, "old", "the reply's room is the user's room");

    deepEqual(await c.lines("room force-move abc 100"), ["user 100 moved to abc; their client reconnects into it"]);
    equal(await session.done, "kicked");
    deepEqual(conn.log().slice(1), [
      "Message.LeaveRoom{user:100,name:Alice}",
      "OnJoinRoom(100)",
      "Message.JoinRoom{user:100,name:Alice}",
      "Message.Chat{user:0,content:An administrator moved you to room abc; reconnecting…}",
    ]);
    deepEqual(core.rooms.get("abc")!.players.map((p) => p.id), [200, 100]);
    conn.close();
  } finally {
    await c.close();
  }
});

Deno.test("force-move of a dangling user whose reconnect is pending is refused as logging in", async () => {
  const c = await startConsoleHarness();
  try {
    const h = c.h;
    const core = h.server.core;
    const alice = await h.login(100);
    await alice.createRoom("old");
    await h.login(200).then((bob) => bob.createRoom("abc"));
    await alice.close();
    await waitUntil(() => core.users.get(100)?.session === null, "alice dangling");
    const { conn, session } = await heldRelogin(h, 100);
    const refused = await c.run("room force-move abc 100");
    equal(refused.ok ? "" : refused.message, "user 100 is logging in; try again");
    equal(core.users.get(100)!.roomId, "old");
    conn.close();
    equal(await session.done, "eof");
    await waitUntil(() => core.users.get(100)?.pending === null, "login rolled back");
    // With the login rolled back the user is dangling, not online: the ordinary refusal.
    const offline = await c.run("room force-move abc 100");
    equal(offline.ok ? "" : offline.message, "user 100 is not online");
  } finally {
    await c.close();
  }
});
