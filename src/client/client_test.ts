import { deepEqual, equal, ok, rejects } from "node:assert/strict";
import { encodeServerCommand, err, ok as okResult, type ServerCommand } from "../protocol/mod.ts";
import { assertNoViolations, assertRejectsWithReason } from "./assert.ts";
import { connect } from "./client.ts";
import { ClientError } from "./errors.ts";
import { errReply, okReply, okScript } from "./fake_server_test_util.ts";
import { ALICE, barrier, BOB, pair, TOKEN } from "./test_fixtures_test_util.ts";

Deno.test("client sends the version byte, then minimal frames in call order", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const client = await connect({ port: listener.addr.port, pingIntervalMs: 0 });
  const server = await listener.accept();
  const pending = [client.ping(), client.chat("hi"), client.createRoom("abc")].map((p) => p.catch((e) => e));
  const expected = [0x01, 0x01, 0x00, 0x04, 0x02, 0x02, 0x68, 0x69, 0x05, 0x05, 0x03, 0x61, 0x62, 0x63];
  const got: number[] = [];
  const buf = new Uint8Array(64);
  while (got.length < expected.length) {
    const n = await server.read(buf);
    if (n === null) break;
    got.push(...buf.subarray(0, n));
  }
  deepEqual(got, expected);
  await client.close();
  for (const e of await Promise.all(pending)) equal((e as ClientError).code, "closed");
  server.close();
  listener.close();
});

Deno.test("client sends a configured version byte", async () => {
  await using p = await pair({ script: okScript(ALICE) }, { version: 7 });
  await p.client.chat("x");
  equal(p.conn.version, 7);
});

Deno.test("authenticate resolves with the user and the room still held", async () => {
  const room = {
    id: "abc",
    state: { type: "SelectChart" as const, chart: 12345 },
    live: false,
    locked: true,
    cycle: false,
    is_host: true,
    is_ready: false,
    users: new Map([[100, ALICE], [200, BOB]]),
  };
  await using p = await pair({
    script: (_, conn) => conn.send({ type: "Authenticate", result: okResult([ALICE, room]) }),
  });
  const auth = await p.client.authenticate(TOKEN);
  deepEqual(auth, { user: ALICE, room });
  deepEqual(p.conn.commands, [{ type: "Authenticate", token: TOKEN }]);
  deepEqual(p.client.me, ALICE);
  equal(p.client.roomId, "abc");
  equal(p.client.isHost, true);
  equal(p.client.locked, true);
  deepEqual([...p.client.users!.keys()], [100, 200]);
});

Deno.test("authenticate rejects with the server's exact Err string", async () => {
  await using p = await pair({
    script: (_, conn) => conn.send({ type: "Authenticate", result: err("failed to fetch info") }),
  });
  const e = await assertRejectsWithReason(p.client.authenticate(TOKEN), "failed to fetch info");
  equal(e.code, "rejected");
  equal(e.command, "Authenticate");
  equal(e.message, 'Cannot authenticate: server replied Err("failed to fetch info")');
  equal(p.client.me, null);
});

