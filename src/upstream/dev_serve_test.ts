import { deepEqual, equal, ok } from "node:assert/strict";
import { unzipSync } from "fflate";
import { ManualClock } from "../util/clock.ts";
import { Upstream } from "./client.ts";
import { devToken } from "./dev_accounts.ts";
import { devRecordId } from "./dev_records.ts";
import { serveDevApi } from "./dev_serve.ts";

Deno.test("serveDevApi answers the client over a real socket", async () => {
  const clock = new ManualClock();
  const server = serveDevApi({ port: 0, hostname: "127.0.0.1", clock });
  try {
    ok(/^http:\/\/127\.0\.0\.1:\d+$/.test(server.url), server.url);
    const up = new Upstream({ baseUrl: server.url, clock });
    deepEqual(await up.me(devToken(100, "ja-JP")), { id: 100, name: "Alice", language: "ja-JP" });
    const login = await up.login("bob@dev.local", "password");
    equal(login.id, 200);
    equal((await up.record(devRecordId(200, 1))).player, 200);
    const chart = await up.chart(6);
    equal(chart.file, `${server.url}/files/chart-6.zip`);

    // Read the zip the way a prober would: the tail, then one entry's bytes.
    const size = server.api.state.archive(6)!.bytes.length;
    const tail = await up.fetchTail(chart.file!, 200);
    equal(tail.partial, true);
    equal(tail.totalSize, size);
    const head = await up.fetchRange(chart.file!, 0, size - 1);
    deepEqual(Object.keys(unzipSync(head.bytes)), ["info.yml", "chart.json", "music.ogg"]);

    // A server ignoring Range: the client stops reading once it has the bytes.
    server.api.state.addChart({ id: 8, ignoreRange: true, compress: false, audio: { durationSecs: 60 } });
    const big = server.api.state.archive(8)!.bytes;
    ok(big.length > 1_000_000);
    const part = await up.fetchRange(`${server.url}/files/chart-8.zip`, 0, 99);
    equal(part.partial, false);
    deepEqual(part.bytes, big.slice(0, 100));

    const ranges = server.api.state.requests.filter((r) => r.endpoint === "files").map((r) => [r.range, r.status]);
    deepEqual(ranges, [["bytes=-200", 206], [`bytes=0-${size - 1}`, 206], ["bytes=0-99", 200]]);
  } finally {
    await server.close();
  }
});
