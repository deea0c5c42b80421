/**
 * Per-address limits count an IPv6 /64 as one client (issue 14): a host
 * picks any address of its /64, so counting single addresses would let it
 * walk past every per-address limit. Addresses arrive by PROXY v1 from a
 * trusted proxy, as behind a load balancer.
 */
import { equal } from "node:assert/strict";
import { PhiraClient } from "../src/client/mod.ts";
import { devToken, type Harness, startHarness } from "./support/harness.ts";

async function from(h: Harness, ip: string): Promise<PhiraClient> {
  const conn = await h.raw();
  await conn.write(new TextEncoder().encode(`PROXY TCP6 ${ip} ::1 5000 12346\r\n`));
  return new PhiraClient(conn, { pingIntervalMs: 0 });
}

Deno.test("the connection rate limit counts every address of one IPv6 /64 together", async () => {
  const h = await startHarness({
    config: { connection_rate_limit: 3, connection_rate_window: 10, proxy_allow_cidr: ["127.0.0.0/8"] },
  });
  for (let i = 1; i <= 3; i++) await (await from(h, `2001:db8:0:7::${i}`)).authenticate(devToken(100 + i));
  const refused = await from(h, "2001:db8:0:7:ffff::4");
  equal(await refused.authenticate(devToken(200)).then(() => "answered", () => "closed"), "closed");
  await (await from(h, "2001:db8:0:8::1")).authenticate(devToken(300));
  equal(h.server.core.counters.values.connections_rate_limited, 1);
  await refused.close();
  await h.close();
});
