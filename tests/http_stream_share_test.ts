/**
 * Stream slots are shared per client (issue 14 "Caps are global"): one
 * client could take all 1,024 SSE slots, after which everyone got 503. Each
 * client address (IPv6: its /64) now gets its share and a 429 past it;
 * others still get streams.
 */
import { deepEqual, equal } from "node:assert/strict";
import { waitUntil } from "./support/describe.ts";
import { SseReader, startHttpHarness } from "./support/http.ts";

Deno.test("http one client's streams stop at its share; another client still gets one", async () => {
  const h = await startHttpHarness({ http: { maxStreams: 64 } });
  const share = h.http.context.tracker.perClient;
  const readers: SseReader[] = [];
  try {
    const open = (path: string, ip: string) => h.http.request(path, {}, { ip });
    for (let i = 0; i < share; i++) {
      const r = await open(i % 2 ? "/api/events" : "/rooms/listen", `2001:db8:0:7::${i + 1}`);
      equal(r.status, 200);
      readers.push(new SseReader(r.body!));
    }
    // Any address of the same /64 is the same client.
    const over = await open("/api/events", "2001:db8:0:7:ffff::1");
    deepEqual([over.status, await over.json()], [429, { error: "too many open streams from this address", code: 429 }]);
    const other = await open("/api/events", "198.51.100.9");
    equal(other.status, 200);
    readers.push(new SseReader(other.body!));
    // A closed stream gives its slot back to its client.
    await readers.shift()!.cancel();
    await waitUntil(() => h.http.context.tracker.size === share, "slot released");
    const again = await open("/api/events", "2001:db8:0:7::99");
    equal(again.status, 200);
    readers.push(new SseReader(again.body!));
  } finally {
    for (const r of readers) await r.cancel();
    await h.close();
  }
});
