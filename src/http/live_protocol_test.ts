import { deepEqual, throws } from "node:assert/strict";
import { ProtocolError } from "../protocol/mod.ts";
import { decodeLiveEvent, decodeWsCommand, encodeLiveEvent, encodeWsCommand, type LiveEvent } from "./live_protocol.ts";

Deno.test("WsCommand bytes: u8 tag in wire order, RoomId as a length-prefixed string", () => {
  deepEqual([...encodeWsCommand({ type: "Join", room_id: "abc" })], [0, 3, 0x61, 0x62, 0x63]);
  deepEqual([...encodeWsCommand({ type: "Leave" })], [1]);
  deepEqual([...encodeWsCommand({ type: "Ready" })], [2]);
  deepEqual(decodeWsCommand(Uint8Array.of(0, 2, 0x68, 0x69)), { type: "Join", room_id: "hi" });
});

Deno.test("WsCommand decoding refuses unknown tags and invalid room ids", () => {
  throws(() => decodeWsCommand(Uint8Array.of(3)), ProtocolError);
  throws(() => decodeWsCommand(Uint8Array.of(0, 3, 0x61, 0x20, 0x62)), ProtocolError);
  throws(() => decodeWsCommand(new Uint8Array()), ProtocolError);
});

Deno.test("LiveEvent bytes follow extended.md §5.6 tags", async (t) => {
  const cases: [LiveEvent, number[]][] = [
    [{ type: "Authenticate", result: { ok: false, error: "no" } }, [0, 0, 2, 0x6e, 0x6f]],
    [{ type: "Authenticate", result: { ok: true, value: [{ id: -9, name: "M", monitor: false }, null] } }, [
      0,
      1,
      0xf7,
      0xff,
      0xff,
      0xff,
      1,
      0x4d,
      0,
      0,
    ]],
    [{ type: "Join", result: { ok: true, value: { state: { type: "Playing" }, users: [], live: true } } }, [
      1,
      1,
      2,
      0,
      1,
    ]],
    [{ type: "Leave", result: { ok: true, value: null } }, [2, 1]],
    [{ type: "Touches", player: 1, frames: [] }, [3, 1, 0, 0, 0, 0]],
    [{ type: "Judges", player: 1, judges: [] }, [4, 1, 0, 0, 0, 0]],
    [{ type: "StateChange", state: { type: "SelectChart", chart: null } }, [5, 0, 0]],
    [{ type: "UserJoin", user: { id: 2, name: "", monitor: true } }, [6, 2, 0, 0, 0, 0, 1]],
    [{ type: "UserLeave", user: 2 }, [7, 2, 0, 0, 0]],
    [{ type: "Message", message: { type: "GameEnd" } }, [8, 12]],
  ];
  for (const [event, bytes] of cases) {
    await t.step(event.type, () => {
      deepEqual([...encodeLiveEvent(event)], bytes);
      deepEqual(decodeLiveEvent(Uint8Array.from(bytes)), event);
    });
  }
});
