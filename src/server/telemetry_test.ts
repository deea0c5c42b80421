import { deepEqual } from "node:assert/strict";
import {
  decodeServerCommand,
  encodeClientCommand,
  encodeServerCommand,
  FrameDecoder,
  type TouchFrame,
} from "../protocol/mod.ts";
import { relayFrame } from "./telemetry.ts";

Deno.test("relayFrame turns a client Touches payload into the server command for the player", () => {
  const frames: TouchFrame[] = [{ time: 1.5, points: [[0, { x: 0.5, y: -0.25 }], [-1, { x: 1, y: 0.75 }]] }];
  const client = encodeClientCommand({ type: "Touches", frames });
  const decoder = new FrameDecoder();
  decoder.push(client);
  const payload = decoder.next()!;
  const relayed = relayFrame(payload, 100);
  // Golden vector #25 of protocol.md §4.2.
  deepEqual(
    [...relayed].map((b) => b.toString(16).padStart(2, "0")).join(" "),
    "15 03 64 00 00 00 01 00 00 c0 3f 02 00 00 38 00 b4 ff 00 3c 00 3a",
  );
  const out = new FrameDecoder();
  out.push(relayed);
  deepEqual(decodeServerCommand(out.next()!), { type: "Touches", player: 100, frames });
});

Deno.test("relayFrame works for Judges too", () => {
  const judges = [{ time: 2, line_id: 3, note_id: 7, judgement: "Good" as const }];
  const decoder = new FrameDecoder();
  decoder.push(encodeClientCommand({ type: "Judges", judges }));
  const out = new FrameDecoder();
  out.push(relayFrame(decoder.next()!, -5));
  deepEqual(decodeServerCommand(out.next()!), { type: "Judges", player: -5, judges });
});

Deno.test("relayFrame gives the encoder's bytes for a payload past one length byte (128+) and any player id", () => {
  const frames: TouchFrame[] = Array.from({ length: 40 }, (_, i) => ({ time: i, points: [[i % 10, { x: 0, y: 1 }]] }));
  for (const player of [0, 1, -1, 2147483647, -2147483648]) {
    const decoder = new FrameDecoder();
    decoder.push(encodeClientCommand({ type: "Touches", frames }));
    const relayed = relayFrame(decoder.next()!, player);
    deepEqual([...relayed], [...encodeServerCommand({ type: "Touches", player, frames })]);
  }
});
