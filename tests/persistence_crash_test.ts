/**
 * Crash test (issue 5 "Tests", issue 13): a server process started as users
 * start it — `deno run` with the start task's permission flags, or `deno
 * task start` itself, never `-A` — is killed with SIGKILL in the middle of a
 * burst of logins and rounds, restarted at once on the same data_dir (it
 * must come up at the first attempt: the kernel released the dead owner's
 * lock; the journal is replayed; a second server on that directory
 * meanwhile refuses to start), and stopped; then the store is read
 * directly. Every login answered `Authenticate(Ok)` and every `Played`
 * answered Ok must be in it exactly once.
 */
import assert from "node:assert/strict";
import { connect, type PhiraClient } from "../src/client/mod.ts";
import { LOCK_FILE } from "../src/persistence/mod.ts";
import { SqliteStoreDb } from "../src/persistence/backends/sqlite_store_db.ts";
import { devRecordId, devToken, serveDevApi } from "../src/upstream/mod.ts";
import { type ChildServer, freePort, mainArgs, spawnServer } from "./support/child_server.ts";

/** The PID of the server process (under `deno task` a grandchild), from the lock file it holds. */
async function serverPid(dataDir: string): Promise<number> {
  return JSON.parse(await Deno.readTextFile(`${dataDir}/${LOCK_FILE}`)).pid;
}

async function crashAndRestart(viaTask: boolean): Promise<void> {
  const dataDir = await Deno.makeTempDir({ prefix: "chorus-crash-" });
  const upstream = serveDevApi();
  const port = freePort();
  const acked = { logins: new Set<number>(), played: new Map<number, number>() }; // record id → user
  const clients: PhiraClient[] = [];
  let server: ChildServer = spawnServer({ dataDir, port, upstream: upstream.url, viaTask });
  try {
    await server.ready;
    let stop = false;
    const player = async (id: number) => {
      const c = await connect({ host: "127.0.0.1", port, pingIntervalMs: 0 });
      clients.push(c);
      await c.authenticate(devToken(id));
      acked.logins.add(id);
      await c.createRoom(`crash-${id}`);
      await c.selectChart(1);
      for (let n = 1; !stop && n < 999; n++) {
        await c.requestStart();
        const record = devRecordId(id, n);
        await c.played(record);
        acked.played.set(record, id);
      }
    };
    const burst = Array.from({ length: 24 }, (_, i) => player(1000 + i).catch(() => {}));
    // Let the burst run, then kill the server in the middle of it (a chaos trigger, not a wait for behaviour).
    const started = performance.now();
    while (acked.played.size < 60 && performance.now() - started < 8000) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const killed = await serverPid(dataDir);
    assert.equal(killed === server.child.pid, !viaTask, "under deno task the server is the task runner's child");
    Deno.kill(killed, "SIGKILL");
    await server.child.status;
    await server.done;
    stop = true;
    await Promise.all(burst);
    for (const c of clients) await c.close().catch(() => {});
    assert.ok(acked.logins.size >= 10, `a burst of logins was acknowledged (${acked.logins.size})`);
    assert.ok(acked.played.size >= 20, `a burst of rounds was acknowledged (${acked.played.size})`);

    // Restart at once on the same directory, the same way: up at the first attempt; the journal is replayed.
    server = spawnServer({ dataDir, port, upstream: upstream.url, viaTask });
    await server.ready;
    const restarted = await serverPid(dataDir);
    assert.notEqual(restarted, killed);
    assert.ok(
      server.lines.some((l) => l.includes("taking over a stale data_dir lock")),
      "the killed owner's lock is stale",
    );
    // A second server on the same data_dir refuses to start, naming the directory and the owner.
    const second = await new Deno.Command(Deno.execPath(), {
      args: mainArgs("start", "--port", String(freePort()), "--http-port", "0", "--data-dir", dataDir),
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(second.code, 1);
    assert.ok(
      new TextDecoder().decode(second.stdout).includes(
        `Cannot use data_dir "${dataDir}": it is in use by process ${restarted}`,
      ),
      new TextDecoder().decode(second.stdout),
    );
    server.child.kill("SIGTERM");
    assert.equal((await server.child.status).code, 0, server.lines.join("\n"));

    const db = SqliteStoreDb.open(`${dataDir}/chorus.sqlite`);
    try {
      const visits = new Map(
        (await db.query("SELECT user_id, COUNT(*) AS n FROM visits GROUP BY user_id")).map((r) => [r.user_id, r.n]),
      );
      const logins = new Map(
        (await db.query("SELECT user_id, login_count FROM users")).map((r) => [r.user_id, r.login_count]),
      );
      for (const id of acked.logins) {
        assert.equal(visits.get(id), 1, `login of ${id} stored exactly once`);
        assert.equal(logins.get(id), 1, `login count of ${id}`);
      }
      for (const [id, n] of visits) assert.equal(n, 1, `user ${id} logged in once, stored once`);
      const results = new Map(
        (await db.query("SELECT record_id, COUNT(*) AS n FROM round_results GROUP BY record_id")).map((r) => [
          r.record_id,
          r.n,
        ]),
      );
      const scored = new Map(
        (await db.query(
          "SELECT CAST(payload->'record'->>'id' AS BIGINT) AS id, COUNT(*) AS n FROM events WHERE kind = 'round.scored' GROUP BY 1",
        )).map((r) => [r.id, r.n]),
      );
      for (const [record, user] of acked.played) {
        assert.equal(results.get(record), 1, `result ${record} of ${user} stored exactly once`);
        assert.equal(scored.get(record), 1, `round.scored ${record} stored exactly once`);
      }
      for (const [record, n] of results) assert.equal(n, 1, `result ${record} not duplicated`);
      const [dead] = await db.query("SELECT COUNT(*) AS n FROM dead_letters");
      assert.equal(dead?.n, 0);
    } finally {
      await db.close();
    }
  } finally {
    // The server itself first: under deno task, killing only the runner would leave it to stop by itself.
    const owner = await serverPid(dataDir).catch(() => null);
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
    await Deno.remove(dataDir, { recursive: true }).catch(() => {});
  }
}

Deno.test({
  name: "SIGKILL in a burst of logins and rounds (deno run with the start task's flags): restart at once, no loss",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: () => crashAndRestart(false),
});

Deno.test({
  name: "SIGKILL in a burst of logins and rounds (deno task start): restart at once, no loss",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: () => crashAndRestart(true),
});
