/**
 * The console `benchmark` command in the wired process (src/app.ts; spec 3
 * §4.2, issue 8): it runs on virtual sessions, prints its report, stores it
 * in the durable store and leaves nothing behind; one runs at a time, and
 * stopping the process stops a running one.
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import type { App } from "../src/app.ts";
import type { ConsoleRegistry } from "../src/console/mod.ts";
import { serveDevApi } from "../src/upstream/mod.ts";
import { appConfig, startTestApp } from "./support/app.ts";
import { dataDirs } from "./support/persistence_stack.ts";

const dirs = dataDirs();

/** The app's command registry (the server holds it as its in-game console runner). */
function consoleOf(app: App): ConsoleRegistry {
  return app.cli as unknown as ConsoleRegistry;
}

function leftovers(app: App): { rooms: string[]; users: number[] } {
  const core = app.server.core;
  return {
    rooms: [...core.rooms.keys()].filter((id) => id.startsWith("bench-")),
    users: [...core.users.keys()].filter((id) => id < 0),
  };
}

async function withApp(fn: (app: App) => Promise<void>): Promise<void> {
  const dev = serveDevApi({ port: 0 });
  try {
    const config = appConfig(await dirs.fresh(), dev.url, { cli_enabled: false });
    const app = startTestApp(config);
    try {
      await app.ready;
      await fn(app);
    } finally {
      await app.stop();
    }
  } finally {
    await dev.close();
  }
}

Deno.test("console benchmark in the wired app", async (t) => {
  try {
    await t.step("prints and stores its report, refuses a second run meanwhile, leaves nothing behind", async () => {
      await withApp(async (app) => {
        const cli = consoleOf(app);
        // System clock: a 2 s run of one room (2 virtual players).
        const running = cli.execute("benchmark 2 1", { kind: "console" });
        const second = await cli.execute("benchmark run fixed --duration 5 --rooms 1", { kind: "console" });
        deepEqual(second, ["error: Cannot run the benchmark: a benchmark is already running"]);
        const lines = await running;
        equal(lines[0], "benchmark fixed: 2 s, 1 rooms, 2 players per room");
        const head = /^benchmark fixed 1 rooms 2 s — report ([0-9a-f-]{36})$/.exec(lines[1]!);
        ok(head, lines.join("\n"));
        ok(lines.includes("cleanup complete"), lines.join("\n"));
        match(lines.find((l) => l.startsWith("operations "))!, /^operations \d+, failed 0;/);
        deepEqual(leftovers(app), { rooms: [], users: [] });
        equal(app.server.core.sessions.size, 0);
        await app.persistence.flush();
        const stored = await app.persistence.queries.benchmarkReports(5);
        equal(stored.length, 1);
        equal(stored[0]!.report_id, head[1]);
        equal(stored[0]!.title, "benchmark fixed 1 rooms 2 s");
        const report = stored[0]!.report as { mode: string; rooms: { peak: number }; cleanup: unknown };
        equal(report.mode, "fixed");
        equal(report.rooms.peak, 1);
        deepEqual(report.cleanup, { rooms: 0, users: 0, sessions: 0 });
      });
    });

    await t.step("stops with the app and cleans up", async () => {
      let lines: Promise<string[]> | null = null;
      let app: App | null = null;
      await withApp((a) => {
        app = a;
        // Started synchronously up to its first wait; stop() in withApp then aborts it.
        lines = consoleOf(a).execute("benchmark run fixed --duration 1h --rooms 2", { kind: "console" });
        return Promise.resolve();
      });
      const out = await lines!;
      match(out[1]!, /^benchmark fixed 2 rooms 3600 s \(interrupted\) — report /);
      ok(out.includes("cleanup complete"), out.join("\n"));
      deepEqual(leftovers(app!), { rooms: [], users: [] });
    });
  } finally {
    await dirs.cleanup();
  }
});
