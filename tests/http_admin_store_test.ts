/**
 * The admin panel's store health in the wired app (`startApp`, as
 * `deno task start` builds it): the state answer reports the real durable
 * store (SQLite in the data directory), and a store that goes away shows as
 * unreachable with the readiness issue `/health/ready` reports. The answer
 * carries no secret: not the admin password, not a player's address.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { STORE_DOWN_ISSUE } from "../src/app_health.ts";
import type { PersistenceStatus } from "../src/persistence/status.ts";
import { connect } from "../src/client/mod.ts";
import { devToken, serveDevApi } from "../src/upstream/mod.ts";
import { appConfig, startTestApp } from "./support/app.ts";
import { freePort } from "./support/child_server.ts";

const PASSWORD = "a long operator password";

Deno.test("admin panel state in the wired app: the durable store's health, and an unreachable store", async () => {
  const dev = serveDevApi({ port: 0 });
  const dataDir = await Deno.makeTempDir({ prefix: "chorus-admin-store-" });
  const port = freePort();
  const app = startTestApp(
    appConfig(dataDir, dev.url, { http_port: port, admin_password: PASSWORD, server_name: "Store Check" }),
  );
  const client = { close: () => Promise.resolve() };
  try {
    await app.ready;
    const base = `http://127.0.0.1:${port}`;
    const login = await fetch(`${base}/admin/api/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ password: PASSWORD }),
    });
    equal(login.status, 200);
    await login.body?.cancel();
    const cookie = login.headers.get("set-cookie")!.split(";")[0]!;
    const state = async () => {
      const res = await fetch(`${base}/admin/api/state`, { headers: { cookie } });
      const text = await res.text();
      ok(!text.includes(PASSWORD), "the password is not in the answer");
      ok(!text.includes("127.0.0.1"), "no player address in the answer");
      return JSON.parse(text) as {
        server_name: string;
        players: { id: number; room: string | null }[];
        status: { ready: boolean; issues: string[]; store: Record<string, unknown> };
      };
    };

    const game = await connect({ host: "127.0.0.1", port: app.server.address!.port, pingIntervalMs: 0 });
    client.close = () => game.close();
    await game.authenticate(devToken(100));
    const up = await state();
    equal(up.server_name, "Store Check");
    deepEqual(up.players.map((p) => [p.id, p.room]), [[100, null]]);
    deepEqual([up.status.ready, up.status.issues], [true, []]);
    const store = up.status.store;
    deepEqual(
      { ...store, pending: typeof store.pending },
      {
        enabled: true,
        backend: "sqlite",
        up: true,
        mode: "memory",
        pending: "number",
        dead_letters: 0,
        last_error: null,
      },
    );

    // The store going away (what the apply worker reports): unreachable, with the error, and not ready.
    const real = app.persistence.status.bind(app.persistence);
    app.persistence.status = (): PersistenceStatus => ({
      ...real(),
      store_up: false,
      mode: "journal",
      last_error: "connect ECONNREFUSED postgres://chorus:hunter22@db:5432/chorus",
    });
    const down = await state();
    deepEqual([down.status.ready, down.status.issues], [false, [STORE_DOWN_ISSUE]]);
    deepEqual([down.status.store.up, down.status.store.mode, down.status.store.last_error], [
      false,
      "journal",
      "connect ECONNREFUSED postgres://chorus:***@db:5432/chorus",
    ]);
    app.persistence.status = real;
  } finally {
    await client.close();
    await app.stop();
    await dev.close();
    await Deno.remove(dataDir, { recursive: true }).catch(() => {});
  }
});
