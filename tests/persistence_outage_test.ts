/**
 * The store going away and coming back loses nothing (issue 5 "Tests"): a
 * TCP proxy between the server and PostgreSQL is cut and restored while
 * records keep being written; they wait in the journal and are applied,
 * once, when the database is reachable again. Needs PM_TEST_DATABASE_URL.
 */
import assert from "node:assert/strict";
import { defaultConfig } from "../src/config/mod.ts";
import { openPersistence } from "../src/persistence/mod.ts";
import { dropTestDatabase, testDatabaseUrl } from "../src/db/test_db_test_util.ts";
import { ManualClock } from "../src/util/clock.ts";
import { LogHub } from "../src/util/log.ts";

const base = Deno.env.get("PM_TEST_DATABASE_URL");

/** Forwards 127.0.0.1:<port> to the database; `down()` cuts every connection and refuses new ones. */
function proxy(target: { hostname: string; port: number }) {
  let listener: Deno.TcpListener | null = null;
  const conns = new Set<Deno.Conn>();
  let port = 0;
  const serve = (l: Deno.TcpListener) => {
    void (async () => {
      for await (const inbound of l) {
        const outbound = await Deno.connect(target).catch(() => null);
        if (!outbound) {
          inbound.close();
          continue;
        }
        conns.add(inbound).add(outbound);
        const close = () => {
          for (const c of [inbound, outbound]) {
            conns.delete(c);
            try {
              c.close();
            } catch {
              // Closed already.
            }
          }
        };
        inbound.readable.pipeTo(outbound.writable).catch(close);
        outbound.readable.pipeTo(inbound.writable).catch(close);
      }
    })().catch(() => {});
  };
  const up = () => {
    listener = Deno.listen({ hostname: "127.0.0.1", port });
    port = (listener.addr as Deno.NetAddr).port;
    serve(listener);
  };
  up();
  return {
    get port() {
      return port;
    },
    up,
    down() {
      listener?.close();
      listener = null;
      for (const c of conns) {
        try {
          c.close();
        } catch {
          // Closed already.
        }
      }
      conns.clear();
    },
  };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 10));

Deno.test({
  name: base
    ? "the store going away and coming back loses nothing"
    : "the store going away and coming back loses nothing (skipped: PM_TEST_DATABASE_URL unset)",
  ignore: !base,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const direct = testDatabaseUrl(base!, "outage");
    const target = new URL(direct);
    const p0 = proxy({ hostname: target.hostname, port: Number(target.port || 5432) });
    const viaProxy = new URL(direct);
    viaProxy.hostname = "127.0.0.1";
    viaProxy.port = String(p0.port);
    const dataDir = await Deno.makeTempDir();
    const clock = new ManualClock();
    const logs = new LogHub({ level: "debug", sink: () => {} });
    const p = await openPersistence({
      config: { ...defaultConfig(), data_dir: dataDir, database_url: viaProxy.href },
      clock,
      log: logs.logger(),
    });
    try {
      for (let i = 0; i < 5; i++) p.setSetting(`before-${i}`, i);
      await p.flush();
      p0.down();
      for (let i = 0; i < 50; i++) p.setSetting(`during-${i}`, i);
      for (let i = 0; i < 100 && p.status().store_up; i++) {
        clock.advance(250);
        await tick();
      }
      assert.equal(p.status().store_up, false, "the outage is noticed");
      assert.ok(p.status().pending > 0, "records wait in the journal");
      for (let i = 0; i < 5; i++) {
        clock.advance(5000);
        await tick();
      }
      p0.up();
      const applied = p.flush();
      for (let i = 0; i < 200 && p.status().pending > 0; i++) {
        clock.advance(5000);
        await tick();
      }
      await applied;
      const status = p.status();
      assert.equal(status.store_up, true);
      assert.ok(status.counters.store_outages >= 1);
      assert.equal(status.dead_letters, 0);
      const rows = await p.store.db.query("SELECT key FROM settings ORDER BY key");
      assert.equal(rows.length, 55, "every record written during the outage arrived once");
      assert.ok(logs.history().some((r) => r.msg.startsWith("store unavailable")));
    } finally {
      await p.stop(0);
      p0.down();
      await dropTestDatabase(direct);
      await Deno.remove(dataDir, { recursive: true });
    }
  },
});
