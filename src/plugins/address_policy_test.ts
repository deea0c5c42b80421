import { equal, match } from "node:assert/strict";
import { AddressPolicy } from "./address_policy.ts";

Deno.test("the address policy refuses internal addresses and names unless private networks are allowed", () => {
  const policy = new AddressPolicy(false);
  for (
    const ip of [
      "127.0.0.1",
      "10.0.0.1",
      "172.16.5.4",
      "192.168.1.1",
      "169.254.169.254",
      "100.64.0.1",
      "0.0.0.0",
      "224.0.0.1",
      "255.255.255.255",
      "::1",
      "::",
      "fe80::1",
      "fc00::1",
      "fd00:ec2::254",
      "ff02::1",
      "::ffff:10.0.0.1",
      "64:ff9b::a00:1",
      "2002:7f00:1::",
      "not-an-ip",
    ]
  ) match(policy.refusesAddress(ip) ?? "", /internal address|not an IP address/, ip);
  for (const ip of ["93.184.216.34", "1.1.1.1", "2606:4700:4700::1111", "::ffff:8.8.8.8"]) {
    equal(policy.refusesAddress(ip), null, ip);
  }
  for (const name of ["localhost", "x.localhost", "metadata.google.internal", "METADATA.google.internal."]) {
    equal(typeof policy.refusesName(name), "string", name);
  }
  equal(policy.refusesName("example.org"), null);
  const open = new AddressPolicy(true);
  equal(open.refusesAddress("127.0.0.1"), null);
  equal(open.refusesName("localhost"), null);
});
