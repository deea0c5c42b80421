import { equal, throws } from "node:assert/strict";
import { canonicalIp, CidrSet, formatIp, parseCidr, parseIp } from "./cidr.ts";

Deno.test("parseIp reads IPv4, IPv6, compressed and mapped forms", () => {
  equal(parseIp("10.0.0.1")?.join(","), "0,0,0,0,0,0,0,0,0,0,255,255,10,0,0,1");
  equal(parseIp("::ffff:10.0.0.1")?.join(","), "0,0,0,0,0,0,0,0,0,0,255,255,10,0,0,1");
  equal(parseIp("::1")?.at(15), 1);
  equal(parseIp("2001:db8::8a2e:370:7334")?.[1], 0x01);
  equal(parseIp("[fe80::1%eth0]")?.[0], 0xfe);
  for (const bad of ["256.0.0.1", "1.2.3", "1::2::3", "gggg::", "1:2:3:4:5:6:7:8:9", "", "abc"]) {
    equal(parseIp(bad), null, bad);
  }
});

Deno.test("CidrSet matches IPv4 and IPv6 blocks, mapped addresses included", () => {
  const set = new CidrSet(["10.0.0.0/8", "192.168.1.7", "fd00::/8"]);
  equal(set.contains("10.200.3.4"), true);
  equal(set.contains("::ffff:10.1.1.1"), true);
  equal(set.contains("11.0.0.1"), false);
  equal(set.contains("192.168.1.7"), true);
  equal(set.contains("192.168.1.8"), false);
  equal(set.contains("fd12::1"), true);
  equal(set.contains("fe80::1"), false);
  equal(set.contains("nonsense"), false);
  equal(new CidrSet([]).empty, true);
  equal(parseCidr("10.0.0.0/33"), null);
  equal(parseCidr("::/129"), null);
  throws(() => new CidrSet(["10.0.0.0/x"]), TypeError);
});

Deno.test("canonicalIp writes one RFC 5952 form for every spelling of an address", async (t) => {
  const cases: [string, string][] = [
    ["2001:db8:0:0:0:0:0:5", "2001:db8::5"],
    ["2001:0DB8:0000:0000:0000:0000:0000:0005", "2001:db8::5"],
    ["2001:db8::5", "2001:db8::5"],
    ["0:0:0:0:0:ffff:102:304", "1.2.3.4"],
    ["::ffff:1.2.3.4", "1.2.3.4"],
    ["::FFFF:10.0.0.1", "10.0.0.1"],
    ["1.2.3.4", "1.2.3.4"],
    ["0:0:0:0:0:0:0:0", "::"],
    ["0:0:0:0:0:0:0:1", "::1"],
    ["1:0:0:0:0:0:0:0", "1::"],
    // §4.2.2: one zero group is not compressed.
    ["2001:db8:0:1:1:1:1:1", "2001:db8:0:1:1:1:1:1"],
    // §4.2.3: the longest run wins; of equal runs, the first.
    ["2001:0:0:1:0:0:0:1", "2001:0:0:1::1"],
    ["2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"],
    ["[fe80::1%eth0]", "fe80::1"],
    ["::102:304", "::102:304"],
    [" 2001:db8::5 ", "2001:db8::5"],
  ];
  for (const [input, expected] of cases) {
    await t.step(input, () => equal(canonicalIp(input), expected));
  }
  await t.step("not an address", () => {
    for (const bad of ["not-an-ip", "", "1.2.3", "2001:db8::5::1", "12345::"]) equal(canonicalIp(bad), null, bad);
  });
  await t.step("formatIp of parsed bytes round-trips", () => {
    for (const text of ["2001:db8::5", "::1", "1.2.3.4", "fe80::a:b:c:d"]) equal(formatIp(parseIp(text)!), text);
  });
});
