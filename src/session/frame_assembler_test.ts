import { deepEqual, equal, ok, throws } from "node:assert/strict";
import { encodeClientCommand, MAX_FRAME_PAYLOAD, ProtocolError } from "../protocol/mod.ts";
import { ByteBudget } from "./byte_budget.ts";
import { FrameAssembler, FrameBudgetExceeded, FrameTooLarge } from "./frame_assembler.ts";
import { LOGIN_FRAME_MAX } from "./frame_limits.ts";

/** Every payload `assembler` completes from `chunks`, copied. */
function split(assembler: FrameAssembler, chunks: Uint8Array[], limit = MAX_FRAME_PAYLOAD): number[][] {
  const out: number[][] = [];
  for (const chunk of chunks) {
    for (let at = 0; (at = assembler.take(chunk, at, limit)) >= 0;) out.push([...assembler.payload!]);
  }
  return out;
}

Deno.test("a frame inside one chunk is a view of it: nothing is buffered or reserved", () => {
  const budget = new ByteBudget(1024);
  const a = new FrameAssembler(budget);
  const chunk = new Uint8Array([2, 7, 8, 1, 9]);
  equal(a.take(chunk, 0, 100), 3);
  equal(a.payload!.buffer, chunk.buffer, "no copy");
  deepEqual([...a.payload!], [7, 8]);
  equal(a.take(chunk, 3, 100), 5);
  deepEqual([...a.payload!], [9]);
  equal(a.take(chunk, 5, 100), -1);
  equal(a.buffered, 0);
  equal(budget.used, 0);
});

Deno.test("frames cut anywhere (the prefix too) come out whole; the buffer exists only while one is in flight", () => {
  const payload = new Uint8Array(300).map((_, i) => i & 0xff);
  const frame = new Uint8Array([0xac, 0x02, ...payload, 1, 0x42]); // 300 = 0xac 0x02, then a 1-byte frame
  for (let cut = 1; cut < frame.length; cut += 37) {
    const budget = new ByteBudget(1000);
    const a = new FrameAssembler(budget);
    const first = split(a, [frame.subarray(0, cut)]);
    if (cut >= 2 && cut < 302) {
      equal(a.buffered, 300, `cut ${cut}: one exact-size buffer`);
      equal(budget.used, 300);
    }
    const rest = split(a, [frame.subarray(cut)]);
    deepEqual([...first, ...rest], [[...payload], [0x42]], `cut at ${cut}`);
    equal(a.buffered, 0, "shrunk back after the frame");
    equal(budget.used, 0, "reservation given back");
  }
  // Byte by byte.
  const a = new FrameAssembler(new ByteBudget(1000));
  deepEqual(split(a, [...frame].map((b) => new Uint8Array([b]))), [[...payload], [0x42]]);
});

Deno.test("a frame over the caller's limit is refused from its prefix, before any payload is kept", () => {
  const budget = new ByteBudget(10 * 1024 * 1024);
  const a = new FrameAssembler(budget);
  // 2 MiB - 1 announced, only the prefix and one byte sent.
  throws(() => a.take(new Uint8Array([0xff, 0xff, 0x7f, 0]), 0, LOGIN_FRAME_MAX), FrameTooLarge);
  equal(a.buffered, 0);
  equal(budget.used, 0);
  throws(
    () => new FrameAssembler(budget).take(new Uint8Array([LOGIN_FRAME_MAX + 1]), 0, LOGIN_FRAME_MAX),
    (e: unknown) => e instanceof FrameTooLarge && e.length === LOGIN_FRAME_MAX + 1 && e.limit === LOGIN_FRAME_MAX,
  );
  // Exactly the limit is fine.
  const at = new FrameAssembler(budget).take(new Uint8Array([LOGIN_FRAME_MAX, 1]), 0, LOGIN_FRAME_MAX);
  equal(at, -1);
});

Deno.test("the official framing errors stay protocol errors", () => {
  const a = () => new FrameAssembler(new ByteBudget(1 << 30));
  throws(() => a().take(new Uint8Array([0x81, 0x80, 0x80, 0x01]), 0, MAX_FRAME_PAYLOAD), /data packet too large/);
  throws(() => a().take(new Uint8Array([0x80, 0x80, 0x80, 0x80, 0x80]), 0, MAX_FRAME_PAYLOAD), ProtocolError);
});

Deno.test("a frame that does not fit the shared budget is refused; the others keep theirs", () => {
  const budget = new ByteBudget(1000);
  const first = new FrameAssembler(budget);
  equal(first.take(new Uint8Array([0xd8, 0x04, 1, 2]), 0, MAX_FRAME_PAYLOAD), -1); // 600 bytes announced
  equal(budget.used, 600);
  const second = new FrameAssembler(budget);
  throws(() => second.take(new Uint8Array([0xd8, 0x04, 1]), 0, MAX_FRAME_PAYLOAD), FrameBudgetExceeded);
  equal(budget.used, 600, "nothing reserved for the refused frame");
  first.clear();
  equal(budget.used, 0, "a closing connection gives its frame back");
});

Deno.test("the pre-login bound is the largest valid login command", () => {
  const token = "x".repeat(32);
  const sizes = [
    encodeClientCommand({ type: "Authenticate", token }),
    encodeClientCommand({ type: "ConsoleAuthenticate", token }),
    encodeClientCommand({ type: "GameMonitorAuthenticate", token }),
    encodeClientCommand({ type: "RoomMonitorAuthenticate", key: new Uint8Array(64) }),
  ].map((frame) => frame.length - 1); // one prefix byte
  equal(Math.max(...sizes), LOGIN_FRAME_MAX);
  ok(sizes.every((n) => n <= LOGIN_FRAME_MAX));
});
