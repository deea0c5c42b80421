import { deepEqual } from "node:assert/strict";
import { MONITOR_BASE, monitorIdsFor, PLAYER_BASE, splitRooms } from "./generator.ts";

Deno.test("splitRooms gives each process a contiguous share with disjoint player and monitor ids", () => {
  deepEqual(splitRooms(10, 8, 1), [{ rooms: 10, idBase: PLAYER_BASE, monitorBase: MONITOR_BASE }]);
  deepEqual(splitRooms(1000, 8, 3), [
    { rooms: 334, idBase: 100000, monitorBase: 900000 },
    { rooms: 333, idBase: 100000 + 334 * 8, monitorBase: 900334 },
    { rooms: 333, idBase: 100000 + 667 * 8, monitorBase: 900667 },
  ]);
  deepEqual(monitorIdsFor(3), [900000, 900001, 900002]);
});
