import { deepEqual, equal, ok } from "node:assert/strict";
import { MONITOR_BASE, monitorIdsFor, PLAYER_BASE, runGenerators, splitRooms } from "./generator.ts";

Deno.test("splitRooms gives each process a contiguous share with disjoint player and monitor ids", () => {
  deepEqual(splitRooms(10, 8, 1), [{ rooms: 10, idBase: PLAYER_BASE, monitorBase: MONITOR_BASE }]);
  deepEqual(splitRooms(1000, 8, 3), [
    { rooms: 334, idBase: 100000, monitorBase: 900000 },
    { rooms: 333, idBase: 100000 + 334 * 8, monitorBase: 900334 },
    { rooms: 333, idBase: 100000 + 667 * 8, monitorBase: 900667 },
  ]);
  deepEqual(monitorIdsFor(3), [900000, 900001, 900002]);
});

Deno.test("runGenerators stops a generator that outlives its limit, which still writes its report", async () => {
  // A game port that accepts and never answers: the session's login waits, the hold would last 60 s.
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const conns: Deno.Conn[] = [];
  const accepting = (async () => {
    for await (const c of listener) conns.push(c);
  })();
  const dir = await Deno.makeTempDir({ prefix: "bench-gen-test-" });
  try {
    const t0 = performance.now();
    const [report] = await runGenerators(
      "sessions",
      { port: listener.addr.port, pid: Deno.pid, upstream: "http://127.0.0.1:9" },
      [["--sessions", "1", "--duration", "60"]],
      dir,
      3000,
    ) as { interrupted: boolean }[];
    ok(performance.now() - t0 < 40_000, "stopped long before the 60 s hold");
    equal(report!.interrupted, true);
  } finally {
    listener.close();
    await accepting.catch(() => {});
    for (const c of conns) c.close();
    await Deno.remove(dir, { recursive: true });
  }
});
