/**
 * The account backend mounted in the game server (`accounts.enabled`),
 * through `startApp` as `deno task start` runs it: its own port, rooms from
 * the event bus (no room-monitor connection), a registration proof made by
 * a real game client, and a clean stop with the app.
 */
import { deepEqual, equal } from "node:assert/strict";
import { connect } from "../src/client/mod.ts";
import { devToken, serveDevApi } from "../src/upstream/mod.ts";
import { TextSseReader } from "./support/accounts.ts";
import { appConfig, startTestApp } from "./support/app.ts";
import { freePort } from "./support/child_server.ts";
import { dataDirs } from "./support/persistence_stack.ts";

Deno.test("accounts.enabled mounts the backend in the game server: bus-fed rooms and a registration proof", async () => {
  const dirs = dataDirs();
  const dev = serveDevApi({ port: 0 });
  const port = freePort();
  Deno.env.set("ACCOUNTS_ROOT_PASSWORD", "mounted-root-pw");
  const app = startTestApp(
    appConfig(await dirs.fresh(), dev.url, {
      accounts: {
        enabled: true,
        port,
        bind_address: "127.0.0.1",
        allowed_origins: [],
        cookie_secure: "auto",
        trust_proxy: false,
      },
    }),
  );
  const clients: { close(): Promise<void> }[] = [];
  try {
    await app.ready;
    const base = `http://127.0.0.1:${port}`;
    deepEqual(await (await fetch(`${base}/health/ready`)).json(), { status: "ready", source: "in-process" });
    const game = app.server.address!.port;
    const alice = await connect({ port: game, pingIntervalMs: 0 });
    clients.push(alice);
    await alice.authenticate(devToken(100));
    await alice.createRoom("lobby");
    deepEqual((await (await fetch(`${base}/api/rooms/info`)).json()).map((r: { name: string }) => r.name), ["lobby"]);

    const reg = await fetch(`${base}/api/auth/users`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ username: "bob", password: "password-123", game_id_or_username: "Bob" }),
    });
    const sse = new TextSseReader(reg.body!);
    const token = (await sse.event())!.data;
    const bob = await connect({ port: game, pingIntervalMs: 0 });
    clients.push(bob);
    await bob.authenticate(devToken(200));
    await bob.createRoom(token);
    const success = await sse.event();
    equal(success?.event, "success");
    equal(JSON.parse(success!.data).game_id, 200);

    const root = await fetch(`${base}/api/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ username: "root", password: "mounted-root-pw" }),
    });
    equal(root.status, 200);
    await root.body?.cancel();
  } finally {
    Deno.env.delete("ACCOUNTS_ROOT_PASSWORD");
    for (const c of clients) await c.close();
    await app.stop();
    await dev.close();
    await dirs.cleanup();
  }
  // Stopped with the app: the port is free again.
  const probe = Deno.listen({ hostname: "127.0.0.1", port });
  probe.close();
});
