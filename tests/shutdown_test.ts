/**
 * Process lifecycle (issue 3 "Lifecycle"): `main.ts start` with stdin at end
 * of file (as under a service manager) keeps serving until SIGTERM; then
 * connected players get the localized shutdown notice, the reply of a
 * command still waiting on the upstream, and the connection close; a lookup
 * that never answers is abandoned at the deadline, and the process exits 0
 * within `graceful_shutdown_timeout`. One process for all of it: the
 * embedded database takes seconds to create.
 */
import { equal, ok } from "node:assert/strict";
import { connect } from "../src/client/mod.ts";
import { createDevApi, devToken } from "../src/upstream/mod.ts";
import { freePort, spawnServer } from "./support/child_server.ts";
import { welcomeDone } from "./support/welcome.ts";

const TIMEOUT_SECS = 4;

/** The development upstream over HTTP; `/chart/1` is held until `release()`, `/chart/2` until `close()`. */
function gatedUpstream() {
  const dev = createDevApi();
  const gate = Promise.withResolvers<void>();
  const never = Promise.withResolvers<void>();
  const asked = [Promise.withResolvers<void>(), Promise.withResolvers<void>()] as const;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const path = new URL(req.url).pathname;
    if (path === "/chart/1") {
      asked[0].resolve();
      await gate.promise;
    } else if (path === "/chart/2") {
      asked[1].resolve();
      await never.promise;
    }
    return await dev.fetch(req);
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    asked: Promise.all(asked.map((a) => a.promise)),
    release: () => gate.resolve(),
    close: async () => {
      gate.resolve();
      never.resolve();
      await server.shutdown();
    },
  };
}

Deno.test("SIGTERM: notice, pending upstream reply, close, exit 0 within graceful_shutdown_timeout; stdin EOF alone does not stop", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "chorus-shutdown-" });
  const upstream = gatedUpstream();
  const port = freePort();
  const server = spawnServer({
    port,
    dataDir,
    upstream: upstream.url,
    flags: [
      "--graceful-shutdown-timeout",
      String(TIMEOUT_SECS),
      "--openuds.enabled=false",
      // Bob's chart lookup would wait far longer than the shutdown budget.
      "--auth-budget-ms",
      "30000",
    ],
  });
  const { child } = server;
  const out = server;
  try {
    await out.waitFor(/game server listening/);
    // The console saw end of input; the server must keep running.
    await out.waitFor(/console input ended; the server keeps running/);
    const alice = await connect({ host: "127.0.0.1", port, pingIntervalMs: 0 });
    await alice.authenticate(devToken(100));
    await alice.createRoom("lifecycle");
    const bob = await connect({ host: "127.0.0.1", port, pingIntervalMs: 0 });
    await bob.authenticate(devToken(200, "zh-CN"));
    await bob.createRoom("stuck");
    // The welcome is system chat too, and may still be arriving: wait it out, or it could pass for the notice.
    await Promise.all([welcomeDone(alice), welcomeDone(bob, "zh-CN")]);
    const isNotice = (m: { user: number }) => m.user === 0;
    const notice = alice.waitForMessage("Chat", isNotice, 10_000);
    const bobNotice = bob.waitForMessage("Chat", isNotice, 10_000);
    // Commands waiting on the upstream when the signal comes: Alice's lookup
    // answers during the shutdown, Bob's never does.
    const selecting = alice.selectChart(1).then(() => "ok", (e) => `failed: ${e}`);
    const stuck = bob.selectChart(2).then(() => "ok", () => "no reply");
    await upstream.asked;

    const signalledAt = performance.now();
    child.kill("SIGTERM");
    const message = await notice;
    equal(message.content, "The server is shutting down. See you soon!");
    // Only now does the upstream answer: the reply must still be delivered before the close.
    upstream.release();
    equal(await selecting, "ok");
    equal((await bobNotice).content, "服务器正在关闭，稍后见！");
    await alice.closed;
    // Bob's handler is abandoned at the deadline: no reply, but the close comes.
    await bob.closed;
    equal(await stuck, "no reply");
    const status = await child.status;
    const elapsedMs = performance.now() - signalledAt;
    equal(status.code, 0, out.lines.join("\n"));
    // Within the budget (plus a little for the process to end), not at the old timeout + 5 s.
    ok(elapsedMs < TIMEOUT_SECS * 1000 + 500, `exited ${Math.round(elapsedMs)} ms after SIGTERM`);
    ok(out.lines.some((l) => l.includes("shutting down") && l.includes("SIGTERM")), "the reason is logged");
    await Promise.all([alice.close(), bob.close()]);
  } finally {
    try {
      child.kill("SIGKILL");
    } catch {
      // Already exited.
    }
    await child.status;
    await out.done.catch(() => {});
    await upstream.close();
    await Deno.remove(dataDir, { recursive: true });
  }
});
