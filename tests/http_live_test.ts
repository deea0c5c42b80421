/**
 * `/ws/live` (extended.md §5.6) on real sockets: a browser-like WebSocket
 * client spectates rooms of real TCP players through a virtual game-monitor
 * session.
 */
import { deepEqual, equal } from "node:assert/strict";
import { decodeLiveEvent, encodeWsCommand, type LiveEvent } from "../src/http/mod.ts";
import { waitUntil } from "./support/describe.ts";
import { devToken } from "./support/harness.ts";
import { type HttpHarness, startHttpHarness } from "./support/http.ts";
import { TestSocket } from "./support/ws.ts";

function liveUrl(h: HttpHarness, token: string): string {
  return `${h.url.replace("http", "ws")}/ws/live?token=${encodeURIComponent(token)}`;
}

function events(ws: TestSocket, from = 0): LiveEvent[] {
  return ws.messages.slice(from).map(decodeLiveEvent);
}

/** Compact names for order assertions: `Message.JoinRoom`, `StateChange.Playing`, `Join(Ok)`. */
function names(list: LiveEvent[]): string[] {
  return list.map((e) => {
    switch (e.type) {
      case "Message":
        return `Message.${e.message.type}`;
      case "StateChange":
        return `StateChange.${e.state.type}`;
      case "Authenticate":
      case "Join":
      case "Leave":
        return `${e.type}(${e.result.ok ? "Ok" : `Err:${e.result.error}`})`;
      case "UserJoin":
        return `UserJoin(${e.user.id})`;
      default:
        return e.type;
    }
  });
}

Deno.test("http /ws/live: authenticate as game monitor, join, relay room traffic, ready, leave on close", async () => {
  const h = await startHttpHarness({ listen: true });
  try {
    const alice = await h.login(100);
    await alice.createRoom("abc");
    const ws = await TestSocket.open(liveUrl(h, devToken(9)));
    await ws.waitFor(1, "Authenticate");
    const [auth] = events(ws);
    deepEqual(auth, {
      type: "Authenticate",
      result: { ok: true, value: [{ id: -9, name: `${h.server.core.users.get(-9)!.name}`, monitor: false }, null] },
    });
    equal(h.server.core.users.get(-9)!.name.endsWith(" (monitor)"), true);

    ws.socket.send(encodeWsCommand({ type: "Join", room_id: "abc" }));
    await ws.waitFor(4, "Join reply");
    // The server announces the joiner to the room (the joiner included) before it replies.
    deepEqual(names(events(ws, 1)), ["UserJoin(-9)", "Message.JoinRoom", "Join(Ok)"]);
    const join = events(ws)[3]!;
    equal(join.type === "Join" && join.result.ok && join.result.value.live, true);
    deepEqual(h.server.core.rooms.get("abc")!.monitors.map((m) => m.id), [-9]);

    const bob = await h.login(200);
    await bob.joinRoom("abc");
    await alice.selectChart(1);
    alice.touches([{ time: 1.5, points: [[0, { x: 0.25, y: -0.5 }]] }]);
    await alice.requestStart();
    await bob.ready();
    // The round waits for the spectator too; Ready from the browser lets it start.
    await ws.waitFor(12, "room traffic");
    ws.socket.send(encodeWsCommand({ type: "Ready" }));
    await alice.waitFor("ChangeState", (e) => e.state.type === "Playing");
    await ws.waitFor(15, "start");
    deepEqual(names(events(ws, 4)), [
      "UserJoin(200)",
      "Message.JoinRoom",
      "Message.SelectChart",
      "StateChange.SelectChart",
      "Touches",
      "Message.GameStart",
      "StateChange.WaitingForReady",
      "Message.Ready",
      "Message.Ready",
      "Message.StartPlaying",
      "StateChange.Playing",
    ]);
    deepEqual(events(ws, 8)[0], {
      type: "Touches",
      player: 100,
      frames: [{ time: 1.5, points: [[0, { x: 0.25, y: -0.5 }]] }],
    });

    const sessions = h.server.core.sessions.size;
    await ws.close();
    await waitUntil(() => h.server.core.rooms.get("abc")!.monitors.length === 0, "monitor left the room");
    await waitUntil(() => h.server.core.sessions.size === sessions - 1, "virtual session closed");
    equal(h.server.core.users.has(-9), false);
    equal(h.http.context.live.size, 0);
  } finally {
    await h.close();
  }
});

