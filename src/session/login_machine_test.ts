import { deepEqual, equal } from "node:assert/strict";
import {
  initialLogin,
  type LoginEffect,
  type LoginEvent,
  type LoginLimits,
  type LoginState,
  loginStep,
  PRE_AUTH_LIMITS,
} from "./login_machine.ts";

const LIMITS: LoginLimits = { ...PRE_AUTH_LIMITS, authTimeoutMs: 15_000 };

/** Runs events from a fresh connection (connected at t=0); returns the last state and every effect in order. */
function run(...events: LoginEvent[]): { state: LoginState; effects: LoginEffect[] } {
  let state = initialLogin(0);
  const effects: LoginEffect[] = [];
  for (const event of events) {
    const t = loginStep(state, event, LIMITS);
    state = t.state;
    effects.push(...t.effects);
  }
  return { state, effects };
}

/** Effects of the last event only. */
function last(...events: LoginEvent[]): { state: LoginState; effects: readonly LoginEffect[] } {
  const before = run(...events.slice(0, -1)).state;
  return loginStep(before, events.at(-1)!, LIMITS);
}

const begin: LoginEvent = { kind: "begin" };
const durable = (journaled = true, now = 100): LoginEvent => ({ kind: "durable", journaled, now });
const bind: LoginEvent = { kind: "bind" };
const flushed: LoginEvent = { kind: "flushed" };
const activate: LoginEvent = { kind: "activate" };
const hold = (bytes = 10, control = false, now = 200): LoginEvent => ({ kind: "hold", bytes, control, now });
/** A journaled, bound login waiting for its reply's flush. */
const accepted = [begin, durable(), bind];

Deno.test("login machine: the happy path Connected → Authenticating → DurableAccepted → ResponseFlushed → Active", () => {
  const phases = [begin, durable(), bind, flushed, activate].map((_, i, all) =>
    run(...all.slice(0, i + 1)).state.phase
  );
  deepEqual(phases, ["authenticating", "durable-accepted", "durable-accepted", "response-flushed", "active"]);
  const done = run(begin, durable(), bind, hold(), hold(), flushed, activate);
  deepEqual(done.effects, [{ t: "hold" }, { t: "hold" }, { t: "release" }, { t: "take-over" }]);
  equal(done.state.gate, null, "the gate is gone once Active");
  equal(done.state.failure, null);
});

Deno.test("login machine: each transition only from its own phase", async (t) => {
  await t.step("begin twice: the second is rejected and changes nothing", () => {
    const r = last(begin, begin);
    deepEqual(r.effects, [{ t: "rejected" }]);
    equal(r.state.phase, "authenticating");
    deepEqual(last(...accepted, flushed, activate, begin).effects, [{ t: "rejected" }]);
  });
  await t.step("flushed before durable, activate before flushed: no change", () => {
    equal(last(begin, flushed).state.phase, "authenticating");
    const early = last(...accepted, activate);
    equal(early.state.phase, "durable-accepted", "no takeover before the reply is on the wire");
    deepEqual(early.effects, []);
  });
  await t.step("bind outside DurableAccepted is ignored", () => {
    equal(last(begin, bind).state.bound, false);
  });
  await t.step("a login without a gate (the room monitor) activates from Authenticating", () => {
    const r = last(begin, activate);
    equal(r.state.phase, "active");
    deepEqual(r.effects, []);
  });
  await t.step("a console login (journaled, never bound) releases its gate without a takeover", () => {
    deepEqual(last(begin, durable(), flushed, activate).effects, [{ t: "release" }]);
  });
});

Deno.test("login machine: a refused login fails and closes once its error reply is flushed", async (t) => {
  for (const reason of ["rejected", "auth-failed"] as const) {
    await t.step(reason, () => {
      const r = last(begin, { kind: "refuse", reason });
      equal(r.state.phase, "failed");
      deepEqual(r.effects, [{ t: "close-after-reply", reason }]);
    });
  }
  await t.step("nothing to refuse once durable", () => {
    deepEqual(last(...accepted, { kind: "refuse", reason: "rejected" }).effects, []);
  });
});

