import { deepEqual } from "node:assert/strict";
import { parseProxyHeader, V2_SIGNATURE } from "./proxy_protocol.ts";

const text = (s: string) => new TextEncoder().encode(s);

Deno.test("v1 headers: TCP4, TCP6, UNKNOWN, partial and malformed", () => {
  deepEqual(parseProxyHeader(text("PROXY TCP4 203.0.113.7 10.0.0.1 56324 12346\r\n\x01")), {
    kind: "header",
    length: 45,
    source: { ip: "203.0.113.7", port: 56324 },
  });
  deepEqual(parseProxyHeader(text("PROXY TCP6 2001:db8::1 ::1 1000 12346\r\n")).kind, "header");
  deepEqual(parseProxyHeader(text("PROXY UNKNOWN\r\n")), { kind: "header", length: 15, source: null });
  deepEqual(parseProxyHeader(text("PROXY TCP4 1.2.3.4")), { kind: "need-more" });
  deepEqual(parseProxyHeader(text("PRO")), { kind: "need-more" });
  deepEqual(parseProxyHeader(text("PROXY UDP4 1 2 3 4\r\n")).kind, "invalid");
  deepEqual(parseProxyHeader(text("PROXY " + "x".repeat(120))).kind, "invalid");
});

Deno.test("v2 headers: IPv4, IPv6, LOCAL and partial", () => {
  const v4 = new Uint8Array([
    ...V2_SIGNATURE,
    0x21,
    0x11,
    0,
    12,
    198,
    51,
    100,
    9,
    10,
    0,
    0,
    1,
    0xdb,
    0xf4,
    0x30,
    0x3a,
    0x01,
  ]);
  deepEqual(parseProxyHeader(v4), { kind: "header", length: 28, source: { ip: "198.51.100.9", port: 56308 } });
  deepEqual(parseProxyHeader(v4.subarray(0, 20)), { kind: "need-more" });
  const addr6 = [0x20, 0x01, 0x0d, 0xb8, ...Array(11).fill(0), 0x05];
  const v6 = new Uint8Array([...V2_SIGNATURE, 0x21, 0x21, 0, 36, ...addr6, ...Array(16).fill(0), 0x04, 0xd2, 0, 80]);
  // Canonical text (RFC 5952), so a ban on `2001:db8::5` matches.
  deepEqual(parseProxyHeader(v6), { kind: "header", length: 52, source: { ip: "2001:db8::5", port: 1234 } });
  const mapped = [...Array(10).fill(0), 0xff, 0xff, 1, 2, 3, 4];
  const v6mapped = new Uint8Array([...V2_SIGNATURE, 0x21, 0x21, 0, 36, ...mapped, ...Array(16).fill(0), 0, 1, 0, 80]);
  deepEqual(parseProxyHeader(v6mapped), { kind: "header", length: 52, source: { ip: "1.2.3.4", port: 1 } });
  const local = new Uint8Array([...V2_SIGNATURE, 0x20, 0x00, 0, 0]);
  deepEqual(parseProxyHeader(local), { kind: "header", length: 16, source: null });
  deepEqual(parseProxyHeader(new Uint8Array([...V2_SIGNATURE, 0x31, 0x11, 0, 0])).kind, "invalid");
});

Deno.test("ordinary protocol bytes are not a header", () => {
  deepEqual(parseProxyHeader(new Uint8Array([0x01, 0x22, 0x01])), { kind: "none" });
  deepEqual(parseProxyHeader(new Uint8Array([0x0d, 0x0a, 0x0d])), { kind: "need-more" });
});

Deno.test("v1 addresses must parse and match the announced family; they come out canonical", () => {
  deepEqual(parseProxyHeader(text("PROXY TCP6 2001:DB8:0:0:0:0:0:5 ::1 1000 12346\r\n")), {
    kind: "header",
    length: 48,
    source: { ip: "2001:db8::5", port: 1000 },
  });
  deepEqual(parseProxyHeader(text("PROXY TCP6 ::ffff:1.2.3.4 ::1 1000 12346\r\n")), {
    kind: "header",
    length: 42,
    source: { ip: "1.2.3.4", port: 1000 },
  });
  for (
    const line of [
      "PROXY TCP4 not-an-ip 10.0.0.1 1000 12346",
      "PROXY TCP4 203.0.113.7 nowhere 1000 12346",
      "PROXY TCP4 256.1.1.1 10.0.0.1 1000 12346",
      "PROXY TCP4 2001:db8::1 10.0.0.1 1000 12346",
      "PROXY TCP6 203.0.113.7 ::1 1000 12346",
      "PROXY TCP6 2001:db8::1::2 ::1 1000 12346",
      "PROXY TCP6 [2001:db8::1] ::1 1000 12346",
    ]
  ) {
    deepEqual(parseProxyHeader(text(line + "\r\n")), { kind: "invalid", reason: "malformed v1 address" }, line);
  }
});
