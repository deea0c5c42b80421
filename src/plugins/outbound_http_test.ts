import { rejects } from "node:assert/strict";
import { SystemClock } from "../util/clock.ts";
import { AddressPolicy } from "./address_policy.ts";
import { OutboundHttp } from "./outbound_http.ts";

const limits = { timeoutMs: 5000, maxResponseBytes: 1024, maxRequestBytes: 16 };

Deno.test("outbound HTTP refuses a name when any address it resolves to is internal", async () => {
  const http = new OutboundHttp(new AddressPolicy(false), limits, new SystemClock(), (name) =>
    Promise.resolve(
      name === "rebind.example" ? [{ address: "93.184.216.34", family: 4 }, { address: "127.0.0.1", family: 4 }] : [],
    ));
  await rejects(
    http.request("http://rebind.example/", "GET", [], new Uint8Array()),
    /rebind\.example resolves to 127\.0\.0\.1 is an internal address/,
  );
  await rejects(http.request("http://nothing.example/", "GET", [], new Uint8Array()), /has no address/);
  await rejects(http.request("http://x.example/", "BREW", [], new Uint8Array()), /unsupported method/);
  await rejects(http.request("not a url", "GET", [], new Uint8Array()), /invalid URL/);
  await rejects(http.request("http://x.example/", "POST", [], new Uint8Array(17)), /request body is over 16 bytes/);
});