Deno.test("http /ws/live relays a player's Judges during the round as LiveEvent Judges", async () => {
  const h = await startHttpHarness({ listen: true });
  try {
    const alice = await h.login(100);
    await alice.createRoom("abc");
    const ws = await TestSocket.open(liveUrl(h, devToken(9)));
    await ws.waitFor(1, "Authenticate");
    ws.socket.send(encodeWsCommand({ type: "Join", room_id: "abc" }));
    await ws.waitFor(4, "Join reply");
    await alice.selectChart(1);
    await alice.requestStart();
    const before = ws.messages.length;
    ws.socket.send(encodeWsCommand({ type: "Ready" }));
    await alice.waitFor("ChangeState", (e) => e.state.type === "Playing");
    await waitUntil(() => names(events(ws, before)).includes("StateChange.Playing"), "spectator sees Playing");
    const from = ws.messages.length;
    alice.judges([
      { time: 2, line_id: 3, note_id: 7, judgement: "Good" },
      { time: 2.5, line_id: 0, note_id: 8, judgement: "Perfect" },
    ]);
    await ws.waitFor(from + 1, "Judges");
    deepEqual(events(ws, from), [{
      type: "Judges",
      player: 100,
      judges: [
        { time: 2, line_id: 3, note_id: 7, judgement: "Good" },
        { time: 2.5, line_id: 0, note_id: 8, judgement: "Perfect" },
      ],
    }]);
    // Bytes on the wire: tag 4, the player as i32 LE, then the judge list.
    equal(ws.messages[from]![0], 4);
    deepEqual([...ws.messages[from]!.slice(1, 5)], [100, 0, 0, 0]);
    await ws.close();
  } finally {
    await h.close();
  }
});

Deno.test("http /ws/live: Leave and a failed Join are answered; a malformed command closes with 1007", async () => {
  const h = await startHttpHarness({ listen: true });
  try {
    await (await h.login(100)).createRoom("abc");
    const ws = await TestSocket.open(liveUrl(h, devToken(10)));
    ws.socket.send(encodeWsCommand({ type: "Join", room_id: "nope" }));
    ws.socket.send(encodeWsCommand({ type: "Join", room_id: "abc" }));
    ws.socket.send(encodeWsCommand({ type: "Leave" }));
    await ws.waitFor(7, "replies");
    const list = names(events(ws));
    equal(list[0], "Authenticate(Ok)");
    equal(list[1]!.startsWith("Join(Err:"), true);
    deepEqual(list.slice(2), ["UserJoin(-10)", "Message.JoinRoom", "Join(Ok)", "Message.LeaveRoom", "Leave(Ok)"]);
    ws.socket.send(new Uint8Array([9]));
    await ws.closed;
    equal(ws.closeEvent?.code, 1007);
  } finally {
    await h.close();
  }
});

Deno.test("http /ws/live refuses users not in monitors, bad tokens, missing tokens and plain requests", async (t) => {
  const h = await startHttpHarness({ listen: true });
  try {
    for (
      const [what, token, reason] of [
        ["a player who is not a monitor", devToken(100), "not allowed to spectate"],
        ["an unknown token", "not-a-token", "authentication failed"],
      ] as const
    ) {
      await t.step(what, async () => {
        const ws = await TestSocket.open(liveUrl(h, token));
        await ws.closed;
        deepEqual(events(ws), [{ type: "Authenticate", result: { ok: false, error: reason } }]);
        equal(ws.closeEvent?.code, 1008);
      });
    }
    equal(h.server.core.sessions.size, 0);
    await t.step("no token", async () => {
      const res = await fetch(`${h.url}/ws/live`, { headers: { upgrade: "websocket" } });
      deepEqual([res.status, await res.json()], [401, { error: "missing token (query parameter token)", code: 401 }]);
    });
    await t.step("token too long", async () => {
      const res = await fetch(`${h.url}/ws/live?token=${"x".repeat(33)}`, { headers: { upgrade: "websocket" } });
      deepEqual([res.status, await res.json()], [400, { error: "invalid token", code: 400 }]);
    });
    await t.step("not an upgrade", async () => {
      const res = await fetch(`${h.url}/ws/live?token=${devToken(9)}`);
      deepEqual([res.status, await res.json()], [426, { error: "expected a WebSocket upgrade", code: 426 }]);
    });
  } finally {
    await h.close();
  }
});

Deno.test("http /ws/live closes when the server ends the virtual session; viewers are bounded", async () => {
  const h = await startHttpHarness({ listen: true, http: { maxLiveViewers: 1 } });
  try {
    const ws = await TestSocket.open(liveUrl(h, devToken(9)));
    await ws.waitFor(1, "Authenticate");
    const full = await fetch(`${h.url}/ws/live?token=${devToken(10)}`, { headers: { upgrade: "websocket" } });
    deepEqual([full.status, await full.json()], [503, { error: "too many spectators", code: 503 }]);
    const { Admin } = await import("../src/server/mod.ts");
    new Admin(h.server.core).kickUser(-9);
    await ws.closed;
    equal(ws.closeEvent?.code, 1000);
    await waitUntil(() => h.http.context.live.size === 0, "viewer released");
  } finally {
    await h.close();
  }
});

Deno.test("http /ws/live: closing the HTTP service makes spectators leave their rooms first", async () => {
  const h = await startHttpHarness({ listen: true });
  try {
    await (await h.login(100)).createRoom("abc");
    const ws = await TestSocket.open(liveUrl(h, devToken(9)));
    ws.socket.send(encodeWsCommand({ type: "Join", room_id: "abc" }));
    await ws.waitFor(4, "Join reply");
    await h.service!.close();
    deepEqual(h.server.core.rooms.get("abc")!.monitors, []);
    equal(h.server.core.users.has(-9), false);
    await ws.closed;
    equal(ws.closeEvent?.code, 1001);
  } finally {
    await h.close();
  }
});
