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
import {
  CLIENT_VECTORS,
  EDGE_CASES,
  hex,
  MONITOR_CLIENT_VECTORS,
  MONITOR_SERVER_VECTORS,
  SERVER_VECTORS,
} from "./fixtures/golden_vectors.ts";

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

Deno.test("monitor extension vectors (protocol.md §3.5) encode to the hand-derived bytes and decode back", async (t) => {
  for (const [label, value, frame] of MONITOR_SERVER_VECTORS) {
    await t.step(`S ${label}`, () => {
      equal(toHex(encodeServerCommand(value)), toHex(hex(frame)));
      deepEqual(decodeServerCommand(payloadOf(hex(frame))), value);
    });
  }
  for (const [label, value, frame] of MONITOR_CLIENT_VECTORS) {
    await t.step(`C ${label}`, () => {
      equal(toHex(encodeClientCommand(value)), toHex(hex(frame)));
      deepEqual(decodeClientCommand(payloadOf(hex(frame))), value);
    });
  }
});

Deno.test("monitor vectors cover RoomEvent tags 0–4 and decode HashMaps in any order", () => {
  const tags = MONITOR_SERVER_VECTORS.flatMap(([, v]) => v.type === "RoomEvent" ? [v.event.type] : []);
  deepEqual([...new Set(tags)], ["CreateRoom", "UpdateRoom", "JoinRoom", "LeaveRoom", "NewRound"]);
  // protocol.md §2: HashMap order is unspecified. The users map of the
  // RoomResponse vector with its two entries swapped decodes to the same value.
  const [, value, frame] = MONITOR_SERVER_VECTORS.find(([l]) => l.startsWith("RoomResponse Ok (two"))!;
  const swapped = frame.replace(
    "64 00 00 00 03 61 62 63 c8 00 00 00 03 61 62 63",
    "c8 00 00 00 03 61 62 63 64 00 00 00 03 61 62 63",
  );
  deepEqual(decodeServerCommand(payloadOf(hex(swapped))), value);
  // A tag past NewRound (Phira-mp-plus's StartRound = 5) is not ours: a decode error, not a guess.
  throws(
    () => decodeServerCommand(hex("15 05 03 61 62 63 00 00 00 00 00")),
    (e: unknown) => e instanceof ProtocolError && e.message.startsWith("invalid enum: 5"),
  );
});

Deno.test("every variant has a golden vector or a round trip", () => {
  const covered = new Set([...CLIENT_VECTORS, ...MONITOR_CLIENT_VECTORS].map(([, v]) => v.type));
  const missing = ClientCommand.variants.map((v) => v.name).filter((n) => !covered.has(n));
  deepEqual(missing, []);
  const serverCovered = new Set([...SERVER_VECTORS, ...MONITOR_SERVER_VECTORS].map(([, v]) => v.type));
  deepEqual(ServerCommand.variants.map((v) => v.name).filter((n) => !serverCovered.has(n)), [
    "Judges",
    "LockRoom",
    "CycleRoom",
    "RequestStart",
    "Ready",
    "CancelReady",
  ]);
});
