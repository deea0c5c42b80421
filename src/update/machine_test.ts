import assert from "node:assert/strict";
import {
  initialState,
  step,
  type StepContext,
  type UpdateEffect,
  type UpdateEvent,
  type UpdateState,
} from "./machine.ts";
import type { Release } from "./manifest.ts";

const MIN = 60_000;
const release = (version: string): Release => ({
  version,
  url: `http://x/${version}`,
  sha256: "0".repeat(64),
  size: 3,
});

/** Drives the machine like the updater does, recording effects. */
class Driver {
  state: UpdateState;
  now = 0;
  players = 0;
  effects: UpdateEffect[] = [];

  constructor(auto = false) {
    this.state = initialState("1.0.0", auto);
  }

  send(event: UpdateEvent): UpdateEffect[] {
    const ctx: StepContext = { now: this.now, players: this.players, minIdleMs: 10 * MIN };
    const result = step(this.state, event, ctx);
    this.state = result.state;
    this.effects.push(...result.effects);
    return result.effects.filter((e) => e.kind !== "log") as UpdateEffect[];
  }
}

/** The pending update, read through a call (assertions narrow `d.state.pending` otherwise). */
const pendingOf = (d: Driver) => d.state.pending;
const kinds = (effects: readonly UpdateEffect[]) => effects.map((e) => e.kind);

Deno.test("update machine: an automatic update waits for min_idle_minutes without players", () => {
  const d = new Driver(true);
  d.players = 2;
  assert.deepEqual(kinds(d.send({ type: "check" })), ["fetch_manifest"]);
  assert.deepEqual(kinds(d.send({ type: "checked", release: release("1.1.0") })), []);
  assert.equal(d.state.pending?.mode, "auto");
  d.now = 30 * MIN;
  assert.deepEqual(kinds(d.send({ type: "tick" })), [], "players online: waits");
  d.players = 0;
  d.now = 31 * MIN;
  assert.deepEqual(kinds(d.send({ type: "tick" })), [], "idle clock starts");
  assert.equal(d.state.idleSince, 31 * MIN);
  d.now = 40 * MIN;
  assert.deepEqual(kinds(d.send({ type: "tick" })), []);
  d.players = 1;
  d.now = 41 * MIN;
  d.send({ type: "tick" });
  assert.equal(d.state.idleSince, null, "a player coming back resets the idle time");
  d.players = 0;
  d.now = 42 * MIN;
  d.send({ type: "tick" });
  d.now = 52 * MIN;
  assert.deepEqual(kinds(d.send({ type: "tick" })), ["download"]);
  assert.deepEqual(kinds(d.send({ type: "downloaded" })), ["install"]);
  assert.deepEqual(kinds(d.send({ type: "installed" })), ["restart"]);
  assert.equal(d.state.phase, "restarting");
});

Deno.test("update machine: schedule is idempotent and shares the pending update with auto", () => {
  const d = new Driver(false);
  d.players = 1;
  d.send({ type: "check" });
  d.send({ type: "checked", release: release("1.2.0") });
  assert.equal(d.state.pending, null, "auto off: nothing pending");
  d.now = 5;
  d.send({ type: "request", mode: "scheduled" });
  const first = d.state.pending;
  d.now = 9;
  d.send({ type: "request", mode: "scheduled" });
  assert.equal(d.state.pending, first, "asking again changes nothing");
  d.send({ type: "auto", on: true });
  assert.equal(d.state.pending, first, "auto joins the one pending update");
  assert.equal(pendingOf(d)?.release?.version, "1.2.0");
  // A later check naming a newer release moves the pending update to it.
  d.send({ type: "check" });
  d.send({ type: "checked", release: release("1.3.0") });
  assert.equal(pendingOf(d)?.release?.version, "1.3.0");
  assert.equal(pendingOf(d)?.since, 5);
});

Deno.test("update machine: apply checks first, force ignores players, neither moves backwards unless forced", () => {
  const d = new Driver();
  assert.deepEqual(kinds(d.send({ type: "request", mode: "apply" })), ["fetch_manifest"], "nothing known: check");
  assert.deepEqual(kinds(d.send({ type: "checked", release: release("1.0.1") })), ["download"], "nobody online");

  const same = new Driver();
  same.send({ type: "request", mode: "apply" });
  const effects = same.send({ type: "checked", release: release("1.0.0") });
  assert.deepEqual(effects, [{
    kind: "settled",
    ok: false,
    code: "REFUSED",
    reason: "no newer release: the manifest names 1.0.0, this is 1.0.0",
  }]);
  assert.equal(same.state.pending, null);

  const forced = new Driver();
  forced.players = 7;
  forced.send({ type: "request", mode: "force" });
  assert.deepEqual(
    kinds(forced.send({ type: "checked", release: release("0.9.0") })),
    ["download"],
    "force may go back",
  );

  const failed = new Driver();
  failed.send({ type: "request", mode: "apply" });
  assert.deepEqual(kinds(failed.send({ type: "check_failed", error: "HTTP 500", code: "MANIFEST" })), ["settled"]);
  assert.equal(failed.state.lastCheck?.outcome, "failed");
});

Deno.test("update machine: cancel aborts the download; failures drop the pending update", () => {
  const d = new Driver();
  d.send({ type: "request", mode: "force" });
  d.send({ type: "checked", release: release("2.0.0") });
  assert.equal(d.state.phase, "downloading");
  assert.deepEqual(kinds(d.send({ type: "cancel" })), ["abort_download", "settled"]);
  assert.deepEqual([d.state.phase, d.state.pending], ["idle", null]);
  assert.deepEqual(kinds(d.send({ type: "downloaded" })), [], "a late outcome of the cancelled download is ignored");

  d.send({ type: "request", mode: "force" });
  assert.equal(d.state.phase, "downloading", "the known release is used without a second check");
  assert.deepEqual(kinds(d.send({ type: "download_failed", error: "checksum", code: "CHECKSUM" })), ["settled"]);
  assert.equal(d.state.lastError, "checksum");

  d.send({ type: "request", mode: "force" });
  d.send({ type: "downloaded" });
  assert.deepEqual(kinds(d.send({ type: "cancel" })), [], "too late once installing");
  assert.equal(d.state.phase, "installing");
  assert.deepEqual(kinds(d.send({ type: "install_failed", error: "EACCES", code: "INSTALL" })), ["settled"]);
  assert.equal(d.state.phase, "idle");
});

Deno.test("update machine: turning auto off drops an automatic update, not a scheduled one", () => {
  const d = new Driver(true);
  d.players = 1;
  d.send({ type: "check" });
  d.send({ type: "checked", release: release("1.1.0") });
  assert.deepEqual(kinds(d.send({ type: "auto", on: false })), ["settled"]);
  assert.equal(d.state.pending, null);
  d.send({ type: "request", mode: "scheduled" });
  d.send({ type: "auto", on: false });
  assert.equal(pendingOf(d)?.mode, "scheduled");
});