Deno.test("login machine: rollback of every pre-Active failure (spec 3 §3.2)", async (t) => {
  const cases = [
    { reason: "shutdown", close: "shutdown" },
    { reason: "banned", close: "rejected" },
    { reason: "superseded", close: "replaced" },
    { reason: "auth-timeout", close: "auth-timeout" },
  ] as const;
  for (const { reason, close } of cases) {
    await t.step(`${reason} in DurableAccepted: held frames dropped, binding cleared, compensated, closed`, () => {
      const r = last(...accepted, hold(), { kind: "fail", reason });
      equal(r.state.phase, "failed");
      equal(r.state.failure, reason);
      deepEqual(r.effects, [
        { t: "discard" },
        { t: "unbind" },
        { t: "compensate", why: reason },
        { t: "close", reason: close },
      ]);
    });
    await t.step(`${reason} in ResponseFlushed rolls back the same way`, () => {
      deepEqual(last(...accepted, flushed, { kind: "fail", reason }).effects, [
        { t: "discard" },
        { t: "unbind" },
        { t: "compensate", why: reason },
        { t: "close", reason: close },
      ]);
    });
  }
  await t.step("without a journal or binding there is nothing to compensate or clear", () => {
    deepEqual(last(begin, durable(false), { kind: "fail", reason: "shutdown" }).effects, [
      { t: "discard" },
      { t: "close", reason: "shutdown" },
    ]);
  });
  await t.step("after Active a failure changes nothing (the old binding was already replaced)", () => {
    const r = last(...accepted, flushed, activate, { kind: "fail", reason: "banned" });
    equal(r.state.phase, "active");
    deepEqual(r.effects, []);
  });
  await t.step("a second failure is not rolled back twice", () => {
    deepEqual(last(...accepted, { kind: "fail", reason: "shutdown" }, { kind: "fail", reason: "banned" }).effects, []);
  });
});

Deno.test("login machine: the connection closing before Active rolls back without another close", async (t) => {
  await t.step("in DurableAccepted", () => {
    const r = last(...accepted, { kind: "closed" });
    equal(r.state.phase, "closed");
    equal(r.state.failure, "closed");
    deepEqual(r.effects, [{ t: "discard" }, { t: "unbind" }, { t: "compensate", why: "closed" }]);
  });
  await t.step("before any login: nothing to undo", () => {
    deepEqual(last({ kind: "closed" }).effects, []);
  });
  await t.step("after Active or after a failure: just closed", () => {
    deepEqual(last(...accepted, flushed, activate, { kind: "closed" }).effects, []);
    const failed = last(...accepted, { kind: "fail", reason: "shutdown" }, { kind: "closed" });
    equal(failed.state.phase, "closed");
    deepEqual(failed.effects, []);
  });
  await t.step("a journal record landing after the close is still compensated", () => {
    deepEqual(last(begin, { kind: "closed" }, durable(true)).effects, [{ t: "compensate", why: "closed" }]);
    deepEqual(last(begin, { kind: "closed" }, durable(false)).effects, []);
  });
});

Deno.test("login machine: pre-activation gate limits of spec 3 §8", async (t) => {
  await t.step("256 frames fit; the 257th fails the login and counts compat_queue_drop", () => {
    const holds = Array.from({ length: PRE_AUTH_LIMITS.maxEvents }, () => hold(1));
    const full = run(...accepted, ...holds);
    equal(full.state.gate?.events, 256);
    equal(full.state.phase, "durable-accepted");
    const r = loginStep(full.state, hold(1), LIMITS);
    deepEqual(r.effects, [
      { t: "count", counter: "compat_queue_drop" },
      { t: "discard" },
      { t: "unbind" },
      { t: "compensate", why: "overflow" },
      { t: "close", reason: "slow-client" },
    ]);
    equal(r.state.failure, "overflow");
  });
  await t.step("1 MiB of bytes; a control frame that does not fit counts gate_control_overflow", () => {
    const half = run(...accepted, hold(600 * 1024));
    const r = loginStep(half.state, hold(600 * 1024, true), LIMITS);
    deepEqual(r.effects[0], { t: "count", counter: "gate_control_overflow" });
    equal(r.state.failure, "control-overflow");
    equal(r.effects.at(-1)?.t, "close");
  });
  await t.step("8 s: the sweep fails an unflushed login without counting a drop", () => {
    const opened = run(...accepted).state; // gate opened at t=100
    deepEqual(loginStep(opened, { kind: "tick", now: 100 + 7999 }, LIMITS).effects, []);
    const r = loginStep(opened, { kind: "tick", now: 100 + 8000 }, LIMITS);
    equal(r.state.failure, "expired");
    deepEqual(r.effects, [
      { t: "discard" },
      { t: "unbind" },
      { t: "compensate", why: "expired" },
      { t: "close", reason: "auth-timeout" },
    ]);
  });
  await t.step("a frame arriving after 8 s fails the login too", () => {
    equal(last(...accepted, hold(1, false, 100 + 8000)).state.failure, "expired");
  });
  await t.step("no gate, no holding: frames pushed outside a login are not the machine's", () => {
    deepEqual(last(begin, hold()).effects, []);
  });
});

Deno.test("login machine: the authentication timeout counts from the connection", () => {
  deepEqual(last({ kind: "tick", now: 14_999 }).effects, []);
  deepEqual(last({ kind: "tick", now: 15_000 }).effects, [{ t: "close", reason: "auth-timeout" }]);
  equal(last(begin, { kind: "tick", now: 15_000 }).state.failure, "auth-timeout");
  deepEqual(last(...accepted, flushed, activate, { kind: "tick", now: 60_000 }).effects, [], "not once Active");
});