Deno.test("each command resolves with its reply", async (t) => {
  await using p = await pair({ script: okScript(ALICE) });
  const { client, conn } = p;
  const steps: [string, () => Promise<unknown>, unknown, unknown][] = [
    ["authenticate", () => client.authenticate(TOKEN), { type: "Authenticate", token: TOKEN }, {
      user: ALICE,
      room: null,
    }],
    ["createRoom", () => client.createRoom("abc"), { type: "CreateRoom", id: "abc" }, undefined],
    ["chat", () => client.chat("hi"), { type: "Chat", message: "hi" }, undefined],
    ["lockRoom", () => client.lockRoom(true), { type: "LockRoom", lock: true }, undefined],
    ["cycleRoom", () => client.cycleRoom(false), { type: "CycleRoom", cycle: false }, undefined],
    ["selectChart", () => client.selectChart(12345), { type: "SelectChart", id: 12345 }, undefined],
    ["requestStart", () => client.requestStart(), { type: "RequestStart" }, undefined],
    ["ready", () => client.ready(), { type: "Ready" }, undefined],
    ["cancelReady", () => client.cancelReady(), { type: "CancelReady" }, undefined],
    ["played", () => client.played(123456789), { type: "Played", id: 123456789 }, undefined],
    ["abort", () => client.abort(), { type: "Abort" }, undefined],
    ["leaveRoom", () => client.leaveRoom(), { type: "LeaveRoom" }, undefined],
    ["joinRoom", () => client.joinRoom("abc", true), { type: "JoinRoom", id: "abc", monitor: true }, {
      state: { type: "SelectChart", chart: null },
      users: [ALICE],
      live: true,
    }],
    ["consoleAuthenticate", () => client.consoleAuthenticate(TOKEN), { type: "ConsoleAuthenticate", token: TOKEN }, {
      user: ALICE,
      room: null,
    }],
    ["roomMonitorAuthenticate", () => client.roomMonitorAuthenticate(new Uint8Array([1, 2])), {
      type: "RoomMonitorAuthenticate",
      key: new Uint8Array([1, 2]),
    }, { user: ALICE, room: null }],
    ["gameMonitorAuthenticate", () => client.gameMonitorAuthenticate(TOKEN), {
      type: "GameMonitorAuthenticate",
      token: TOKEN,
    }, { user: ALICE, room: null }],
    ["queryRoomInfo", () => client.queryRoomInfo(), { type: "QueryRoomInfo" }, { rooms: new Map(), users: new Map() }],
  ];
  for (const [name, call, sent, value] of steps) {
    await t.step(name, async () => {
      deepEqual(await call(), value);
      deepEqual(conn.commands.at(-1), sent);
    });
  }
  await t.step("ping", async () => {
    equal(typeof await client.ping(), "number");
    deepEqual(conn.commands.at(-1), { type: "Ping" });
  });
  assertNoViolations(client);
  equal(client.stats.pending, 0);
});

Deno.test("request() resolves Err replies as a Result; named methods reject with the reason", async () => {
  await using p = await pair({
    script: (cmd, conn) => {
      if (cmd.type === "SelectChart") conn.send(errReply("SelectChart", "only host can do this"));
      if (cmd.type === "JoinRoom") conn.send({ type: "JoinRoom", result: err("room not found") });
    },
  });
  const reply = await p.client.request({ type: "SelectChart", id: 1 });
  deepEqual(reply, { type: "SelectChart", result: err("only host can do this") });
  await assertRejectsWithReason(p.client.joinRoom("x"), "room not found");
  equal(p.client.roomState, null);
  await rejects(p.client.createRoom("bad id"), RangeError);
  assertNoViolations(p.client);
});

Deno.test("two outstanding requests of one type are answered first in, first out", async () => {
  await using p = await pair();
  const first = p.client.chat("one");
  const second = p.client.chat("two");
  await p.conn.nextCommand();
  await p.conn.nextCommand();
  p.conn.send(errReply("Chat", "first"));
  p.conn.send(okReply("Chat"));
  await assertRejectsWithReason(first, "first");
  equal(await second, undefined);
  assertNoViolations(p.client);
});

