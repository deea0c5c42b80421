/**
 * The proxy's room-monitor link against a scripted server that speaks the
 * monitor protocol (protocol.md §3.5) and nothing of this project: the key
 * on the wire is the one of extended.md §5.2, the server's rooms, pushed
 * events and visits reach REST, the room stream and `/visited`; a query
 * that shows changes nobody pushed is reconciled; a server that stops
 * answering is dropped.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { FakeServer } from "../src/client/fake_server_test_util.ts";
import { ok as okResult, type RoomData } from "../src/protocol/mod.ts";
import { type ProxyService, startProxy } from "../src/proxy/mod.ts";
import { ManualClock } from "../src/util/clock.ts";
import { memoryLogHub } from "../src/util/log.ts";
import { SeededRandom } from "../src/util/random.ts";
import { waitUntil } from "./support/describe.ts";
import { settle } from "./support/harness.ts";
import { SseReader } from "./support/http.ts";
import { testProxyOptions } from "./support/proxy.ts";

// extended.md §5.2: room_monitor/64 of `dev_secret_local`.
const KEY_HEX =
  "97904217b668624f70bcf35e15b3a2d105ae32eb50cedf722a71592583dd9cc78795ba0c0b720e71a9d02ba0b878c6067ab5c15d8cf7e90dbd7fe0756f3066d7";
const MONITOR = { id: -1, name: "$server_room_monitor", monitor: false };

const room = (host: number, users: number[], over: Partial<RoomData> = {}): RoomData => ({
  host,
  users,
  lock: false,
  cycle: false,
  chart: null,
  state: "SelectingChart",
  rounds: [],
  ...over,
});

interface Rig {
  server: FakeServer;
  proxy: ProxyService;
  clock: ManualClock;
  /** What the next QueryRoomInfo answers. */
  rooms: Map<string, RoomData>;
  close(): Promise<void>;
}

async function rig(): Promise<Rig> {
  const clock = new ManualClock();
  const state = { rooms: new Map<string, RoomData>([["lobby", room(5, [5, 6])]]) };
  const server = FakeServer.listen({
    script: (cmd, conn) => {
      if (cmd.type === "RoomMonitorAuthenticate") {
        conn.send({ type: "Authenticate", result: okResult([MONITOR, null]) });
      }
      if (cmd.type === "QueryRoomInfo") {
        const users = new Map([...state.rooms].flatMap(([id, r]) => r.users.map((u) => [u, id] as [number, string])));
        conn.send({ type: "RoomResponse", result: okResult([new Map(state.rooms), users]) });
      }
    },
  });
  const dataDir = await Deno.makeTempDir({ prefix: "chorus-proxy-link-" });
  const proxy = await startProxy(testProxyOptions(server.port, dataDir, { secret: "dev_secret_local", debug: true }), {
    clock,
    random: new SeededRandom(2),
    logs: memoryLogHub(),
  });
  await waitUntil(() => proxy.link.status.status === "up", "link up");
  return {
    server,
    proxy,
    clock,
    get rooms() {
      return state.rooms;
    },
    set rooms(value) {
      state.rooms = value;
    },
    async close() {
      await proxy.close();
      await server.close();
      await Deno.remove(dataDir, { recursive: true });
    },
  };
}

async function json(proxy: ProxyService, path: string): Promise<unknown> {
  return await (await proxy.request(path)).json();
}

Deno.test("proxy link: version byte, then RoomMonitorAuthenticate with the extended.md §5.2 key, then a query", async () => {
  const r = await rig();
  try {
    const conn = await r.server.accept();
    equal(conn.version, 1);
    const [auth, query] = conn.commands;
    equal(auth?.type, "RoomMonitorAuthenticate");
    if (auth?.type !== "RoomMonitorAuthenticate") return;
    equal(Array.from(auth.key, (b) => b.toString(16).padStart(2, "0")).join(""), KEY_HEX);
    deepEqual(query, { type: "QueryRoomInfo" });
    deepEqual(await json(r.proxy, "/rooms/info"), {
      total: 1,
      rooms: [{
        name: "lobby",
        data: { host: 5, users: [5, 6], lock: false, cycle: false, chart: null, state: "SELECTING_CHART", rounds: [] },
      }],
    });
  } finally {
    await r.close();
  }
});

