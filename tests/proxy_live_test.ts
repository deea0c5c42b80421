/**
 * `/ws/live` through the monitor proxy (extended.md §5.6): the session token
 * in `?token=`, a game-monitor TCP session per browser, the binary
 * `WsCommand`/`LiveEvent` protocol, refusals before the upgrade, the game
 * server's own permission check, the viewer bound, and leaving the room
 * when the browser goes, messages over the limit refused as they arrive.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { decodeLiveEvent, encodeWsCommand, type LiveEvent } from "../src/http/mod.ts";
import { DEV_PASSWORD, devEmail } from "../src/upstream/mod.ts";
import { waitUntil } from "./support/describe.ts";
import { type ProxyHarness, startProxyHarness } from "./support/proxy.ts";
import { TestSocket } from "./support/ws.ts";
import { closeCode, frameHeader, handshake } from "./support/ws_raw.ts";

async function sessionToken(h: ProxyHarness, id: number): Promise<string> {
  const res = await h.json("/auth/login", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: devEmail(id), password: DEV_PASSWORD }),
  });
  return (res.body as { token: string }).token;
}

function liveUrl(h: ProxyHarness, token: string): string {
  return `${h.url.replace("http", "ws")}/ws/live?token=${encodeURIComponent(token)}`;
}

function events(ws: TestSocket, from = 0): LiveEvent[] {
  return ws.messages.slice(from).map(decodeLiveEvent);
}

function names(list: LiveEvent[]): string[] {
  return list.map((e) => {
    if (e.type === "Message") return `Message.${e.message.type}`;
    if (e.type === "StateChange") return `StateChange.${e.state.type}`;
    if (e.type === "Authenticate" || e.type === "Join" || e.type === "Leave") {
      return `${e.type}(${e.result.ok ? "Ok" : `Err:${e.result.error}`})`;
    }
    if (e.type === "UserJoin") return `UserJoin(${e.user.id})`;
    return e.type;
  });
}

Deno.test("proxy /ws/live: game-monitor session per browser, join, relay, ready, leave on close", async () => {
  const h = await startProxyHarness();
  try {
    const alice = await h.login(100);
    const bob = await h.login(200);
    await alice.createRoom("abc");
    await bob.joinRoom("abc");
    const ws = await TestSocket.open(liveUrl(h, await sessionToken(h, 9)));
    await ws.waitFor(1, "Authenticate");
    deepEqual(events(ws)[0], {
      type: "Authenticate",
      result: { ok: true, value: [{ id: -9, name: "Player9 (monitor)", monitor: false }, null] },
    });
    equal(h.proxy.live.size, 1);
    ws.socket.send(encodeWsCommand({ type: "Join", room_id: "abc" }));
    await ws.waitFor(4, "Join reply");
    deepEqual(names(events(ws, 1)), ["UserJoin(-9)", "Message.JoinRoom", "Join(Ok)"]);
    deepEqual(h.server.core.rooms.get("abc")!.monitors.map((m) => m.id), [-9]);

    await alice.selectChart(1);
    await alice.requestStart();
    await bob.ready();
    await ws.waitFor(9, "round start traffic");
    ws.socket.send(encodeWsCommand({ type: "Ready" }));
    await alice.waitFor("ChangeState", (e) => e.state.type === "Playing");
    alice.touches([{ time: 1.5, points: [[0, { x: 0.25, y: -0.5 }]] }]);
    alice.judges([{ time: 1.5, line_id: 0, note_id: 3, judgement: "Perfect" }]);
    await waitUntil(() => events(ws).some((e) => e.type === "Judges"), "judges relayed");
    const touches = events(ws).find((e) => e.type === "Touches");
    deepEqual(touches, { type: "Touches", player: 100, frames: [{ time: 1.5, points: [[0, { x: 0.25, y: -0.5 }]] }] });
    const judges = events(ws).find((e) => e.type === "Judges");
    deepEqual(judges, {
      type: "Judges",
      player: 100,
      judges: [{ time: 1.5, line_id: 0, note_id: 3, judgement: "Perfect" }],
    });
    ok(names(events(ws)).includes("StateChange.Playing"));

    await ws.close();
    await waitUntil(() => h.server.core.rooms.get("abc")!.monitors.length === 0, "spectator left the room");
    await waitUntil(() => h.proxy.live.size === 0, "viewer released");
  } finally {
    await h.close();
  }
});

Deno.test("proxy /ws/live refusals before the upgrade: no upgrade 426, token missing/invalid 401, full 503", async () => {
  const h = await startProxyHarness({ deps: { maxViewers: 1 } });
  try {
    const token = await sessionToken(h, 9);
    const plain = await h.json(`/ws/live?token=${token}`);
    deepEqual([plain.status, plain.body], [426, { error: "expected a WebSocket upgrade", code: 426 }]);
    const upgrade = {
      headers: {
        upgrade: "websocket",
        connection: "Upgrade",
        "sec-websocket-version": "13",
        "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
      },
    };
    const missing = await h.json("/ws/live", upgrade);
    deepEqual([missing.status, missing.body], [401, {
      error: "missing token (Authorization header or token query parameter)",
      code: 401,
    }]);
    const bad = await h.json("/ws/live?token=abc", upgrade);
    deepEqual([bad.status, bad.body], [401, { error: "invalid token", code: 401 }]);
    const first = await TestSocket.open(liveUrl(h, token));
    await first.waitFor(1);
    const full = await h.json(`/ws/live?token=${token}`, upgrade);
    deepEqual([full.status, full.body], [503, { error: "too many spectators", code: 503 }]);
    await first.close();
  } finally {
    await h.close();
  }
});

Deno.test("proxy /ws/live: the game server decides who may watch; a lost game server is said in the first frame", async () => {
  const h = await startProxyHarness();
  try {
    const alice = await h.login(100);
    await alice.createRoom("abc");
    // 300 is not in the game server's monitors list.
    const stranger = await TestSocket.open(liveUrl(h, await sessionToken(h, 300)));
    await stranger.waitFor(1);
    equal(names(events(stranger))[0], "Authenticate(Ok)");
    stranger.socket.send(encodeWsCommand({ type: "Join", room_id: "abc" }));
    await waitUntil(() => events(stranger).some((e) => e.type === "Join"), "join answer");
    deepEqual(names(events(stranger)).at(-1), "Join(Err:Permission denied. You can't monitor this room.)");
    await stranger.close();

    const token = await sessionToken(h, 9);
    await h.server.shutdown();
    const ws = await TestSocket.open(liveUrl(h, token));
    await ws.closed;
    deepEqual(names(events(ws)), ["Authenticate(Err:game server unavailable)"]);
    equal(ws.closeEvent?.code, 1013);
  } finally {
    await h.close({ allowViolations: true });
  }
});

Deno.test("proxy /ws/live refuses a message over 256 bytes as it arrives (close 1009); smaller ones are read", async () => {
  const h = await startProxyHarness();
  try {
    const token = await sessionToken(h, 9);
    const small = await TestSocket.open(liveUrl(h, token));
    await small.waitFor(1, "Authenticate");
    small.socket.send(new Uint8Array(200)); // within the limit: read, and refused as a malformed command
    await small.closed;
    equal(small.closeEvent?.code, 1007);
    // 1 MiB announced by a frame header; only 64 KiB of it sent: the proxy must answer without the rest.
    const big = await handshake(h.proxy.port, `/ws/live?token=${encodeURIComponent(token)}`);
    await big.write(frameHeader(1 << 20));
    await big.write(new Uint8Array(64 * 1024)).catch(() => 0);
    equal(await closeCode(big), 1009);
    await waitUntil(() => h.proxy.live.size === 0, "viewers released");
  } finally {
    await h.close();
  }
});
