import { deepEqual, equal } from "node:assert/strict";
import { FakeServer } from "../client/fake_server_test_util.ts";
import { encodeServerCommand, ok, type RoomData, type ServerCommand } from "../protocol/mod.ts";
import { ManualClock } from "../util/clock.ts";
import { LogHub } from "../util/log.ts";
import type { RoomSourceEvent } from "./room_source.ts";
import { MonitorRoomSource } from "./room_source_monitor.ts";

const log = new LogHub({ level: "error", sink: () => {} }).logger();
const MONITOR = { id: -1, name: "$server_room_monitor", monitor: false };

function data(host: number, users: number[]): RoomData {
  return { host, users, lock: false, cycle: false, chart: null, state: "SelectingChart", rounds: [] };
}

/** Several frames in one write, so the client reads them in one chunk. */
function frames(...cmds: ServerCommand[]): Uint8Array {
  const parts = cmds.map(encodeServerCommand);
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

async function until(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !cond(); i++) await new Promise((r) => setTimeout(r, 0));
  if (!cond()) throw new Error("condition not reached");
}

function summary(e: RoomSourceEvent): string {
  switch (e.type) {
    case "snapshot":
      return `snapshot(${[...e.rooms.keys()].join(",")})`;
    case "created":
    case "deleted":
    case "updated":
      return `${e.type}(${e.room})`;
    case "joined":
    case "left":
      return `${e.type}(${e.room},${e.user})`;
    default:
      return e.type;
  }
}

Deno.test("monitor source: events the snapshot reply already holds are dropped, later ones follow it, in order", async () => {
  let queries = 0;
  const server = FakeServer.listen({
    script: (cmd, conn) => {
      if (cmd.type === "RoomMonitorAuthenticate") {
        // An event in the same chunk as the login reply predates the query: the snapshot holds it.
        conn.sendRaw(frames(
          { type: "Authenticate", result: ok([MONITOR, null]) },
          { type: "RoomEvent", event: { type: "JoinRoom", room: "a", user: 7 } },
        ));
      } else if (cmd.type === "QueryRoomInfo") {
        queries++;
        if (queries > 1) {
          conn.send({ type: "RoomResponse", result: ok([new Map([["a", data(1, [1, 7])]]), new Map()]) });
          return;
        }
        const rooms = new Map([["a", data(1, [1, 7])], ["b", data(2, [2])]]);
        conn.sendRaw(frames(
          { type: "RoomEvent", event: { type: "CreateRoom", room: "b", data: data(2, [2]) } },
          { type: "RoomResponse", result: ok([rooms, new Map()]) },
          { type: "RoomEvent", event: { type: "CreateRoom", room: "c", data: data(3, [3]) } },
          { type: "UserVisit", user: 3 },
        ));
      }
    },
  });
  const clock = new ManualClock();
  const source = new MonitorRoomSource({ host: "127.0.0.1", port: server.port, key: new Uint8Array(64), clock, log });
  const seen: string[] = [];
  source.start((e) => seen.push(summary(e)));
  try {
    await until(() => seen.length >= 3);
    deepEqual(seen, ["snapshot(a,b)", "created(c)", "visited"]);
    equal(source.connected, true);
    // The last player leaving room c: no deletion event exists, so the source asks again.
    server.connections[0]!.send({ type: "RoomEvent", event: { type: "LeaveRoom", room: "c", user: 3 } });
    await until(() => seen.length >= 4);
    clock.advance(100);
    await until(() => seen.length >= 5);
    deepEqual(seen.slice(3), ["left(c,3)", "snapshot(a)"]);
    equal(queries, 2);
    // Pings keep the session alive.
    clock.advance(5000);
    await until(() => server.connections[0]!.commands.some((c) => c.type === "Ping"));
  } finally {
    await source.close();
    await server.close();
  }
});

Deno.test("monitor source: a dropped link is reported and retried with back-off; close stops it", async () => {
  const server = FakeServer.listen({
    script: (cmd, conn) => {
      if (cmd.type === "RoomMonitorAuthenticate") conn.send({ type: "Authenticate", result: ok([MONITOR, null]) });
      if (cmd.type === "QueryRoomInfo") conn.send({ type: "RoomResponse", result: ok([new Map(), new Map()]) });
    },
  });
  const clock = new ManualClock();
  const source = new MonitorRoomSource({ host: "127.0.0.1", port: server.port, key: new Uint8Array(64), clock, log });
  const seen: string[] = [];
  source.start((e) => seen.push(summary(e)));
  try {
    await until(() => source.connected);
    await server.connections[0]!.close();
    await until(() => seen.includes("disconnected"));
    equal(source.connected, false);
    await until(() => clock.pending > 0);
    clock.advance(1000);
    await until(() => source.connected);
    deepEqual(seen, ["snapshot()", "disconnected", "snapshot()"]);
  } finally {
    await source.close();
    await server.close();
  }
});