Deno.test("pushed commands reach the stream in order and the log keeps exact order", async () => {
  const pushed: ServerCommand[] = [
    { type: "Message", message: { type: "Chat", user: 200, content: "hi" } },
    { type: "Touches", player: 200, frames: [{ time: 1.5, points: [[0, { x: 0.5, y: -0.25 }]] }] },
    { type: "Judges", player: 200, judges: [{ time: 2, line_id: 3, note_id: 7, judgement: "Good" }] },
    { type: "OnJoinRoom", user: BOB },
    { type: "RoomEvent", event: { type: "JoinRoom", room: "abc", user: 200 } },
    { type: "UserVisit", user: 7 },
  ];
  await using p = await pair({
    script: (cmd, conn) => {
      if (cmd.type !== "Chat") return;
      for (const c of pushed) conn.send(c);
      conn.send(okReply("Chat"));
    },
  });
  await p.client.chat("go");
  // waitFor takes the first match and leaves earlier events in place.
  deepEqual(await p.client.waitFor("OnJoinRoom"), pushed[3]);
  deepEqual(await p.client.waitForMessage("Chat"), { type: "Chat", user: 200, content: "hi" });
  const rest = [];
  for await (const event of p.client) {
    rest.push(event);
    if (event.type === "UserVisit") break;
  }
  deepEqual(rest, [pushed[1], pushed[2], pushed[4], pushed[5]]);
  deepEqual(p.client.received, [...pushed, okReply("Chat")]);
  equal(p.client.stats.received, 7);
  assertNoViolations(p.client);
});

Deno.test("the event buffer and the log are bounded and can be disabled", async () => {
  const seen: number[] = [];
  await using p = await pair({}, {
    eventBufferLimit: 2,
    logLimit: 0,
    onEvent: (e) => seen.push((e as { user: number }).user),
  });
  for (const user of [1, 2, 3]) p.conn.send({ type: "UserVisit", user });
  await barrier(p.conn, p.client, 9);
  deepEqual(p.client.drainEvents(), [{ type: "UserVisit", user: 2 }, { type: "UserVisit", user: 3 }]);
  deepEqual(seen, [1, 2, 3, 9]);
  deepEqual(p.client.received, []);
  equal(p.client.stats.droppedEvents, 1);
  equal(p.client.stats.droppedLog, 4);
});

Deno.test("close() flushes queued writes, rejects pending work and releases everything", async () => {
  await using p = await pair({}, { pingIntervalMs: 3000 });
  const request = rejects(p.client.ready(), (e: ClientError) => {
    return e.code === "closed" && e.message === "Cannot ready: the client was closed";
  });
  const waiting = rejects(p.client.waitFor("ChangeHost"), (e: ClientError) => {
    return e.code === "closed" && e.message === "Cannot wait for ChangeHost: the client was closed";
  });
  ok(p.client.touches([{ time: 1, points: [] }]));
  ok(p.client.judges([]));
  await p.client.close();
  await p.client.close();
  await request;
  await waiting;
  await rejects(p.client.chat("late"), (e: ClientError) => e.code === "closed");
  equal(p.client.touches([]), false);
  equal(p.client.closeReason, null);
  equal(p.client.isClosed, true);
  await p.conn.done;
  deepEqual(p.conn.commands.map((c) => c.type), ["Ready", "Touches", "Judges"]);
});

Deno.test("onReceive sees replies and pushes in wire order, before the reply settles its request", async () => {
  const seen: string[] = [];
  const reply: ServerCommand = { type: "RoomResponse", result: okResult([new Map(), new Map()]) };
  const push: ServerCommand = { type: "UserVisit", user: 7 };
  await using p = await pair({
    // The reply and a later push arrive in one read: the push is dispatched before the request's continuation runs.
    script: (cmd, conn) => {
      if (cmd.type === "QueryRoomInfo") conn.sendRaw(concatFrames(reply, push));
    },
  }, { onReceive: (cmd) => seen.push(`receive ${cmd.type}`), onEvent: (e) => seen.push(`event ${e.type}`) });
  await p.client.queryRoomInfo();
  seen.push("settled");
  deepEqual(seen, ["receive RoomResponse", "receive UserVisit", "event UserVisit", "settled"]);
});

function concatFrames(...cmds: ServerCommand[]): Uint8Array {
  const frames = cmds.map(encodeServerCommand);
  const out = new Uint8Array(frames.reduce((n, f) => n + f.length, 0));
  let at = 0;
  for (const f of frames) {
    out.set(f, at);
    at += f.length;
  }
  return out;
}
