/**
 * Junk logins (issue 14 "`max_pending_auth` is shared by everyone"): 2,000
 * logins whose tokens the upstream takes 4 s to reject filled the server's
 * pending-login slots, and three real players were refused with "Server is
 * busy". Pending logins are bounded per address (IPv6 by /64), and a token
 * the upstream rejected is remembered briefly, so junk repeated does not
 * cost one upstream call each.
 */
import { deepEqual, equal } from "node:assert/strict";
import { defaultConfig } from "../src/config/mod.ts";
import { EventBus } from "../src/events/mod.ts";
import { encodeClientCommand } from "../src/protocol/mod.ts";
import type { UpstreamApi, UpstreamIdentity } from "../src/server/mod.ts";
import { GameServer } from "../src/server/mod.ts";
import type { Session } from "../src/session/session.ts";
import { ManualClock } from "../src/util/clock.ts";
import { LogHub } from "../src/util/log.ts";
import { SeededRandom } from "../src/util/random.ts";
import { settle } from "./support/harness.ts";
import { HeldConnection } from "./support/held_connection.ts";

/** An HTTP 401 from the upstream, as the real client reports it (an error with a status). */
class Rejected extends Error {
  readonly kind = "http";
  readonly status = 401;
}

/** Real tokens `real-<id>` answer at once; any other token is rejected after `slowMs` (the server's clock). */
class SlowRejectingUpstream implements UpstreamApi {
  calls = 0;
  constructor(readonly clock: ManualClock, readonly slowMs = 4000) {}
  me(token: string): Promise<UpstreamIdentity> {
    this.calls++;
    const real = /^real-(\d+)$/.exec(token);
    if (real) return Promise.resolve({ id: Number(real[1]), name: `P${real[1]}`, language: "en-US" });
    return new Promise((_, reject) => this.clock.setTimeout(() => reject(new Rejected("invalid token")), this.slowMs));
  }
  chart(): Promise<never> {
    return Promise.reject(new Error("not used"));
  }
  record(): Promise<never> {
    return Promise.reject(new Error("not used"));
  }
}

function startServer() {
  const clock = new ManualClock();
  const upstream = new SlowRejectingUpstream(clock);
  const server = new GameServer({
    config: {
      ...defaultConfig(),
      heartbeat_timeout: 3600,
      auth_timeout: 3600,
      welcome: { enabled: false, show_time: false, messages: {} },
    },
    clock,
    random: new SeededRandom(1),
    log: new LogHub({ level: "error", sink: () => {} }).logger(),
    upstream,
    bus: new EventBus(() => clock.now()),
  });
  return { server, clock, upstream };
}

function login(server: GameServer, token: string, ip: string): { conn: HeldConnection; session: Session } {
  const conn = new HeldConnection(new Uint8Array([1, ...encodeClientCommand({ type: "Authenticate", token })]));
  conn.release();
  return { conn, session: server.attach(conn, ip)! };
}

const results = (conns: HeldConnection[]) =>
  conns.map((c) => c.commands()[0]).map((r) => r?.type === "Authenticate" && r.result.ok ? "Ok" : "Err");

Deno.test("2,000 junk logins from one IPv4 address and one IPv6 /64 leave room for real players", async () => {
  const { server, clock, upstream } = startServer();
  const junk: HeldConnection[] = [];
  for (let i = 0; i < 1000; i++) junk.push(login(server, `junk-${i}`, "203.0.113.7").conn);
  // Every address of one /64 is one client (a host picks them freely).
  for (let i = 0; i < 1000; i++) junk.push(login(server, `junk-v6-${i}`, `2001:db8:0:7::${(i + 1).toString(16)}`).conn);
  await settle(20);
  const real = [1, 2, 3].map((id) => login(server, `real-${id}`, `198.51.100.${id}`));
  await settle(20);
  deepEqual(results(real.map((r) => r.conn)), ["Ok", "Ok", "Ok"]);
  // Only the per-address share reached the upstream; the rest was refused at once.
  const perAddress = server.core.ctx.config.max_pending_auth_per_ip;
  equal(upstream.calls, 2 * perAddress + 3);
  equal(server.core.counters.values.auth_rejected_address_busy, 2000 - 2 * perAddress);
  clock.advance(4000);
  await settle(20);
  equal(server.core.pendingAuth, 0);
  equal(junk.every((c) => c.commands()[0]?.type === "Authenticate"), true, "every junk login got its answer");
  await server.shutdown();
});

Deno.test("loopback has no per-address share: a local forwarder's clients are bounded by max_pending_auth only", async () => {
  const { server, clock, upstream } = startServer();
  const perAddress = server.core.ctx.config.max_pending_auth_per_ip;
  const local = Array.from(
    { length: perAddress * 3 },
    (_, i) => login(server, `local-${i}`, i % 2 ? "::1" : "127.0.0.1"),
  );
  await settle(20);
  equal(upstream.calls, perAddress * 3, "every loopback login reached the upstream");
  equal(server.core.counters.values.auth_rejected_address_busy ?? 0, 0);
  clock.advance(4000);
  await settle(20);
  equal(server.core.pendingAuth, 0);
  equal(local.every((l) => l.conn.commands()[0]?.type === "Authenticate"), true);
  await server.shutdown();
});

Deno.test("a rejected token is remembered briefly: repeating it costs no upstream call until it expires", async () => {
  const { server, clock, upstream } = startServer();
  const first = login(server, "junk-same", "203.0.113.7");
  await settle();
  clock.advance(4000);
  await settle();
  equal(first.conn.commands()[0]?.type, "Authenticate");
  equal(upstream.calls, 1);
  // The same junk token again, from anywhere: refused at once (no slot, no upstream call).
  const again = Array.from({ length: 50 }, (_, i) => login(server, "junk-same", `192.0.2.${i + 1}`));
  await settle(10);
  deepEqual(new Set(results(again.map((a) => a.conn))), new Set(["Err"]));
  equal(upstream.calls, 1);
  equal(server.core.counters.values.auth_rejected_remembered, 50);
  // After the memory's time-to-live the upstream is asked again (a token may have become valid).
  clock.advance(60_000);
  login(server, "junk-same", "203.0.113.7");
  await settle();
  equal(upstream.calls, 2);
  clock.advance(4000);
  await settle();
  await server.shutdown();
});
