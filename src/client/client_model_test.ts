import { deepEqual, equal } from "node:assert/strict";
import { ok, type ServerCommand } from "../protocol/mod.ts";
import { assertNoViolations } from "./assert.ts";
import { okReply, okScript } from "./fake_server_test_util.ts";
import type { ViolationKind } from "./room_model.ts";
import { ALICE, barrier, BOB, pair, TOKEN } from "./test_fixtures_test_util.ts";

const MONITOR = { id: 2, name: "Mon", monitor: true };

Deno.test("room model follows the official client through a room's life", async () => {
  await using p = await pair({ script: okScript(ALICE) });
  const { client, conn } = p;
  // Read through a function: assertions would otherwise narrow the getter's type for good.
  const room = () => client.roomState;
  equal(room(), null);
  await client.authenticate(TOKEN);
  await client.createRoom("abc");
  deepEqual(room(), {
    id: "abc",
    state: { type: "SelectChart", chart: null },
    live: false,
    locked: false,
    cycle: false,
    is_host: true,
    is_ready: false,
    users: new Map([[100, ALICE]]),
  });

  conn.send({ type: "OnJoinRoom", user: BOB });
  conn.send({ type: "Message", message: { type: "JoinRoom", user: 200, name: "Bob" } });
  conn.send({ type: "OnJoinRoom", user: MONITOR });
  conn.send({ type: "Message", message: { type: "LockRoom", lock: true } });
  conn.send({ type: "Message", message: { type: "CycleRoom", cycle: true } });
  conn.send({ type: "ChangeState", state: { type: "WaitingForReady" } });
  await barrier(conn, client);
  deepEqual([...client.users!.keys()], [100, 200, 2]);
  equal(client.live, true);
  equal(client.locked, true);
  equal(client.cycle, true);
  equal(client.isReady, true, "ChangeState sets is_ready = is_host");

  conn.send({ type: "ChangeHost", is_host: false });
  conn.send({ type: "ChangeState", state: { type: "Playing" } });
  conn.send({ type: "Message", message: { type: "LeaveRoom", user: 200, name: "Bob" } });
  await barrier(conn, client);
  equal(client.isHost, false);
  equal(client.isReady, false);
  deepEqual(room()?.state, { type: "Playing" });
  deepEqual([...client.users!.keys()], [100, 2]);

  await client.ready();
  equal(client.isReady, true);
  await client.cancelReady();
  equal(client.isReady, false);
  await client.leaveRoom();
  equal(room(), null);
  equal(client.isHost, null);

  await client.joinRoom("xyz");
  deepEqual(room(), {
    id: "xyz",
    state: { type: "SelectChart", chart: null },
    live: false,
    locked: false,
    cycle: false,
    is_host: false,
    is_ready: false,
    users: new Map([[100, ALICE]]),
  });
  assertNoViolations(client);
});

Deno.test("OnJoinRoom before the joiner's JoinRoom reply is tolerated, as the official client does", async () => {
  await using p = await pair({
    script: (cmd, conn) => {
      if (cmd.type !== "JoinRoom") return;
      conn.send({ type: "OnJoinRoom", user: ALICE });
      conn.send({ type: "Message", message: { type: "JoinRoom", user: 100, name: "Alice" } });
      conn.send({
        type: "JoinRoom",
        result: ok({ state: { type: "WaitingForReady" }, users: [BOB, ALICE], live: true }),
      });
    },
  });
  const resp = await p.client.joinRoom("abc");
  deepEqual(resp.users, [BOB, ALICE]);
  equal(p.client.live, true);
  deepEqual([...p.client.users!.keys()], [200, 100]);
  assertNoViolations(p.client);
});

Deno.test("every point where the official client panics is recorded as a violation", async (t) => {
  const cases: [string, ServerCommand, ViolationKind][] = [
    ["unsolicited reply", okReply("Ready"), "unsolicited-reply"],
    ["unsolicited Authenticate", { type: "Authenticate", result: ok([ALICE, null]) }, "unsolicited-reply"],
    ["ChangeState with no room", { type: "ChangeState", state: { type: "Playing" } }, "no-room"],
    ["ChangeHost with no room", { type: "ChangeHost", is_host: true }, "no-room"],
    [
      "Message::LeaveRoom with no room",
      { type: "Message", message: { type: "LeaveRoom", user: 1, name: "x" } },
      "no-room",
    ],
    ["Message::LockRoom with no room", { type: "Message", message: { type: "LockRoom", lock: true } }, "no-room"],
    ["Message::CycleRoom with no room", { type: "Message", message: { type: "CycleRoom", cycle: true } }, "no-room"],
  ];
  for (const [name, command, kind] of cases) {
    await t.step(name, async () => {
      await using p = await pair();
      p.conn.send({ type: "Message", message: { type: "Chat", user: 1, content: "harmless" } });
      p.conn.send({ type: "OnJoinRoom", user: BOB });
      p.conn.send(command);
      await barrier(p.conn, p.client);
      equal(p.client.violations.length, 1);
      const v = p.client.violations[0]!;
      deepEqual([v.kind, v.seq, v.command], [kind, 2, command]);
      equal(p.client.stats.violations, 1);
    });
  }

  await t.step("an Ok reply that needs a room, with no room", async () => {
    await using p = await pair({ script: (_, conn) => conn.send(okReply("Ready")) });
    await p.client.ready();
    deepEqual(p.client.violations.map((v) => [v.kind, v.detail]), [
      ["no-room", "Ready(Ok) while the client has no room state"],
    ]);
  });

  await t.step("CreateRoom(Ok) before authentication", async () => {
    await using p = await pair({ script: okScript(ALICE) });
    await p.client.createRoom("abc");
    deepEqual(p.client.violations.map((v) => v.kind), ["not-authenticated"]);
  });

  await t.step("a stray Pong is harmless", async () => {
    const violations: unknown[] = [];
    await using p = await pair({}, { onViolation: (v) => violations.push(v) });
    p.conn.send({ type: "Pong" });
    await barrier(p.conn, p.client);
    assertNoViolations(p.client);
    equal(p.client.stats.unsolicitedPongs, 1);
    deepEqual(violations, []);
  });

  await t.step("onViolation is called", async () => {
    const kinds: string[] = [];
    await using p = await pair({}, { onViolation: (v) => kinds.push(v.kind) });
    p.conn.send({ type: "ChangeHost", is_host: true });
    await barrier(p.conn, p.client);
    deepEqual(kinds, ["no-room"]);
  });
});

Deno.test("model updates never alter the commands kept in the received log", async () => {
  const room = {
    id: "abc",
    state: { type: "SelectChart" as const, chart: null },
    live: false,
    locked: false,
    cycle: false,
    is_host: false,
    is_ready: false,
    users: new Map([[100, ALICE], [200, BOB]]),
  };
  const reply: ServerCommand = { type: "Authenticate", result: ok([ALICE, room]) };
  await using p = await pair({ script: (_, conn) => conn.send(reply) });
  await p.client.authenticate(TOKEN);
  p.conn.send({ type: "ChangeState", state: { type: "Playing" } });
  p.conn.send({ type: "Message", message: { type: "LeaveRoom", user: 200, name: "Bob" } });
  await barrier(p.conn, p.client);
  deepEqual(p.client.received[0], reply);
  deepEqual(p.client.roomState?.state, { type: "Playing" });
  equal(p.client.users?.size, 1);
  assertNoViolations(p.client);
});
