/**
 * OpenUDS transport over a real Unix socket in a temporary directory (spec 3
 * §4.5, §8): the socket file (stale file replaced, mode 0660, other files and
 * live sockets refused), frame limits, `max_connections`, and a server that
 * runs the same with no client.
 */
import { deepEqual, equal, match, ok, rejects } from "node:assert/strict";
import { defaultConfig } from "../src/config/mod.ts";
import { closeOps, createOps } from "../src/ops/mod.ts";
import { MAX_FRAME_BYTES, startOpenUds } from "../src/uds/mod.ts";
import { waitUntil } from "./support/describe.ts";
import { startHarness } from "./support/harness.ts";
import { startUdsHarness, TOKEN } from "./support/uds.ts";

Deno.test("openuds replaces a stale socket file, sets mode 0660 and removes the file on close", async () => {
  const dir = await Deno.makeTempDir({ prefix: "chorus-uds-" });
  const path = `${dir}/sub/dir/api.sock`;
  await Deno.mkdir(`${dir}/sub/dir`, { recursive: true });
  // A stale socket: its file moved away from a listener that then stopped (Deno removes its own path on close).
  const listener = Deno.listen({ transport: "unix", path: `${dir}/tmp.sock` });
  await Deno.rename(`${dir}/tmp.sock`, path);
  listener.close();
  ok((await Deno.lstat(path)).isSocket);
  const h = await startHarness();
  const ops = createOps({ server: h.server, shutdown: () => {} });
  const config = { ...defaultConfig().openuds, enabled: true, socket_path: path, auth_token: TOKEN };
  const uds = await startOpenUds({ ops, config });
  equal((await Deno.stat(path)).mode! & 0o777, 0o660);
  // A second server on the same path refuses: the socket is live.
  await rejects(startOpenUds({ ops, config }), /another process is listening/);
  await uds.close();
  await rejects(Deno.lstat(path), Deno.errors.NotFound);
  // A path that is not a socket is never deleted.
  await Deno.writeTextFile(path, "precious");
  await rejects(startOpenUds({ ops, config }), /exists and is not a socket/);
  equal(await Deno.readTextFile(path), "precious");
  closeOps(ops);
  await h.close();
  await Deno.remove(dir, { recursive: true });
});

Deno.test("openuds frames: bad JSON is answered and the connection goes on; bad lengths close it", async () => {
  const u = await startUdsHarness();
  const a = await u.client();
  const junk = new TextEncoder().encode("{nope");
  const frame = new Uint8Array(4 + junk.length);
  new DataView(frame.buffer).setUint32(0, junk.length, true);
  frame.set(junk, 4);
  await a.raw(frame);
  const err = await a.next((f) => f.type === "response");
  deepEqual(err, {
    type: "response",
    id: null,
    ok: false,
    error: { code: "INVALID_FRAME", message: "Cannot read frame: payload is not UTF-8 JSON" },
  });
  await a.send([1, 2]);
  equal(((await a.next((f) => f.type === "response")).error as { code: string }).code, "INVALID_FRAME");
  await a.send({ type: "bogus", id: 9 });
  deepEqual((await a.next((f) => f.type === "response")).error, {
    code: "INVALID_FRAME",
    message: 'unknown frame type "bogus"',
  });
  deepEqual(await a.ok("server.roomcreation", { enabled: true }), { room_creation_enabled: true });

  const zero = await u.client();
  await zero.raw(new Uint8Array(4));
  await zero.closed;
  const huge = await u.client();
  const prefix = new Uint8Array(4);
  new DataView(prefix.buffer).setUint32(0, MAX_FRAME_BYTES + 1, true);
  await huge.raw(prefix);
  await huge.closed;
  equal(u.uds.connections, 1, "only the well-behaved client is left");
  await u.close();
});

Deno.test("openuds accepts a frame of exactly 16 MiB and refuses one byte more", async () => {
  const u = await startUdsHarness();
  const a = await u.client();
  const overhead = JSON.stringify({ type: "ping", id: 1, pad: "" }).length;
  await a.send({ type: "ping", id: 1, pad: "x".repeat(MAX_FRAME_BYTES - overhead) });
  deepEqual(await a.next((f) => f.type === "pong"), { type: "pong", id: 1 });
  await a.raw(new Uint8Array([1, 0, 0, 1]));
  await a.closed;
  await u.close();
});

Deno.test("openuds max_connections: the next client to authenticate gets an error frame and is closed", async () => {
  const u = await startUdsHarness({ openuds: { max_connections: 4 } });
  const clients = await Promise.all([u.client(), u.client(), u.client(), u.client()]);
  const extra = await u.connect();
  await extra.send({ type: "authenticate", token: TOKEN });
  await extra.closed;
  deepEqual(extra.frames, [{
    type: "auth_error",
    code: "TOO_MANY_CONNECTIONS",
    message: "max connections reached (4)",
  }]);
  ok(u.c.h.logs.history().some((r) => r.msg === "OpenUDS connection refused: too many connections"));
  await clients[3]!.close();
  await clients[2]!.close();
  await waitUntil(() => u.uds.connections === 2, "closed connections noticed");
  // A slot is free again.
  const again = await u.client();
  equal(((await again.ok("server.stats")) as { openuds_connections: number }).openuds_connections, 3);
  await u.close();
});

Deno.test("openuds: the game server works with no client, and clients coming and going change nothing", async () => {
  const u = await startUdsHarness();
  const alice = await u.c.h.login(100);
  await alice.createRoom("abc");
  const a = await u.client();
  await a.close();
  await alice.lockRoom(true);
  equal(u.c.h.server.core.rooms.get("abc")!.locked, true);
  match(JSON.stringify(u.c.h.logs.history().map((r) => r.msg)), /OpenUDS listening/);
  await u.close();
});
