/**
 * Journal damage in a real server process (issue 14 "Journal integrity"),
 * started as `deno task start` starts it: players play rounds, the server
 * stops, one bit flips in the length field of a record in the middle of
 * the journal, and the server starts again. Before format 2 the scan took
 * that record for a torn tail and truncated every record after it (the log
 * said `truncated a torn record`, `/health/ready` said ready). Now the
 * length is repaired from the checksums, the log says so, every
 * acknowledged round result is in the store exactly once, and the journal
 * still holds every record.
 */
import assert from "node:assert/strict";
import { connect, type PhiraClient } from "../src/client/mod.ts";
import { DAMAGED_DIR } from "../src/persistence/journal/repair.ts";
import { recordOffsets } from "../src/persistence/journal/corruption_test_util.ts";
import { SqliteStoreDb } from "../src/persistence/backends/sqlite_store_db.ts";
import { devRecordId, devToken, serveDevApi } from "../src/upstream/mod.ts";
import { freePort, spawnServer } from "./support/child_server.ts";
import { dataDirs } from "./support/persistence_stack.ts";

const dirs = dataDirs();

/** The last `.wal` file of the journal. */
async function lastSegment(dataDir: string): Promise<string> {
  const dir = `${dataDir}/journal`;
  const names = (await Array.fromAsync(Deno.readDir(dir))).map((e) => e.name).filter((n) => n.endsWith(".wal"));
  return `${dir}/${names.sort().at(-1)}`;
}

Deno.test({
  name: "a flipped bit in a journal record's length field costs no acknowledged round result (server process)",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dataDir = await dirs.fresh();
    const upstream = serveDevApi();
    const port = freePort();
    const httpPort = freePort(50, [port]);
    const acked = new Map<number, number>(); // record id → user
    let server = spawnServer({
      dataDir,
      port,
      upstream: upstream.url,
      flags: ["--http-port", String(httpPort), "--http-bind-address", "127.0.0.1"],
    });
    try {
      await server.ready;
      const clients: PhiraClient[] = [];
      await Promise.all([1, 2, 3, 4].map(async (i) => {
        const id = 500 + i;
        const c = await connect({ host: "127.0.0.1", port, pingIntervalMs: 0 });
        clients.push(c);
        await c.authenticate(devToken(id));
        await c.createRoom(`damage-${id}`);
        await c.selectChart(1);
        for (let n = 1; n <= 6; n++) {
          await c.requestStart();
          await c.played(devRecordId(id, n));
          acked.set(devRecordId(id, n), id);
        }
      }));
      for (const c of clients) await c.close();
      server.child.kill("SIGTERM");
      assert.equal((await server.child.status).code, 0, server.lines.join("\n"));
      await server.done;

      // One bit of the length of a record in the middle of the journal's last segment: it now points past the end.
      const segment = await lastSegment(dataDir);
      const bytes = await Deno.readFile(segment);
      const offsets = recordOffsets(bytes);
      assert.ok(offsets.length >= 20, `the journal holds the rounds (${offsets.length} records)`);
      const victim = offsets[Math.floor(offsets.length / 2)]!;
      const damaged = bytes.slice();
      damaged[victim + 6]! ^= 1 << 4; // Length += 1 MiB.
      await Deno.writeFile(segment, damaged);

      server = spawnServer({
        dataDir,
        port,
        upstream: upstream.url,
        flags: ["--http-port", String(httpPort), "--http-bind-address", "127.0.0.1"],
      });
      await server.ready;
      const repaired = server.lines.find((l) => l.includes("journal: repaired a damaged record header; nothing lost"));
      assert.ok(repaired, server.lines.join("\n"));
      assert.match(repaired, new RegExp(`segment=${segment.replaceAll("/", "\\/")} offset=${victim} `));
      assert.match(repaired, /damage=length/);
      assert.ok(!server.lines.some((l) => l.includes("truncated a torn record")), "nothing is taken for a torn tail");
      assert.ok(server.lines.some((l) => l.includes("journal: rewrote a damaged segment without its damage")));
      await server.waitFor(/HTTP listening/);
      const health = await fetch(`http://127.0.0.1:${httpPort}/health/ready`);
      assert.equal(health.status, 200);
      assert.deepEqual(await health.json(), { status: "ready" });
      server.child.kill("SIGTERM");
      assert.equal((await server.child.status).code, 0, server.lines.join("\n"));
      await server.done;

      // The journal still holds every record (rewritten), and the damaged original is kept for the operator.
      const after = recordOffsets(await Deno.readFile(segment));
      assert.ok(after.length >= offsets.length, `${after.length} records after, ${offsets.length} before`);
      const kept = await Array.fromAsync(Deno.readDir(`${dataDir}/journal/${DAMAGED_DIR}`));
      assert.equal(kept.length, 1);

      const db = SqliteStoreDb.open(`${dataDir}/chorus.sqlite`);
      try {
        const results = new Map(
          (await db.query("SELECT record_id, COUNT(*) AS n FROM round_results GROUP BY record_id")).map((r) => [
            Number(r.record_id),
            Number(r.n),
          ]),
        );
        assert.equal(acked.size, 24);
        for (const [record, user] of acked) assert.equal(results.get(record), 1, `result ${record} of ${user}`);
        const [dead] = await db.query("SELECT COUNT(*) AS n FROM dead_letters");
        assert.equal(Number(dead?.n), 0);
      } finally {
        await db.close();
      }
    } finally {
      try {
        server.child.kill("SIGKILL");
      } catch {
        // Already gone.
      }
      await server.child.status;
      await server.done;
      await upstream.close();
    }
  },
});

Deno.test("cleanup of the template data directories", async () => {
  await dirs.cleanup();
});
