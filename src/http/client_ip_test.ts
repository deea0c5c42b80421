import { equal } from "node:assert/strict";
import { forwardedFor, forwardedHttps, parseIp } from "./client_ip.ts";

Deno.test("parseIp accepts IPv4, IPv6, bracketed and ported forms and refuses the rest", async (t) => {
  const cases: [string, string | null][] = [
    ["203.0.113.7", "203.0.113.7"],
    [" 203.0.113.7 ", "203.0.113.7"],
    ["203.0.113.7:5555", "203.0.113.7"],
    ["2001:DB8::1", "2001:db8::1"],
    ["[2001:db8::1]:443", "2001:db8::1"],
    ["::ffff:198.51.100.2", "198.51.100.2"],
    ["256.1.1.1", null],
    ["unknown", null],
    ["", null],
    ["_hidden", null],
  ];
  for (const [input, expected] of cases) await t.step(JSON.stringify(input), () => equal(parseIp(input), expected));
});

Deno.test("forwardedFor believes the rightmost valid entry; forwardedHttps reads the last proto", () => {
  equal(forwardedFor("198.51.100.1, 203.0.113.7", "10.0.0.1"), "203.0.113.7");
  equal(forwardedFor("198.51.100.1, garbage", "10.0.0.1"), "198.51.100.1");
  equal(forwardedFor(null, "10.0.0.1"), "10.0.0.1");
  equal(forwardedFor("nonsense", "10.0.0.1"), "10.0.0.1");
  equal(forwardedHttps("http, https"), true);
  equal(forwardedHttps("http"), false);
  equal(forwardedHttps(null), false);
});
