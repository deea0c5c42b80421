/**
 * The process as `main.ts` wires it (src/app.ts): persistence opened before
 * the game port, persistent rooms and administrator ids surviving a restart.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { connect } from "../src/client/mod.ts";
import { Admin } from "../src/server/mod.ts";
import { devToken, serveDevApi } from "../src/upstream/mod.ts";
import { appConfig, startTestApp } from "./support/app.ts";
import { dataDirs } from "./support/persistence_stack.ts";

const dirs = dataDirs();

Deno.test("persistent rooms, administrator ids and players seen survive a restart of the wired app", async () => {
  const dev = serveDevApi({ port: 0 });
  const dataDir = await dirs.fresh();
  try {
    const config = appConfig(dataDir, dev.url);
    const first = startTestApp(config);
    await first.ready;
    const admin = new Admin(first.server.core);
    deepEqual(admin.roomOps.createEmpty("lobby", { persistent: true }), { ok: true, value: null });
    deepEqual(admin.roomOps.setFlags("lobby", { locked: true, maxPlayers: 4 }), { ok: true, value: null });
    deepEqual(admin.roomOps.createEmpty("temporary"), { ok: true, value: null });
    first.server.core.adminIds.add(42);
    const client = await connect({ port: first.server.address!.port, pingIntervalMs: 0 });
    await client.authenticate(devToken(100));
    await client.close();
    await first.stop();

    const second = startTestApp(config);
    await second.ready;
    const lobby = second.server.core.rooms.get("lobby");
    ok(lobby, "the persistent room is back");
    equal(lobby.locked, true);
    equal(lobby.maxPlayers, 4);
    equal(lobby.persistent, true);
    equal(second.server.core.rooms.has("temporary"), false);
    deepEqual([...second.server.core.adminIds], [42]);
    ok(second.server.core.seenPlayers.has(100));
    await second.stop();
  } finally {
    await dev.close();
    await dirs.cleanup();
  }
});
