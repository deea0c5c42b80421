import { equal, throws } from "node:assert/strict";
import { CidrSet, parseCidr, parseIp } from "./cidr.ts";

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
