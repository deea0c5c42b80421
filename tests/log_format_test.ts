/**
 * `log_format: json` as users run it (`deno task start` flags, stdin at end
 * of file, as under a service manager): every line the process writes is
 * one JSON object with `time`, `level` and `msg`, start-up to shutdown, for
 * log shippers.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { serveDevApi } from "../src/upstream/mod.ts";
import { freePort, spawnServer } from "./support/child_server.ts";
import { dataDirs } from "./support/persistence_stack.ts";

Deno.test("log_format json: every line from start to stop is a JSON object", async () => {
  const dev = serveDevApi({ port: 0 });
  const dirs = dataDirs();
  const server = spawnServer({
    port: freePort(),
    dataDir: await dirs.fresh(),
    upstream: dev.url,
    flags: ["--log-format", "json", "--no-cli"],
  });
  try {
    await server.ready;
    server.child.kill("SIGTERM");
    const status = await server.child.status;
    await server.done;
    equal(status.code, 0);
    const lines = server.lines.filter((l) => l.trim());
    ok(lines.length > 5, `lines: ${lines.length}`);
    for (const line of lines) {
      const record = JSON.parse(line) as Record<string, unknown>;
      deepEqual(Object.keys(record).slice(0, 3), ["time", "level", "msg"], line);
      ok(!Number.isNaN(Date.parse(record.time as string)), line);
    }
    ok(lines.some((l) => JSON.parse(l).msg === "game server listening"));
    ok(lines.some((l) => JSON.parse(l).msg === "shutting down"));
  } finally {
    try {
      server.child.kill("SIGKILL");
    } catch {
      // Already exited.
    }
    await server.child.status;
    await server.done;
    await dev.close();
    await dirs.cleanup();
  }
});