Deno.test("proxy link: pushed RoomEvents and UserVisits of any monitor-protocol server reach REST, SSE and /visited", async () => {
  const r = await rig();
  try {
    const conn = await r.server.accept();
    const listen = await r.proxy.request("/rooms/listen");
    const sse = new SseReader(listen.body!);
    await sse.next(); // retry
    equal((await sse.next() as { event: string }).event, "create_room");
    conn.send({ type: "RoomEvent", event: { type: "JoinRoom", room: "lobby", user: 7 } });
    conn.send({
      type: "RoomEvent",
      event: { type: "UpdateRoom", room: "lobby", data: { host: 7, lock: null, cycle: null, chart: 3, state: null } },
    });
    conn.send({ type: "UserVisit", user: 7 });
    conn.send({ type: "UserVisit", user: -7 });
    deepEqual(await sse.next(), { event: "join_room", data: { room: "lobby", user: 7 } });
    deepEqual(await sse.next(), { event: "update_room", data: { room: "lobby", data: { host: 7, chart: 3 } } });
    deepEqual(await json(r.proxy, "/rooms/user/7"), {
      name: "lobby",
      data: { host: 7, users: [5, 6, 7], lock: false, cycle: false, chart: 3, state: "SELECTING_CHART", rounds: [] },
    });
    await waitUntil(() => r.proxy.link.counts.visits === 2, "visits received");
    deepEqual(await json(r.proxy, "/visited"), { count: 1, users: [{ game_id: 7 }] });
    await sse.cancel();
  } finally {
    await r.close();
  }
});

Deno.test("proxy link: a query showing changes nobody pushed is reconciled into room-stream events", async () => {
  const r = await rig();
  try {
    await r.server.accept();
    const sse = new SseReader((await r.proxy.request("/rooms/listen")).body!);
    await sse.next();
    await sse.next();
    r.rooms = new Map([["lobby", room(6, [6], { state: "Playing" })], ["new", room(9, [9])]]);
    r.clock.advance(1000);
    deepEqual(await json(r.proxy, "/rooms/info/new"), {
      name: "new",
      data: { host: 9, users: [9], lock: false, cycle: false, chart: null, state: "SELECTING_CHART", rounds: [] },
    });
    deepEqual(await sse.take(3), [
      { event: "update_room", data: { room: "lobby", data: { host: 6, state: "PLAYING" } } },
      { event: "leave_room", data: { room: "lobby", user: 5 } },
      {
        event: "create_room",
        data: {
          room: "new",
          data: { host: 9, users: [9], lock: false, cycle: false, chart: null, state: "SELECTING_CHART", rounds: [] },
        },
      },
    ]);
    await sse.cancel();
  } finally {
    await r.close();
  }
});

Deno.test("proxy link: a server that stops answering is dropped after the silence limit, then redialled", async () => {
  const r = await rig();
  try {
    const conn = await r.server.accept();
    // From now on nothing is answered (no Pong either): the socket stays open but silent.
    const silent = conn as unknown as { send: unknown };
    silent.send = () => {};
    for (let t = 0; t < 12_000; t += 1000) {
      r.clock.advance(1000);
      await settle();
    }
    await waitUntil(() => r.proxy.link.status.status === "down", "link dropped");
    const res = await r.proxy.request("/rooms/info");
    const body = await res.json();
    equal(res.status, 503);
    ok(/^game server unavailable: the game server stopped answering \(nothing received for \d+ ms\)$/.test(body.error));
    r.clock.advance(1000);
    await waitUntil(() => r.server.connections.length === 2, "redialled");
  } finally {
    await r.close();
  }
});
