import { deepEqual, equal, throws } from "node:assert/strict";
import {
  ClientCommand,
  decodeClientCommand,
  decodeServerCommand,
  encodeClientCommand,
  encodeServerCommand,
  FrameDecoder,
  ProtocolError,
  ServerCommand,
} from "../src/protocol/mod.ts";
import { CLIENT_VECTORS, EDGE_CASES, hex, SERVER_VECTORS } from "./fixtures/golden_vectors.ts";

function toHex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join(" ");
}

function payloadOf(frame: Uint8Array): Uint8Array {
  const decoder = new FrameDecoder();
  decoder.push(frame);
  const payload = decoder.next();
  if (!payload) throw new Error("frame incomplete");
  equal(decoder.buffered, 0, "frame fully consumed");
  return payload;
}

Deno.test("golden vectors cover every documented number once", () => {
  const numbers = [...CLIENT_VECTORS, ...SERVER_VECTORS].map(([n]) => n);
  deepEqual(numbers, Array.from({ length: 45 }, (_, i) => i + 1));
});

Deno.test("client golden vectors encode to the documented bytes and decode back", async (t) => {
  for (const [n, value, frame] of CLIENT_VECTORS) {
    await t.step(`#${n} ${value.type}`, () => {
      equal(toHex(encodeClientCommand(value)), toHex(hex(frame)));
      deepEqual(decodeClientCommand(payloadOf(hex(frame))), value);
    });
  }
});

Deno.test("server golden vectors encode to the documented bytes and decode back", async (t) => {
  for (const [n, value, frame] of SERVER_VECTORS) {
    await t.step(`#${n} ${value.type}`, () => {
      equal(toHex(encodeServerCommand(value)), toHex(hex(frame)));
      deepEqual(decodeServerCommand(payloadOf(hex(frame))), value);
    });
  }
});

Deno.test("decoding edge cases of protocol.md §4.3", async (t) => {
  for (const [payload, expected] of EDGE_CASES) {
    await t.step(payload.length > 24 ? payload.slice(0, 24) + "…" : payload, () => {
      const bytes = hex(payload);
      if ("error" in expected) {
        throws(
          () => decodeClientCommand(bytes),
          (e: unknown) => e instanceof ProtocolError && e.message.startsWith((expected as { error: string }).error),
        );
      } else {
        deepEqual(decodeClientCommand(bytes), expected);
      }
    });
  }
});

Deno.test("every variant has a golden vector or a round trip", () => {
  const covered = new Set(CLIENT_VECTORS.map(([, v]) => v.type));
  const missing = ClientCommand.variants.map((v) => v.name).filter((n) => !covered.has(n));
  deepEqual(missing, ["ConsoleAuthenticate", "QueryRoomInfo", "GameMonitorAuthenticate"]);
  const serverCovered = new Set(SERVER_VECTORS.map(([, v]) => v.type));
  deepEqual(ServerCommand.variants.map((v) => v.name).filter((n) => !serverCovered.has(n)), [
    "Judges",
    "LockRoom",
    "CycleRoom",
    "RequestStart",
    "Ready",
    "CancelReady",
    "RoomResponse",
    "RoomEvent",
    "UserVisit",
  ]);
});
