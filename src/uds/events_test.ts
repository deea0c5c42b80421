import { deepEqual, equal } from "node:assert/strict";
import { EventBus } from "../events/mod.ts";
import { matches, patternProblem, toUdsEvent } from "./events.ts";

Deno.test("patterns: * and prefix.* wildcards, exact names; unknown names are refused", () => {
  deepEqual(
    [["*", "room.created"], ["room.*", "room.left"], ["room.*", "round.started"], ["user.online", "user.online"], [
      "user.online",
      "user.offline",
    ]].map(([p, t]) => matches(p!, t!)),
    [true, true, false, true, false],
  );
  deepEqual(["*", "room.*", "round.scored", "server.*"].map(patternProblem), [null, null, null, null]);
  equal(typeof patternProblem("room.exploded"), "string");
  equal(typeof patternProblem("ro*"), "string");
  equal(patternProblem(5), "event types must be strings");
});

Deno.test("toUdsEvent maps room.updated changes to the fields that changed; telemetry has no event", () => {
  const bus = new EventBus(() => 1);
  const updated = bus.publish({
    kind: "room.updated",
    room: "abc",
    uuid: "u",
    hidden: false,
    changes: { host: null, lock: null, cycle: true, chart: 7, state: null },
  });
  deepEqual(toUdsEvent(updated), {
    event_type: "room.updated",
    data: { room_id: "abc", changes: { cycle: true, chart_id: 7 }, uuid: "u" },
  });
  const touches = bus.publish({
    kind: "touches",
    room: "abc",
    uuid: "u",
    hidden: false,
    user: 1,
    round: null,
    frames: [],
  });
  equal(toUdsEvent(touches), null);
});
