/**
 * The server under a terminal or a supervisor (issue 13), started as users
 * start it (the start task's permission flags, or `deno task start`):
 * SIGHUP (a closed terminal, a dropped SSH session) stops it gracefully like
 * SIGTERM unless `sighup: ignore`; and when the task runner that started it
 * is killed outright, leaving it orphaned, it notices (its parent PID
 * changes) and stops gracefully instead of holding the port and the data
 * directory with nobody to stop it.
 */
import { equal, ok } from "node:assert/strict";
import { connect, type PhiraClient } from "../src/client/mod.ts";
import { LOCK_FILE } from "../src/persistence/mod.ts";
import { devToken, serveDevApi } from "../src/upstream/mod.ts";
import { type ChildServer, freePort, spawnServer } from "./support/child_server.ts";
import { welcomeDone } from "./support/welcome.ts";

const NOTICE = "The server is shutting down. See you soon!";

/** A logged-in player whose welcome lines have all arrived, so that the next system chat is whatever comes next. */
async function player(port: number): Promise<PhiraClient> {
  const c = await connect({ host: "127.0.0.1", port, pingIntervalMs: 0 });
  await c.authenticate(devToken(100));
  await welcomeDone(c);
  return c;
}

async function withServer(
  flags: string[],
  viaTask: boolean,
  body: (s: ChildServer, port: number, dataDir: string) => Promise<void>,
): Promise<void> {
  const dataDir = await Deno.makeTempDir({ prefix: "chorus-supervision-" });
  const upstream = serveDevApi();
  const port = freePort();
  const server = spawnServer({ dataDir, port, upstream: upstream.url, viaTask, flags: ["--no-cli", ...flags] });
  try {
    await server.ready;
    await body(server, port, dataDir);
  } finally {
    const owner = await Deno.readTextFile(`${dataDir}/${LOCK_FILE}`).then((t) => JSON.parse(t).pid, () => null);
    for (const kill of [() => owner !== null && Deno.kill(owner, "SIGKILL"), () => server.child.kill("SIGKILL")]) {
      try {
        kill();
      } catch {
        // Already gone.
      }
    }
    await server.child.status;
    await server.done;
    await upstream.close();
    await Deno.remove(dataDir, { recursive: true });
  }
}

Deno.test("start-up tells a newcomer where to connect; SIGHUP stops the server gracefully, like SIGTERM", async () => {
  await withServer([], false, async (server, port, dataDir) => {
    // What a newcomer sees: the address for Phira clients, the admin panel's state with the line that enables it,
    // the data directory; what Production would refuse in one line, not one warning per finding.
    const text = server.lines.join("\n");
    ok(text.includes(`Phira clients connect to 127.0.0.1:${port}`), text);
    ok(text.includes("HTTP is off (http_port: 0)"), text);
    ok(text.includes(`data directory: ${dataDir} (the embedded database and the journal)`), text);
    ok(/Development profile: fine here, but Production would refuse admin_password, service_secret_key/.test(text));
    ok(!text.includes("refused in profile Production"), text);
    ok(!/ WARN /.test(text), `no warnings on a default start:\n${text}`);
    const alice = await player(port);
    server.child.kill("SIGHUP");
    equal((await alice.waitForMessage("Chat", (m) => m.user === 0, 10_000)).content, NOTICE);
    await alice.closed;
    equal((await server.child.status).code, 0, server.lines.join("\n"));
    ok(server.lines.some((l) => l.includes("shutting down") && l.includes("SIGHUP")), "the reason is logged");
    await alice.close();
  });
});

Deno.test("sighup: ignore keeps the server running through SIGHUP; SIGTERM still stops it", async () => {
  await withServer(["--sighup", "ignore"], false, async (server, port) => {
    const alice = await player(port);
    server.child.kill("SIGHUP");
    await server.waitFor(/SIGHUP ignored \(sighup: ignore\)/);
    // Still serving: a round trip on the same connection, and a new login.
    await alice.createRoom("still-here");
    const bob = await connect({ host: "127.0.0.1", port, pingIntervalMs: 0 });
    await bob.authenticate(devToken(200));
    server.child.kill("SIGTERM");
    equal((await server.child.status).code, 0, server.lines.join("\n"));
    ok(!server.lines.some((l) => l.includes("shutting down") && l.includes("SIGHUP")));
    await Promise.all([alice.close(), bob.close()]);
  });
});

Deno.test("deno task start: the task runner SIGKILLed leaves the server orphaned; it notices and stops gracefully", async () => {
  await withServer([], true, async (server, port, dataDir) => {
    const pid = JSON.parse(await Deno.readTextFile(`${dataDir}/${LOCK_FILE}`)).pid;
    ok(pid !== server.child.pid, "the server is the task runner's child");
    const alice = await player(port);
    const notice = alice.waitForMessage("Chat", (m) => m.user === 0, 15_000);
    server.child.kill("SIGKILL"); // The runner only: nothing signals the server.
    await server.child.status;
    equal((await notice).content, NOTICE, "players are told, as for SIGTERM");
    await alice.closed;
    // Its output ends when it exits (it holds the pipes it inherited from the runner).
    await server.done;
    ok(server.lines.some((l) => l.includes("the process that started the server has exited")), server.lines.join("\n"));
    ok(server.lines.some((l) => l.includes("shutting down") && l.includes("parent process")));
    ok(server.lines.some((l) => l.includes("persistence closed")), "the store was closed cleanly");
    await Deno.stat(`${dataDir}/${LOCK_FILE}`).then(
      () => Promise.reject(new Error("the lock file is still there: no clean release")),
      (e) => ok(e instanceof Deno.errors.NotFound),
    );
    await alice.close();
  });
});
