import { deepEqual, equal, notEqual } from "node:assert/strict";
import { type DomainEvent, EventBus } from "../events/mod.ts";
import type { RecordData } from "../protocol/mod.ts";
import { canonicalEventName, hubEvent, HubRenderer, kindsFor, ROOM_EVENTS } from "./hub.ts";
import { partialRoomJson } from "./json.ts";

const scope = { room: "abc", uuid: "u-1", hidden: false } as const;
const record: RecordData = {
  id: 7,
  player: 100,
  score: 1000000,
  perfect: 10,
  good: 0,
  bad: 0,
  miss: 0,
  max_combo: 10,
  accuracy: 1,
  full_combo: true,
  std: 0,
  std_score: 0,
};

function publish(input: Parameters<EventBus["publish"]>[0]): DomainEvent {
  return new EventBus(() => 0).publish(input);
}

Deno.test("hubEvent maps every room and round event to its spec 1 §6 name and payload", async (t) => {
  const data = {
    host: 100,
    users: [100],
    lock: false,
    cycle: false,
    chart: null,
    state: "WaitingForReady" as const,
    rounds: [{ chart: 3, records: [record] }],
  };
  const cases: [string, Parameters<EventBus["publish"]>[0], unknown][] = [
    ["create_room", { kind: "room.created", by: 100, data, ...scope }, {
      type: "create_room",
      data: { room: "abc", data: { ...data, state: "WAITING_FOR_READY" } },
    }],
    ["update_room", {
      kind: "room.updated",
      changes: { host: null, lock: true, cycle: null, chart: 5, state: "Playing" },
      ...scope,
    }, { type: "update_room", data: { room: "abc", data: { lock: true, chart: 5, state: "PLAYING" } } }],
    ["join_room", { kind: "room.joined", user: 200, name: "Bob", monitor: false, ...scope }, {
      type: "join_room",
      data: { room: "abc", user: 200 },
    }],
    ["leave_room", { kind: "room.left", user: 200, name: "Bob", monitor: false, reason: "kick", ...scope }, {
      type: "leave_room",
      data: { room: "abc", user: 200 },
    }],
    ["delete_room", { kind: "room.deleted", ...scope }, { type: "delete_room", data: { room: "abc" } }],
    ["new_round", {
      kind: "round.completed",
      round: "r",
      chart: 3,
      chartName: "C",
      data: { chart: 3, records: [record] },
      aborted: [],
      startedAt: 0,
      ...scope,
    }, { type: "new_round", data: { room: "abc", round: { chart: 3, records: [record] } } }],
    ["player_score", { kind: "round.scored", round: "r", chart: 3, user: 100, record, ...scope }, {
      type: "player_score",
      data: { room: "abc", record },
    }],
    ["start_round", { kind: "round.started", round: "r", chart: 3, chartName: "C", players: [100], ...scope }, {
      type: "start_round",
      data: { room: "abc" },
    }],
    ["nothing for chat", { kind: "chat.message", user: 1, content: "hi", ...scope }, null],
    ["nothing for users", { kind: "user.online", user: 1, name: "A", language: "en", ip: null }, null],
  ];
  for (const [name, input, expected] of cases) {
    await t.step(name, () => deepEqual(hubEvent(publish(input)), expected));
  }
});

Deno.test("hubEvent drops hidden rooms and monitors' joins and leaves", () => {
  equal(hubEvent(publish({ kind: "room.deleted", room: "-x", uuid: "u", hidden: true })), null);
  equal(hubEvent(publish({ kind: "room.joined", user: 9, name: "M", monitor: true, ...scope })), null);
  equal(
    hubEvent(publish({ kind: "room.left", user: 9, name: "M", monitor: true, reason: "leave", ...scope })),
    null,
  );
});

Deno.test("HubRenderer serializes each event once", () => {
  const renderer = new HubRenderer();
  const event = publish({ kind: "room.deleted", ...scope });
  const a = renderer.render(event);
  equal(renderer.render(event), a);
  equal(a?.json, '{"room":"abc"}');
  notEqual(renderer.render(publish({ kind: "room.deleted", ...scope })), a);
});

Deno.test("partialRoomJson omits unchanged fields; kindsFor and canonicalEventName", () => {
  deepEqual(partialRoomJson({ host: -1, lock: null, cycle: false, chart: null, state: "SelectingChart" }), {
    host: -1,
    cycle: false,
    state: "SELECTING_CHART",
  });
  deepEqual(kindsFor(ROOM_EVENTS).sort(), [
    "room.created",
    "room.deleted",
    "room.joined",
    "room.left",
    "room.updated",
    "round.completed",
  ]);
  equal(canonicalEventName("Create-Room"), canonicalEventName("create_room"));
});
