/**
 * Codec micro-benchmarks (issue 2 §3). Run with `deno task bench`; results
 * and method are recorded in BENCHMARKS.md.
 */
import {
  type ClientRoomState,
  decodeClientCommand,
  decodeServerCommand,
  encodeClientCommand,
  encodeServerCommand,
  FrameDecoder,
  readClientCommand,
  type ServerCommand,
  type TouchFrame,
  type UserInfo,
} from "./mod.ts";

function payload(frame: Uint8Array): Uint8Array {
  const d = new FrameDecoder();
  d.push(frame);
  return d.next()!.slice();
}

const points: TouchFrame["points"] = Array.from({ length: 20 }, (_, i) => [i % 5, { x: i / 20, y: -i / 40 }]);
const touches = { type: "Touches" as const, frames: [{ time: 12.5, points }] };
const touchesPayload = payload(encodeClientCommand(touches));

const chat: ServerCommand = {
  type: "Message",
  message: { type: "Chat", user: 100, content: "good game, one more round?" },
};
const chatPayload = payload(encodeServerCommand(chat));

const users = new Map<number, UserInfo>(
  Array.from({ length: 8 }, (_, i) => [1000 + i, { id: 1000 + i, name: `Player${i}`, monitor: false }]),
);
const state: ClientRoomState = {
  id: "room-12345",
  state: { type: "SelectChart", chart: 42 },
  live: true,
  locked: false,
  cycle: true,
  is_host: true,
  is_ready: false,
  users,
};
const auth: ServerCommand = { type: "Authenticate", result: { ok: true, value: [users.get(1000)!, state] } };
const authPayload = payload(encodeServerCommand(auth));

Deno.bench("encode Touches (1 frame, 20 points)", { group: "touches", baseline: true }, () => {
  encodeClientCommand(touches);
});
Deno.bench("decode Touches (1 frame, 20 points)", { group: "touches" }, () => {
  decodeClientCommand(touchesPayload);
});
// What a game client sends at its touch rate (load generator: 20 frames of 2 fingers per message).
const clientTouches = {
  type: "Touches" as const,
  frames: Array.from({ length: 20 }, (_, i) => ({
    time: 10 + i / 60,
    points: [[0, { x: i / 20, y: 0.5 }], [1, { x: -i / 20, y: -0.5 }]] as TouchFrame["points"],
  })),
};
const clientTouchesPayload = payload(encodeClientCommand(clientTouches));
Deno.bench("receive Touches (20 frames × 2 points): full decode", { group: "receive", baseline: true }, () => {
  decodeClientCommand(clientTouchesPayload);
});
Deno.bench("receive Touches (20 frames × 2 points): checked view, items not decoded", { group: "receive" }, () => {
  readClientCommand(clientTouchesPayload, true);
});
Deno.bench("encode Message::Chat", { group: "chat", baseline: true }, () => {
  encodeServerCommand(chat);
});
Deno.bench("decode Message::Chat", { group: "chat" }, () => {
  decodeServerCommand(chatPayload);
});
Deno.bench("encode Authenticate with ClientRoomState (8 users)", { group: "room-state", baseline: true }, () => {
  encodeServerCommand(auth);
});
Deno.bench("decode Authenticate with ClientRoomState (8 users)", { group: "room-state" }, () => {
  decodeServerCommand(authPayload);
});
Deno.bench("frame split: 100 Pings pushed in one chunk", { group: "framing" }, (b) => {
  const ping = encodeClientCommand({ type: "Ping" });
  const chunk = new Uint8Array(ping.length * 100);
  for (let i = 0; i < 100; i++) chunk.set(ping, i * ping.length);
  const d = new FrameDecoder();
  b.start();
  d.push(chunk);
  while (d.next());
  b.end();
});
