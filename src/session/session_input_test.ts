import { deepEqual, equal, ok } from "node:assert/strict";
import { encodeClientCommand } from "../protocol/mod.ts";
import { ManualClock } from "../util/clock.ts";
import { LogHub } from "../util/log.ts";
import { ByteBudget } from "./byte_budget.ts";
import { type PushLink, Session, type SessionHooks } from "./session.ts";

/** A socket-like push link that records what the session asks of it. */
class FakeLink implements PushLink {
  calls: string[] = [];
  written: Uint8Array[] = [];
  get buffered(): number {
    return 0;
  }
  send(frame: Uint8Array, done: (error?: Error | null) => void): void {
    this.written.push(frame);
    queueMicrotask(() => done(null));
  }
  pause(): void {
    this.calls.push("pause");
  }
  resume(): void {
    this.calls.push("resume");
  }
  close(): void {
    this.calls.push("close");
  }
}

/** Handles a chat command by its text: nothing returned for a synchronous handler, `wait` for one that waits. */
type TextHandler = (text: string, wait: () => Promise<void>) => Promise<void> | void;

function setup(mailboxLimit = 2, byText: TextHandler = (_text, wait) => wait()) {
  const link = new FakeLink();
  const handled: string[] = [];
  const release: (() => void)[] = [];
  const counted: string[] = [];
  const hooks: SessionHooks = {
    // By default every command waits until the test releases it: the mailbox fills.
    handle: (_s, inbound) => {
      const text = inbound.cmd.type === "Chat" ? inbound.cmd.message : inbound.cmd.type;
      handled.push(text);
      return byText(text, () => new Promise<void>((resolve) => release.push(resolve)));
    },
    closed: () => {},
    count: (name) => void counted.push(name),
  };
  const budget = new ByteBudget(1 << 20);
  const session = new Session(link, hooks, {
    id: 1,
    ip: "127.0.0.1",
    clock: new ManualClock(),
    log: new LogHub({ level: "error", sink: () => {} }).logger(),
    heartbeatTimeoutMs: 60_000,
    authTimeoutMs: 60_000,
    mailboxLimit,
    frameBudget: budget,
  });
  return { link, handled, release, counted, budget, session };
}

const chat = (message: string) => encodeClientCommand({ type: "Chat", message });
const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

Deno.test("a full mailbox pauses the socket and keeps the rest of the chunk; room resumes it, in order", async () => {
  const { link, handled, release, budget, session } = setup(2);
  // As after login (before it, only login-sized frames are acceptable and chat is not one).
  session.login.begin();
  session.activate("normal", 1);
  const chunk = new Uint8Array([...chat("a"), ...chat("b"), ...chat("c"), ...chat("d"), ...chat("e")]);
  session.data(new Uint8Array([1]));
  session.data(chunk);
  await tick();
  // "a" runs, "b" and "c" wait: the mailbox is full, the socket is paused, "d" and "e" are kept.
  deepEqual(handled, ["a"]);
  deepEqual(link.calls, ["pause"]);
  ok(session.bufferedInput > 0);
  equal(budget.used, session.bufferedInput, "kept bytes count against the frame budget");
  for (let i = 0; i < 5 && handled.length < 5; i++) {
    release.shift()?.();
    await tick();
  }
  deepEqual(handled, ["a", "b", "c", "d", "e"], "every command, in order");
  equal(session.bufferedInput, 0);
  equal(budget.used, 0);
  equal(link.calls.at(-1), "resume", "reading goes on once everything kept was split");
  session.close("shutdown");
});

Deno.test("before login a chat frame is over the login bound: closed from its prefix", () => {
  const { link, counted, session } = setup();
  session.data(new Uint8Array([1, ...chat("x".repeat(100))]));
  equal(session.closeReason, "frame-too-large");
  deepEqual(counted, ["malformed_frames"]);
  deepEqual(link.calls, ["close"]);
});

Deno.test("a wrong version byte closes before anything is split", () => {
  const { session } = setup();
  session.data(new Uint8Array([2, 0, 0]));
  equal(session.closeReason, "bad-version");
});

Deno.test("Ping before login is answered with Pong through the socket's own buffer", async () => {
  const { link, session } = setup();
  session.data(new Uint8Array([1, ...encodeClientCommand({ type: "Ping" })]));
  await tick();
  deepEqual(link.written.map((f) => [...f]), [[1, 0]]);
  equal(session.outbound.flushedSeq, 1);
  session.end();
  equal(session.closeReason, "eof");
  equal(await session.done, "eof");
});

Deno.test("commands whose handler finishes synchronously run as they are split, in order; a promise holds the rest", async () => {
  const errors: string[] = [];
  // Synchronous handlers for "s…" (telemetry, most room commands), a throwing one for "x…", a promise for the rest.
  const { link, handled, release, session } = setup(8, (text, wait) => {
    if (text.startsWith("x")) {
      errors.push(text);
      throw new Error("handler bug");
    }
    return text.startsWith("s") ? undefined : wait();
  });
  session.login.begin();
  session.activate("normal", 1);
  session.data(new Uint8Array([1]));
  session.data(new Uint8Array([...chat("s1"), ...chat("x1"), ...chat("s2"), ...chat("a1"), ...chat("s3")]));
  // No turn of the event loop: everything up to the first handler that returned a promise ran already.
  deepEqual(handled, ["s1", "x1", "s2", "a1"]);
  deepEqual(errors, ["x1"], "a throwing handler is logged and the next command runs");
  release.shift()!();
  await tick();
  deepEqual(handled, ["s1", "x1", "s2", "a1", "s3"], "the rest once the promise settled");
  deepEqual(link.calls, [], "the mailbox never filled");
  session.close("shutdown");
});
