import { deepEqual, equal, match } from "node:assert/strict";
import { appReadiness, STORE_DOWN_ISSUE } from "./app_health.ts";

function fake() {
  const state = { now: 0, shuttingDown: false, store_up: true, write_failures: 0, sync_failures: 0 };
  const health = appReadiness({
    shuttingDown: () => state.shuttingDown,
    persistence: () => ({
      store_up: state.store_up,
      counters: { write_failures: state.write_failures, sync_failures: state.sync_failures },
    }),
    now: () => state.now,
  });
  return { state, health };
}

Deno.test("appReadiness: ready, store down, shutting down", () => {
  const { state, health } = fake();
  deepEqual(health(), { ready: true, issues: [] });
  state.store_up = false;
  deepEqual(health(), { ready: false, issues: [STORE_DOWN_ISSUE] });
  state.shuttingDown = true;
  deepEqual(health(), { ready: false, issues: ["shutting down", STORE_DOWN_ISSUE] });
  state.store_up = true;
  state.shuttingDown = false;
  deepEqual(health(), { ready: true, issues: [] });
});

Deno.test("appReadiness: journal failures that keep happening within a minute, not a single one", () => {
  const { state, health } = fake();
  state.now = 10_000;
  state.write_failures = 1;
  equal(health().ready, true, "one failed append is logged and survived");
  state.now = 20_000;
  state.write_failures = 2;
  state.sync_failures = 1;
  const failing = health();
  equal(failing.ready, false);
  deepEqual(failing.issues.length, 1);
  match(failing.issues[0]!, /^journal writes failing: 3 write or fsync failures in the last 60 s/);
  state.now = 65_000;
  equal(health().ready, false, "the failures are still within the window");
  // No new failure for more than a minute: ready again.
  state.now = 81_000;
  deepEqual(health(), { ready: true, issues: [] });
  // They start again.
  for (let i = 0; i < 3; i++) {
    state.now += 5_000;
    state.write_failures++;
  }
  state.now += 1;
  equal(health().ready, false);
});
