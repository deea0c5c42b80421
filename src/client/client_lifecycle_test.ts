import { deepEqual, equal, ok, rejects } from "node:assert/strict";
import { ProtocolError } from "../protocol/mod.ts";
import { ManualClock } from "../util/clock.ts";
import { assertNoViolations } from "./assert.ts";
import { ClientError } from "./errors.ts";
import { okReply } from "./fake_server_test_util.ts";
import { barrier, pair } from "./test_fixtures_test_util.ts";

const isCode = (code: string) => (e: unknown) => e instanceof ClientError && e.code === code;

Deno.test("a request times out after the configured time; its late reply is dropped harmlessly", async () => {
  const clock = new ManualClock();
  await using p = await pair({}, { clock, requestTimeoutMs: 50 });
  let outcome = "pending";
  const chat = p.client.chat("x").catch((e: ClientError) => outcome = `${e.code}: ${e.message}`);
  await p.conn.nextCommand();
  clock.advance(49);
  await Promise.resolve();
  equal(outcome, "pending");
  clock.advance(1);
  await chat;
  equal(outcome, "timeout: Cannot chat: no Chat reply within 50 ms");

  p.conn.send(okReply("Chat"));
  await barrier(p.conn, p.client);
  equal(p.client.stats.lateReplies, 1);
  assertNoViolations(p.client);
  const next = p.client.chat("y");
  await p.conn.nextCommand();
  p.conn.send(okReply("Chat"));
  await next;
  equal(clock.pending, 0, "no timer left behind");
});

Deno.test("a request times out on real timers too, and they are cleared", async () => {
  await using p = await pair({}, { requestTimeoutMs: 50 });
  const started = performance.now();
  await rejects(p.client.ready(), isCode("timeout"));
  ok(performance.now() - started >= 45);
  await rejects(p.client.next(undefined, 10), isCode("timeout"));
});

Deno.test("automatic pings go out at the configured interval and measure the RTT", async () => {
  const clock = new ManualClock();
  const rtts: number[] = [];
  let pong = Promise.withResolvers<void>();
  await using p = await pair({ autoPong: false }, {
    clock,
    pingIntervalMs: 20,
    onRtt: (ms) => {
      rtts.push(ms);
      pong.resolve();
    },
  });
  clock.advance(19);
  equal(p.client.stats.sent, 0);
  clock.advance(1);
  equal(p.client.stats.sent, 1);
  deepEqual(await p.conn.nextCommand(), { type: "Ping" });
  clock.advance(4);
  p.conn.send({ type: "Pong" });
  await pong.promise;
  deepEqual(rtts, [4]);
  equal(p.client.rtt, 4);
  deepEqual(p.client.received, [], "heartbeat Pongs stay out of the log");

  // The next ping is due one interval after the Pong.
  clock.advance(19);
  equal(p.client.stats.sent, 1);
  clock.advance(1);
  equal(p.client.stats.sent, 2);
  await p.conn.nextCommand();
  clock.advance(2000);
  equal(p.client.stats.pingTimeouts, 1);
  pong = Promise.withResolvers();
  const explicit = p.client.ping();
  await p.conn.nextCommand();
  p.conn.send({ type: "Pong" }); // late answer to the timed-out heartbeat
  p.conn.send({ type: "Pong" });
  equal(await explicit, 0);
  equal(p.client.stats.lateReplies, 1);
  deepEqual(p.client.received, [{ type: "Pong" }]);
});

Deno.test("a malformed server frame closes the client with a protocol error", async (t) => {
  const cases: [string, number[], string][] = [
    ["unknown tag", [0x01, 0x30], "invalid enum: 48"],
    ["oversized frame", [0xff, 0xff, 0xff, 0x7f], "data packet too large"],
    ["truncated payload", [0x02, 0x0a, 0x39], "unexpected EOF"],
  ];
  for (const [name, bytes, reason] of cases) {
    await t.step(name, async () => {
      await using p = await pair();
      const pending = rejects(
        p.client.ready(),
        (e: ClientError) => e.code === "protocol" && e.cause instanceof ProtocolError,
      );
      const iterated = (async () => {
        for await (const _ of p.client) { /* nothing arrives */ }
      })();
      await p.conn.nextCommand();
      p.conn.sendRaw(new Uint8Array(bytes));
      await p.client.closed;
      await pending;
      await rejects(iterated, isCode("protocol"));
      const why = p.client.closeReason!;
      equal(why.code, "protocol");
      ok(why.cause instanceof ProtocolError);
      ok(why.reason.startsWith(`malformed server frame: ${reason}`), why.reason);
      await rejects(p.client.waitFor("ChangeState"), isCode("protocol"));
      await p.conn.done;
    });
  }
});

Deno.test("server EOF rejects pending requests and ends the stream quietly", async () => {
  await using p = await pair();
  const pending = rejects(p.client.leaveRoom(), (e: ClientError) => {
    return e.code === "eof" && e.message === "Cannot leave room: the server closed the connection";
  });
  p.conn.send({ type: "UserVisit", user: 1 });
  await p.conn.nextCommand();
  await p.conn.close();
  await p.client.closed;
  await pending;
  equal(p.client.closeReason?.code, "eof");
  const events = [];
  for await (const e of p.client) events.push(e);
  deepEqual(events, [{ type: "UserVisit", user: 1 }]);
  await rejects(p.client.ping(), isCode("eof"));
});

Deno.test("a write queue over its limit closes the client with an overflow error", async () => {
  await using p = await pair({}, { maxQueuedBytes: 64 });
  const big = new Uint8Array(100);
  equal(p.client.sendRaw(big), false);
  await p.client.closed;
  equal(p.client.closeReason?.code, "overflow");
});
