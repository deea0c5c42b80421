/**
 * `deno task legacy` as users start it (the task's permission flags, never
 * `-A`): the legacy HTTP API on its port with the admin token from
 * `PM_ADMIN_TOKEN`, the built-in plugins and an operator's plugin from
 * `plugins_dir` answering their routes, a real game client logging in, and
 * a graceful stop on SIGTERM.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { join } from "node:path";
import { connect } from "../src/client/mod.ts";
import { devToken, serveDevApi } from "../src/upstream/mod.ts";
import { freePort, spawnServer } from "./support/child_server.ts";

const TOKEN = "process-test-admin-token-0123";

Deno.test("deno task legacy: HTTP API with PM_ADMIN_TOKEN, built-in and operator plugins, a client, SIGTERM", async () => {
  const dir = await Deno.makeTempDir({ prefix: "legacy_process_" });
  const upstream = serveDevApi();
  const plugins = join(dir, "plugins", "original-style");
  await Deno.mkdir(plugins, { recursive: true });
  for (const name of ["plugin.json", "init.lua"]) {
    await Deno.copyFile(new URL(`./fixtures/legacy/original-style/${name}`, import.meta.url), join(plugins, name));
  }
  const port = await freePort();
  const httpPort = await freePort();
  const server = spawnServer({
    command: "legacy",
    viaTask: true,
    port,
    dataDir: join(dir, "data"),
    upstream: upstream.url,
    env: { PM_ADMIN_TOKEN: TOKEN },
    flags: [
      "--no-cli",
      "--http-port",
      String(httpPort),
      "--http-bind-address",
      "127.0.0.1",
      "--plugins-dir",
      join(dir, "plugins"),
    ],
  });
  const base = `http://127.0.0.1:${httpPort}`;
  try {
    await server.ready;
    ok(server.lines.some((l) => l.includes("Loaded plugin original-style")), server.lines.join("\n"));
    ok(server.lines.some((l) => /Loaded 6 plugin\(s\)/.test(l)));
    const stats = await (await fetch(`${base}/stats`)).json();
    deepEqual([stats.users, stats.rooms], [0, 0]);
    equal((await (await fetch(`${base}/api/health`)).json()).status, "healthy");
    equal((await fetch(`${base}/original/status`)).status, 200);
    const refused = await fetch(`${base}/admin/rooms`);
    equal(refused.status, 401);
    await refused.body?.cancel();
    const admin = await fetch(`${base}/admin/rooms`, { headers: { "x-admin-token": TOKEN } });
    deepEqual(await admin.json(), { ok: true, rooms: [] });
    const client = await connect({ host: "127.0.0.1", port, pingIntervalMs: 0 });
    try {
      await client.authenticate(devToken(100));
      await client.createRoom("proc");
      deepEqual((await (await fetch(`${base}/room`)).json()).rooms.map((r: { id: string }) => r.id), ["proc"]);
    } finally {
      await client.close();
    }
    server.child.kill("SIGTERM");
    equal((await server.child.status).code, 0);
  } finally {
    try {
      server.child.kill("SIGKILL");
    } catch {
      // already gone
    }
    await server.done;
    await upstream.close();
    await Deno.remove(dir, { recursive: true });
  }
});
