// The spectator WebSocket's binary protocol (`/ws/live`): each message is one
// payload in the game's encoding — little-endian integers and floats, ULEB128
// lengths, bool/Option/Result as a flag byte, enums as a u8 tag, positions as
// two binary16 values. Browser → server `WsCommand`, server → browser
// `LiveEvent`. Trailing bytes are ignored, as every Phira decoder does (some
// servers append fields to `Message::Played`).

/** Thrown for a payload that is not a valid event. */
export class DecodeError extends Error {}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** binary16 → number (DataView.getFloat16 where the browser has it). */
function halfToFloat(bits) {
  const sign = bits & 0x8000 ? -1 : 1;
  const exp = (bits >> 10) & 0x1f;
  const frac = bits & 0x3ff;
  if (exp === 0) return sign * frac * 2 ** -24;
  if (exp === 0x1f) return frac ? NaN : sign * Infinity;
  return sign * (1 + frac / 1024) * 2 ** (exp - 15);
}

class Reader {
  constructor(bytes) {
    this.bytes = bytes;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.at = 0;
  }
  need(n) {
    if (this.at + n > this.bytes.length) throw new DecodeError("payload ends early");
  }
  u8() {
    this.need(1);
    return this.bytes[this.at++];
  }
  i8() {
    this.need(1);
    return this.view.getInt8(this.at++);
  }
  bool() {
    return this.u8() === 1;
  }
  i32() {
    this.need(4);
    const v = this.view.getInt32(this.at, true);
    this.at += 4;
    return v;
  }
  u32() {
    this.need(4);
    const v = this.view.getUint32(this.at, true);
    this.at += 4;
    return v;
  }
  f32() {
    this.need(4);
    const v = this.view.getFloat32(this.at, true);
    this.at += 4;
    return v;
  }
  f16() {
    this.need(2);
    const v = typeof this.view.getFloat16 === "function"
      ? this.view.getFloat16(this.at, true)
      : halfToFloat(this.view.getUint16(this.at, true));
    this.at += 2;
    return v;
  }
  uleb() {
    let value = 0;
    for (let shift = 0; shift < 35; shift += 7) {
      const b = this.u8();
      value += (b & 0x7f) * 2 ** shift;
      if ((b & 0x80) === 0) return value;
    }
    throw new DecodeError("length too long");
  }
  string() {
    const n = this.uleb();
    this.need(n);
    const text = utf8.decode(this.bytes.subarray(this.at, this.at + n));
    this.at += n;
    return text;
  }
  vec(item) {
    const n = this.uleb();
    // Each element takes at least one byte: a bogus count fails here, not after a huge allocation.
    this.need(Math.min(n, this.bytes.length));
    const out = [];
    for (let i = 0; i < n; i++) out.push(item(this));
    return out;
  }
  option(item) {
    return this.bool() ? item(this) : null;
  }
  result(ok) {
    return this.bool() ? { ok: true, value: ok(this) } : { ok: false, error: this.string() };
  }
}

const userInfo = (r) => ({ id: r.i32(), name: r.string(), monitor: r.bool() });

function roomState(r) {
  const tag = r.u8();
  if (tag === 0) return { type: "SelectChart", chart: r.option((x) => x.i32()) };
  if (tag === 1) return { type: "WaitingForReady" };
  if (tag === 2) return { type: "Playing" };
  throw new DecodeError(`unknown room state ${tag}`);
}

function clientRoomState(r) {
  const room = {
    id: r.string(),
    state: roomState(r),
    live: r.bool(),
    locked: r.bool(),
    cycle: r.bool(),
    is_host: r.bool(),
    is_ready: r.bool(),
    users: new Map(),
  };
  const n = r.uleb();
  for (let i = 0; i < n; i++) room.users.set(r.i32(), userInfo(r));
  return room;
}

const joinRoomResponse = (r) => ({ state: roomState(r), users: r.vec(userInfo), live: r.bool() });

const touchFrame = (r) => ({
  time: r.f32(),
  points: r.vec((x) => ({ finger: x.i8(), x: x.f16(), y: x.f16() })),
});

/** Judgement kinds in wire order. */
export const JUDGEMENTS = ["Perfect", "Good", "Bad", "Miss", "HoldPerfect", "HoldGood"];

function judgeEvent(r) {
  const event = { time: r.f32(), line_id: r.u32(), note_id: r.u32(), judgement: JUDGEMENTS[r.u8()] };
  if (event.judgement === undefined) throw new DecodeError("unknown judgement");
  return event;
}

const MESSAGES = [
  ["Chat", (r) => ({ user: r.i32(), content: r.string() })],
  ["CreateRoom", (r) => ({ user: r.i32() })],
  ["JoinRoom", (r) => ({ user: r.i32(), name: r.string() })],
  ["LeaveRoom", (r) => ({ user: r.i32(), name: r.string() })],
  ["NewHost", (r) => ({ user: r.i32() })],
  ["SelectChart", (r) => ({ user: r.i32(), name: r.string(), id: r.i32() })],
  ["GameStart", (r) => ({ user: r.i32() })],
  ["Ready", (r) => ({ user: r.i32() })],
  ["CancelReady", (r) => ({ user: r.i32() })],
  ["CancelGame", (r) => ({ user: r.i32() })],
  ["StartPlaying", () => ({})],
  ["Played", (r) => ({ user: r.i32(), score: r.i32(), accuracy: r.f32(), full_combo: r.bool() })],
  ["GameEnd", () => ({})],
  ["Abort", (r) => ({ user: r.i32() })],
  ["LockRoom", (r) => ({ lock: r.bool() })],
  ["CycleRoom", (r) => ({ cycle: r.bool() })],
];

function message(r) {
  const tag = r.u8();
  const entry = MESSAGES[tag];
  if (!entry) throw new DecodeError(`unknown message ${tag}`);
  return { type: entry[0], ...entry[1](r) };
}

const EVENTS = [
  ["Authenticate", (r) => ({ result: r.result((x) => [userInfo(x), x.option(clientRoomState)]) })],
  ["Join", (r) => ({ result: r.result(joinRoomResponse) })],
  ["Leave", (r) => ({ result: r.result(() => null) })],
  ["Touches", (r) => ({ player: r.i32(), frames: r.vec(touchFrame) })],
  ["Judges", (r) => ({ player: r.i32(), judges: r.vec(judgeEvent) })],
  ["StateChange", (r) => ({ state: roomState(r) })],
  ["UserJoin", (r) => ({ user: userInfo(r) })],
  ["UserLeave", (r) => ({ user: r.i32() })],
  ["Message", (r) => ({ message: message(r) })],
];

/** Decodes one server → browser message; throws {@link DecodeError}. */
export function decodeLiveEvent(bytes) {
  const r = new Reader(bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes));
  const tag = r.u8();
  const entry = EVENTS[tag];
  if (!entry) throw new DecodeError(`unknown event ${tag}`);
  return { type: entry[0], ...entry[1](r) };
}

const utf8Encoder = new TextEncoder();

/** `WsCommand::Join { room_id }` (tag 0). */
export function encodeJoin(roomId) {
  const id = utf8Encoder.encode(roomId);
  if (id.length === 0 || id.length > 20) throw new RangeError("room ids have 1 to 20 characters");
  return Uint8Array.of(0, id.length, ...id);
}

/** `WsCommand::Leave` (tag 1). */
export function encodeLeave() {
  return Uint8Array.of(1);
}

/** `WsCommand::Ready` (tag 2). */
export function encodeReady() {
  return Uint8Array.of(2);
}
