import { equal } from "node:assert/strict";
import { addressGroup } from "./address_group.ts";

Deno.test("addressGroup keeps IPv4 addresses and groups IPv6 by /64", async (t) => {
  const cases: [string, string][] = [
    ["203.0.113.7", "203.0.113.7"],
    ["::ffff:203.0.113.7", "203.0.113.7"],
    ["2001:db8:0:7::1", "2001:db8:0:7::/64"],
    ["2001:db8:0:7:ffff:ffff:ffff:ffff", "2001:db8:0:7::/64"],
    ["2001:DB8:0:7:a:b:c:d", "2001:db8:0:7::/64"],
    ["2001:db8:0:8::1", "2001:db8:0:8::/64"],
    ["::1", "::/64"],
    ["fe80::1%eth0", "fe80::/64"],
    ["pipe", "pipe"],
  ];
  for (const [ip, group] of cases) await t.step(ip, () => equal(addressGroup(ip), group));
});
