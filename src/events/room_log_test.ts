import { deepEqual } from "node:assert/strict";
import { LogHub, type LogRecord } from "../util/log.ts";
import { EventBus } from "./bus.ts";
import { logRoomEvents } from "./room_log.ts";

const ROOM = { uuid: "u", hidden: false };
const DATA = {
  host: 100,
  users: [100],
  lock: false,
  cycle: false,
  chart: null,
  state: "SelectingChart" as const,
  rounds: [],
};

async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setTimeout(resolve, 0));
}

Deno.test("room log lines: created, joined, updated, left, deleted with names; hidden rooms and monitors left out", async () => {
  const records: LogRecord[] = [];
  const hub = new LogHub({ level: "debug", sink: (_l, r) => records.push(r), now: () => 0 });
  const bus = new EventBus(() => 0);
  const stop = logRoomEvents(bus, hub.logger());
  bus.publish({ kind: "user.online", user: 100, name: "Alice", language: "en", ip: null });
  bus.publish({ kind: "room.created", room: "abc", ...ROOM, by: 100, data: DATA });
  bus.publish({ kind: "room.joined", room: "abc", ...ROOM, user: 200, name: "Bob", monitor: false });
  bus.publish({ kind: "room.joined", room: "abc", ...ROOM, user: 9, name: "Mon", monitor: true });
  bus.publish({
    kind: "room.updated",
    room: "abc",
    ...ROOM,
    changes: { state: "Playing", chart: 7, host: null, lock: null, cycle: null },
  });
  bus.publish({ kind: "room.created", room: "secret", uuid: "s", hidden: true, by: 100, data: DATA });
  bus.publish({ kind: "room.left", room: "abc", ...ROOM, user: 200, name: "Bob", monitor: false, reason: "leave" });
  bus.publish({ kind: "room.created", room: "bench-x-0", ...ROOM, by: -100000000, data: DATA });
  bus.publish({ kind: "room.deleted", room: "abc", ...ROOM });
  await settle();
  stop();
  deepEqual(records.map((r) => [r.level, r.line.slice(r.line.indexOf(" ") + 1)]), [
    ["info", "INFO  room created room=abc user=100 name=Alice host=100 state=SelectingChart cycle=false lock=false"],
    ["info", "INFO  user joined room room=abc user=200 name=Bob"],
    ["info", "INFO  room updated room=abc state=Playing chart=7"],
    ["info", "INFO  user left room room=abc user=200 name=Bob reason=leave"],
    ["debug", "DEBUG room created room=bench-x-0 user=-100000000 host=100 state=SelectingChart cycle=false lock=false"],
    ["info", "INFO  room deleted room=abc"],
  ]);
});
