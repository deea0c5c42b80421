import { deepEqual, equal } from "node:assert/strict";
import { ManualClock } from "../util/clock.ts";
import { LogHub } from "../util/log.ts";
import { PRE_AUTH_LIMITS } from "./login_machine.ts";
import { type LoginOwner, Session, type SessionHooks, type Transport } from "./session.ts";

/** A transport that records every write and never delivers input (the session is not run). */
class RecordingTransport implements Transport {
  written: number[] = [];
  closed = false;
  read(): Promise<number | null> {
    return new Promise(() => {});
  }
  write(p: Uint8Array): Promise<number> {
    this.written.push(...p);
    return Promise.resolve(p.length);
  }
  close(): void {
    this.closed = true;
  }
}

function setup() {
  const clock = new ManualClock();
  const transport = new RecordingTransport();
  const counted: string[] = [];
  const hooks: SessionHooks = { handle: () => {}, closed: () => {}, count: (name) => void counted.push(name) };
  const log = new LogHub({ level: "error", sink: () => {} }).logger();
  const session = new Session(transport, hooks, {
    id: 1,
    ip: "127.0.0.1",
    clock,
    log,
    heartbeatTimeoutMs: 60_000,
    authTimeoutMs: 60_000,
  });
  // As after `Authenticate(Ok(… Some(room)))`: room-scoped frames are allowed.
  session.clientInRoom = true;
  const owned: string[] = [];
  const owner: LoginOwner = {
    unbind: () => void owned.push("unbind"),
    compensate: (why) => void owned.push(`compensate ${why}`),
    takeOver: () => void owned.push("take-over"),
  };
  /**
   * Authenticating → DurableAccepted with a journaled, bound login; the promise resolves false when the login fails
   * before its reply (`seq`, default one never written) is flushed.
   */
  const openGate = (seq = Number.MAX_SAFE_INTEGER) => {
    session.login.begin();
    session.login.durable(owner, true, clock.monotonic());
    session.login.bound();
    return () => session.login.replyFlushed(seq);
  };
  return { clock, transport, counted, session, owned, openGate };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

Deno.test("session gate holds pushed frames until activation, then releases them after the reply in order", async () => {
  const { transport, counted, session, owned, openGate } = setup();
  openGate();
  equal(session.state, "durable-accepted");
  const seq = session.outbound.push(new Uint8Array([0xaa])); // the login reply, queued directly
  session.push(new Uint8Array([1]), false);
  session.push(new Uint8Array([2]), true);
  await tick();
  deepEqual(transport.written, [0xaa], "nothing but the reply before activation");
  equal(session.gatedFrames, 2);
  equal(await session.login.replyFlushed(seq), true);
  equal(session.state, "response-flushed");
  session.activate("normal", 5);
  await tick();
  deepEqual(transport.written, [0xaa, 1, 2]);
  equal(session.state, "active");
  session.push(new Uint8Array([3]), false);
  await tick();
  deepEqual(transport.written, [0xaa, 1, 2, 3], "after activation frames go straight out");
  deepEqual(counted, []);
  deepEqual(owned, ["take-over"]);
  session.close("eof");
});

Deno.test("session gate: the 257th event fails the login and counts compat_queue_drop", async () => {
  const { transport, counted, session, owned, openGate } = setup();
  const failed = openGate()();
  for (let i = 0; i < PRE_AUTH_LIMITS.maxEvents; i++) session.push(new Uint8Array([7]), false);
  deepEqual(counted, []);
  session.push(new Uint8Array([8]), false);
  equal(await failed, false);
  deepEqual(counted, ["compat_queue_drop"]);
  equal(session.login.failure, "overflow");
  equal(session.closeReason, "slow-client");
  deepEqual(owned, ["unbind", "compensate overflow"], "rolled back: binding cleared, compensated");
  equal(session.gatedFrames, 0, "held frames are discarded");
  session.push(new Uint8Array([9]), false);
  await tick();
  deepEqual(transport.written, [], "nothing reaches the wire after the gate failed");
  deepEqual(counted, ["compat_queue_drop"], "counted once");
  session.close("slow-client");
});

Deno.test("session gate: a room-scoped control frame that does not fit counts gate_control_overflow", async () => {
  const { counted, session, openGate } = setup();
  const failed = openGate()();
  // 1 MiB limit: one 600 KB chat frame fits, a 600 KB ChangeState-sized frame does not.
  session.push(new Uint8Array(600 * 1024), false);
  session.push(new Uint8Array(600 * 1024), true);
  equal(await failed, false);
  equal(session.login.failure, "control-overflow");
  deepEqual(counted, ["gate_control_overflow"]);
  session.close("slow-client");
});

Deno.test("session gate: an unflushed reply expires after 8 s without counting a drop", async () => {
  const { clock, counted, session, openGate } = setup();
  const failed = openGate()();
  let outcome: string | null = null;
  void failed.then(() => (outcome = session.login.failure));
  clock.advance(PRE_AUTH_LIMITS.maxAgeMs - 1);
  session.checkTimeouts(clock.monotonic());
  await tick();
  equal(outcome, null);
  clock.advance(1);
  session.checkTimeouts(clock.monotonic());
  await tick();
  equal(outcome, "expired");
  equal(session.closeReason, "auth-timeout");
  deepEqual(counted, []);
  session.close("auth-timeout");
});
