import { deepEqual, equal, throws } from "node:assert/strict";
import { ProtocolError } from "./codec.ts";
import {
  decodeClientCommand,
  encodeClientCommand,
  FrameDecoder,
  MAX_FRAME_PAYLOAD,
  readLengthPrefix,
} from "./framing.ts";

const isProtocolError = (reason: string) => (e: unknown) => e instanceof ProtocolError && e.message === reason;

Deno.test("FrameDecoder returns null until a frame is complete, byte by byte", () => {
  const frames = [
    encodeClientCommand({ type: "Chat", message: "a".repeat(200) }),
    encodeClientCommand({ type: "Ping" }),
  ];
  const all = new Uint8Array([...frames[0]!, ...frames[1]!]);
  const decoder = new FrameDecoder(8);
  const out: string[] = [];
  for (const byte of all) {
    decoder.push(new Uint8Array([byte]));
    for (let p = decoder.next(); p; p = decoder.next()) out.push(decodeClientCommand(p).type);
  }
  deepEqual(out, ["Chat", "Ping"]);
  equal(decoder.buffered, 0);
});

Deno.test("length prefix: at most 5 bytes, 2 MiB cap, high bits dropped, non-minimal accepted", () => {
  throws(
    () => readLengthPrefix(new Uint8Array([0x80, 0x80, 0x80, 0x80, 0x80]), 0, 5),
    isProtocolError("invalid length"),
  );
  // 2 MiB exactly is allowed, one more byte is not.
  deepEqual(readLengthPrefix(new Uint8Array([0x80, 0x80, 0x80, 0x01]), 0, 4), [MAX_FRAME_PAYLOAD, 4]);
  throws(
    () => readLengthPrefix(new Uint8Array([0x81, 0x80, 0x80, 0x01]), 0, 4),
    isProtocolError("data packet too large"),
  );
  // 2^32 in five bytes: bits beyond 32 are dropped, so the length is 0.
  deepEqual(readLengthPrefix(new Uint8Array([0x80, 0x80, 0x80, 0x80, 0x10]), 0, 5), [0, 5]);
  deepEqual(readLengthPrefix(new Uint8Array([0x80, 0x00]), 0, 2), [0, 2]);
  equal(readLengthPrefix(new Uint8Array([0x80, 0x80]), 0, 2), null);
});

Deno.test("an oversized length is refused before its payload arrives", () => {
  const decoder = new FrameDecoder();
  decoder.push(new Uint8Array([0xff, 0xff, 0xff, 0x7f]));
  throws(() => decoder.next(), isProtocolError("data packet too large"));
});

Deno.test("a zero-length frame is framed but does not decode", () => {
  const decoder = new FrameDecoder();
  decoder.push(new Uint8Array([0x00, 0x01, 0x00]));
  const empty = decoder.next()!;
  equal(empty.length, 0);
  throws(() => decodeClientCommand(empty), isProtocolError("unexpected EOF"));
  deepEqual(decodeClientCommand(decoder.next()!), { type: "Ping" });
});

Deno.test("FrameDecoder compacts instead of growing when frames are consumed", () => {
  const decoder = new FrameDecoder(16);
  const ping = encodeClientCommand({ type: "Ping" });
  for (let i = 0; i < 10_000; i++) {
    decoder.push(ping);
    equal(decodeClientCommand(decoder.next()!).type, "Ping");
  }
  equal(decoder.buffered, 0);
});
