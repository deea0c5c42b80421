/**
 * Rate limits and the PROXY protocol over real TCP (issue 4 "People and limits").
 */
import { deepEqual, equal } from "node:assert/strict";
import { assertRejectsWithReason } from "../src/client/mod.ts";
import { PhiraClient } from "../src/client/mod.ts";
import { encodeClientCommand } from "../src/protocol/mod.ts";
import { devToken, startHarness } from "./support/harness.ts";

Deno.test("Chat is limited to 10 per 3 s and room operations to 20 per 6 s, each with its error reply", async () => {
  const h = startHarness();
  const alice = await h.login(100);
  await alice.createRoom("abc");
  for (let i = 0; i < 10; i++) await alice.chat(`m${i}`);
  await assertRejectsWithReason(alice.chat("one too many"), "Too many requests, slow down a little");
  await h.advance(300);
  await alice.chat("refilled");
  // CreateRoom took one of the 20 tokens; the 300 ms above refilled one.
  for (let i = 0; i < 20; i++) await alice.lockRoom(i % 2 === 0);
  await assertRejectsWithReason(alice.lockRoom(true), "Too many requests, slow down a little");
  equal(h.server.core.counters.values.commands_rate_limited, 2);
  await h.close();
});

Deno.test("connections per address are limited per window", async () => {
  const h = startHarness({ config: { connection_rate_limit: 3, connection_rate_window: 10 } });
  for (let i = 0; i < 3; i++) await (await h.connect()).ping();
  const refused = await h.raw();
  const buf = new Uint8Array(8);
  equal(await refused.read(buf).catch(() => null), null, "the fourth connection is closed at once");
  await h.advance(10_000);
  await (await h.connect()).ping();
  equal(h.server.core.counters.values.connections_rate_limited, 1);
  await h.close();
});

async function proxied(h: ReturnType<typeof startHarness>, header: Uint8Array): Promise<PhiraClient> {
  const conn = await h.raw();
  await conn.write(header);
  const client = new PhiraClient(conn, { pingIntervalMs: 0 });
  return client;
}

Deno.test("PROXY v1 and v2 from an allowed sender carry the real address; direct clients lose nothing", async () => {
  const h = startHarness({ config: { proxy_allow_cidr: ["127.0.0.0/8"] } });
  const v1 = await proxied(h, new TextEncoder().encode("PROXY TCP4 203.0.113.7 127.0.0.1 5000 12346\r\n"));
  await v1.authenticate(devToken(100));
  const sig = [0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a];
  const v2 = await proxied(
    h,
    new Uint8Array([...sig, 0x21, 0x11, 0, 12, 198, 51, 100, 9, 127, 0, 0, 1, 0x13, 0x88, 0x30, 0x3a]),
  );
  await v2.authenticate(devToken(200));
  const direct = await h.login(300);
  const ips = [...h.server.core.sessions].map((s) => s.ip).sort();
  deepEqual(ips, ["127.0.0.1", "198.51.100.9", "203.0.113.7"]);
  // Bans apply to the real address.
  h.server.core.bans.banIp({ ip: "203.0.113.7", reason: "abuse", banned_at: 0 });
  const again = await proxied(h, new TextEncoder().encode("PROXY TCP4 203.0.113.7 127.0.0.1 5001 12346\r\n"));
  await assertRejectsWithReason(
    again.authenticate(devToken(400)),
    "You have been banned from this server. Reason: abuse",
  );
  await Promise.all([v1.close(), v2.close(), again.close(), direct.close()]);
  await h.close();
});

Deno.test("a malformed or missing PROXY header from an allowed sender closes the connection", async () => {
  const h = startHarness({ config: { proxy_allow_cidr: ["127.0.0.1/32"] } });
  const bad = await h.raw();
  await bad.write(new TextEncoder().encode("PROXY BOGUS\r\n"));
  equal(await bad.read(new Uint8Array(4)).catch(() => null), null);
  const silent = await h.raw();
  await h.advance(3000);
  equal(await silent.read(new Uint8Array(4)).catch(() => null), null, "the 3 s header timeout applies");
  const direct = await h.raw();
  await direct.write(new Uint8Array([1, ...encodeClientCommand({ type: "Ping" })]));
  const got = new Uint8Array(4);
  equal(await direct.read(got), 2, "a direct client's first bytes reach the session");
  await h.close();
});
