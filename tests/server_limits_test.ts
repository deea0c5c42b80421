/**
 * Rate limits and the PROXY protocol over real TCP (issue 4 "People and limits").
 */
import { deepEqual, equal } from "node:assert/strict";
import { assertRejectsWithReason } from "../src/client/mod.ts";
import { PhiraClient } from "../src/client/mod.ts";
import { Admin } from "../src/server/mod.ts";
import { encodeClientCommand } from "../src/protocol/mod.ts";
import { devToken, startHarness } from "./support/harness.ts";

Deno.test("Chat is limited to 10 per 3 s and room operations to 20 per 6 s, each with its error reply", async () => {
  const h = await startHarness();
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
  const h = await startHarness({ config: { connection_rate_limit: 3, connection_rate_window: 10 } });
  for (let i = 0; i < 3; i++) await (await h.connect()).ping();
  const refused = await h.raw();
  const buf = new Uint8Array(8);
  equal(await refused.read(buf).catch(() => null), null, "the fourth connection is closed at once");
  await h.advance(10_000);
  await (await h.connect()).ping();
  equal(h.server.core.counters.values.connections_rate_limited, 1);
  await h.close();
});

async function proxied(h: Awaited<ReturnType<typeof startHarness>>, header: Uint8Array): Promise<PhiraClient> {
  const conn = await h.raw();
  await conn.write(header);
  const client = new PhiraClient(conn, { pingIntervalMs: 0 });
  return client;
}

Deno.test("PROXY v1 and v2 from an allowed sender carry the real address; direct clients lose nothing", async () => {
  const h = await startHarness({ config: { proxy_allow_cidr: ["127.0.0.0/8"] } });
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
  const h = await startHarness({ config: { proxy_allow_cidr: ["127.0.0.1/32"] } });
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

/** Version byte then a Ping frame: what a client sends first. */
const HELLO_PING = () => new Uint8Array([1, ...encodeClientCommand({ type: "Ping" })]);

Deno.test("a PROXY header from a sender outside proxy_allow_cidr is not honoured", async () => {
  const h = await startHarness({ config: { proxy_allow_cidr: ["10.0.0.0/8", "2001:db8::/32"] } });
  // The header would claim an address that is not banned; the sender's own one is.
  h.server.core.bans.banIp({ ip: "127.0.0.1", reason: "abuse", banned_at: 0 });
  const conn = await h.raw();
  const header = new TextEncoder().encode("PROXY TCP4 203.0.113.7 127.0.0.1 5000 12346\r\n");
  await conn.write(new Uint8Array([...header, ...HELLO_PING()]));
  // Not parsed as a header: its first byte is read as the protocol version
  // ("P", unsupported), so the connection closes without a Pong.
  equal(await conn.read(new Uint8Array(8)).catch(() => null), null);
  // A direct client from the same sender is judged by its own address.
  const direct = await h.connect();
  await assertRejectsWithReason(
    direct.authenticate(devToken(100)),
    "You have been banned from this server. Reason: abuse",
  );
  deepEqual([...h.server.core.sessions].map((s) => s.ip).filter((ip) => ip !== "127.0.0.1"), []);
  await h.close();
});

Deno.test("a ban on a compressed IPv6 address matches the uncompressed address of a v2 header", async () => {
  const h = await startHarness({ config: { proxy_allow_cidr: ["127.0.0.1/32"] } });
  const admin = new Admin(h.server.core);
  admin.banIp("2001:db8::5", "v6 abuse");
  // Another spelling of a mapped IPv4 address bans the dotted form.
  admin.banIp("::ffff:198.51.100.9", "v4 abuse");
  deepEqual(h.server.core.bans.ipBans().map((b) => b.ip), ["198.51.100.9", "2001:db8::5"]);
  const sig = [0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a];
  // TCP over IPv6 (0x21): source 2001:db8:0:0:0:0:0:5 written out in full, as the header carries it.
  const src = [0x20, 0x01, 0x0d, 0xb8, ...Array(11).fill(0), 0x05];
  const dst = [...Array(15).fill(0), 0x01];
  const v6 = await proxied(h, new Uint8Array([...sig, 0x21, 0x21, 0, 36, ...src, ...dst, 0x13, 0x88, 0x30, 0x3a]));
  await assertRejectsWithReason(
    v6.authenticate(devToken(100)),
    "You have been banned from this server. Reason: v6 abuse",
  );
  const mapped = [...Array(10).fill(0), 0xff, 0xff, 198, 51, 100, 9];
  const v4 = await proxied(h, new Uint8Array([...sig, 0x21, 0x21, 0, 36, ...mapped, ...dst, 0x13, 0x89, 0x30, 0x3a]));
  await assertRejectsWithReason(
    v4.authenticate(devToken(200)),
    "You have been banned from this server. Reason: v4 abuse",
  );
  // An unparseable v1 address closes the connection as a malformed header.
  const bad = await h.raw();
  await bad.write(new TextEncoder().encode("PROXY TCP4 not-an-ip 127.0.0.1 5000 12346\r\n"));
  equal(await bad.read(new Uint8Array(4)).catch(() => null), null);
  // Lifting the ban by yet another spelling works too.
  equal(admin.unbanIp("2001:DB8:0:0::5"), true);
  const again = await proxied(h, new Uint8Array([...sig, 0x21, 0x21, 0, 36, ...src, ...dst, 0x13, 0x8a, 0x30, 0x3a]));
  await again.authenticate(devToken(300));
  deepEqual([...h.server.core.sessions].filter((s) => s.userId === 300).map((s) => s.ip), ["2001:db8::5"]);
  await Promise.all([v6.close(), v4.close(), again.close()]);
  await h.close();
});
