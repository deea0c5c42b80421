import { deepEqual, equal } from "node:assert/strict";
import type { RoomData, RoundData } from "../protocol/mod.ts";
import { RoomCache } from "./room_cache.ts";

const room = (over: Partial<RoomData> = {}): RoomData => ({
  host: 100,
  users: [100],
  lock: false,
  cycle: false,
  chart: null,
  state: "SelectingChart",
  rounds: [],
  ...over,
});

const round: RoundData = {
  chart: 1,
  records: [{
    id: 9,
    player: 100,
    score: 1_000_000,
    perfect: 10,
    good: 0,
    bad: 0,
    miss: 0,
    max_combo: 10,
    accuracy: 1,
    full_combo: true,
    std: 0,
    std_score: 0,
  }],
};

Deno.test("RoomCache applies pushed events and relays each as its room-stream event", () => {
  const c = new RoomCache();
  deepEqual(c.apply({ type: "CreateRoom", room: "abc", data: room() }), [{
    name: "create_room",
    data: {
      room: "abc",
      data: { host: 100, users: [100], lock: false, cycle: false, chart: null, state: "SELECTING_CHART", rounds: [] },
    },
  }]);
  deepEqual(c.apply({ type: "JoinRoom", room: "abc", user: 200 }), [{
    name: "join_room",
    data: { room: "abc", user: 200 },
  }]);
  deepEqual(
    c.apply({
      type: "UpdateRoom",
      room: "abc",
      data: { host: null, lock: true, cycle: null, chart: 7, state: "WaitingForReady" },
    }),
    [{ name: "update_room", data: { room: "abc", data: { lock: true, chart: 7, state: "WAITING_FOR_READY" } } }],
  );
  deepEqual(c.apply({ type: "NewRound", room: "abc", round })[0]?.name, "new_round");
  deepEqual(c.get("abc")?.data, {
    host: 100,
    users: [100, 200],
    lock: true,
    cycle: false,
    chart: 7,
    state: "WAITING_FOR_READY",
    rounds: [{ chart: 1, records: [round.records[0]] }],
  });
  equal(c.ofUser(200)?.name, "abc");
  equal(c.ofUser(300), null);
  deepEqual(c.list().total, 1);
  // The last player leaving ends the room (monitors do not keep it alive).
  c.apply({ type: "LeaveRoom", room: "abc", user: 200 });
  equal(c.ofUser(200), null);
  deepEqual(c.apply({ type: "LeaveRoom", room: "abc", user: 100 }), [{
    name: "leave_room",
    data: { room: "abc", user: 100 },
  }]);
  equal(c.get("abc"), null);
  deepEqual(c.list(), { total: 0, rooms: [] });
});

Deno.test("RoomCache relays events about rooms it does not know without inventing them", () => {
  const c = new RoomCache();
  equal(c.apply({ type: "JoinRoom", room: "x", user: 1 }).length, 1);
  equal(
    c.apply({ type: "UpdateRoom", room: "x", data: { host: 1, lock: null, cycle: null, chart: null, state: null } })
      .length,
    1,
  );
  equal(c.size, 0);
  equal(c.ofUser(1), null);
});

Deno.test("RoomCache: a user joining another room moves", () => {
  const c = new RoomCache();
  c.apply({ type: "CreateRoom", room: "a", data: room({ users: [100, 200] }) });
  c.apply({ type: "CreateRoom", room: "b", data: room({ host: 300, users: [300] }) });
  c.apply({ type: "JoinRoom", room: "b", user: 200 });
  deepEqual(c.get("a")?.data.users, [100]);
  deepEqual(c.get("b")?.data.users, [300, 200]);
  equal(c.ofUser(200)?.name, "b");
});

Deno.test("RoomCache.replace reconciles with a query answer and yields only the difference", () => {
  const c = new RoomCache();
  c.replace(new Map([["a", room({ users: [100, 200] })], ["gone", room({ host: 5, users: [5, 6] })]]));
  equal(c.size, 2);
  const diff = c.replace(
    new Map([
      ["a", room({ users: [100, 300], lock: true, state: "Playing", rounds: [round] })],
      ["new", room({ host: 7, users: [7] })],
    ]),
  );
  deepEqual(diff.map((e) => [e.name, e.data]), [
    ["leave_room", { room: "gone", user: 5 }],
    ["leave_room", { room: "gone", user: 6 }],
    ["update_room", { room: "a", data: { lock: true, state: "PLAYING" } }],
    ["leave_room", { room: "a", user: 200 }],
    ["join_room", { room: "a", user: 300 }],
    ["new_round", { room: "a", round: { chart: 1, records: round.records } }],
    [
      "create_room",
      {
        room: "new",
        data: { host: 7, users: [7], lock: false, cycle: false, chart: null, state: "SELECTING_CHART", rounds: [] },
      },
    ],
  ]);
  deepEqual(
    c.replace(
      new Map([["a", room({ users: [100, 300], lock: true, state: "Playing", rounds: [round] })], [
        "new",
        room({ host: 7, users: [7] }),
      ]]),
    ),
    [],
  );
  equal(c.ofUser(200), null);
  equal(c.ofUser(300)?.name, "a");
  deepEqual(c.snapshot().map((e) => [e.name, (e.data as { room: string }).room]), [["create_room", "a"], [
    "create_room",
    "new",
  ]]);
});
