/**
 * The spectator page's pure modules (static/spectator/*.js) run in Deno
 * against the server's own encoder: the binary `/ws/live` decoder and
 * command encoder, the room list fed by both room streams, the player
 * counters.
 */
import { deepEqual, equal, throws } from "node:assert/strict";
import { decodeWsCommand, encodeLiveEvent, type LiveEvent } from "../src/http/live_protocol.ts";
import { SPECTATOR_FILES } from "../src/http/spectator_page.ts";
import { DecodeError, decodeLiveEvent, encodeJoin, encodeLeave, encodeReady } from "../static/spectator/live_codec.js";
import { formatAccuracy, formatScore, PlayerStats } from "../static/spectator/player_stats.js";
import { RoomList } from "../static/spectator/room_list.js";

const alice = { id: 100, name: "Alice ✦", monitor: false };
const mon = { id: -9, name: "Nine (monitor)", monitor: true };

Deno.test("page codec decodes every LiveEvent the server encodes", () => {
  const events: LiveEvent[] = [
    {
      type: "Authenticate",
      result: {
        ok: true,
        value: [mon, {
          id: "abc",
          state: { type: "SelectChart", chart: 7 },
          live: true,
          locked: false,
          cycle: true,
          is_host: false,
          is_ready: false,
          users: new Map([[100, alice]]),
        }],
      },
    },
    { type: "Authenticate", result: { ok: false, error: "not allowed to spectate" } },
    { type: "Join", result: { ok: true, value: { state: { type: "Playing" }, users: [alice, mon], live: true } } },
    { type: "Leave", result: { ok: true, value: null } },
    {
      type: "Touches",
      player: 100,
      frames: [{ time: 1.5, points: [[0, { x: 0.25, y: -0.5 }], [3, { x: -1, y: 0.125 }]] }, { time: 2, points: [] }],
    },
    {
      type: "Judges",
      player: 100,
      judges: [{ time: 1.25, line_id: 2, note_id: 70000, judgement: "Perfect" }, {
        time: 2,
        line_id: 0,
        note_id: 1,
        judgement: "HoldGood",
      }],
    },
    { type: "StateChange", state: { type: "SelectChart", chart: null } },
    { type: "StateChange", state: { type: "WaitingForReady" } },
    { type: "UserJoin", user: alice },
    { type: "UserLeave", user: 100 },
    { type: "Message", message: { type: "Played", user: 100, score: 987654, accuracy: 0.5, full_combo: true } },
    { type: "Message", message: { type: "SelectChart", user: 100, name: "Tempestissimo", id: 42 } },
    { type: "Message", message: { type: "StartPlaying" } },
    { type: "Message", message: { type: "Chat", user: 0, content: "héllo\nthere" } },
  ];
  const plain = (e: LiveEvent): unknown => JSON.parse(JSON.stringify(e, (_k, v) => v instanceof Map ? [...v] : v));
  const expected = events.map((e) => {
    const p = plain(e) as Record<string, unknown>;
    if (e.type === "Touches") {
      p.frames = e.frames.map((f) => ({
        time: f.time,
        points: f.points.map(([finger, pos]) => ({ finger, x: pos.x, y: pos.y })),
      }));
    }
    return p;
  });
  const decoded = events.map((e) => plain(decodeLiveEvent(encodeLiveEvent(e)) as LiveEvent));
  deepEqual(decoded, expected);
});

Deno.test("page codec: trailing bytes are ignored, truncated or unknown payloads throw DecodeError", () => {
  const played = encodeLiveEvent({
    type: "Message",
    message: { type: "Played", user: 1, score: 2, accuracy: 1, full_combo: false },
  });
  const extended = new Uint8Array([...played, 1, 0, 0, 0, 2, 0, 0, 0]);
  equal(decodeLiveEvent(extended).message.score, 2);
  throws(() => decodeLiveEvent(played.subarray(0, played.length - 2)), DecodeError);
  throws(() => decodeLiveEvent(new Uint8Array([42])), DecodeError);
  throws(() => decodeLiveEvent(new Uint8Array([3, 1, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0x0f])), DecodeError);
});

Deno.test("page codec encodes WsCommands the server decodes", () => {
  deepEqual(decodeWsCommand(encodeJoin("room-1_x")), { type: "Join", room_id: "room-1_x" });
  deepEqual(decodeWsCommand(encodeLeave()), { type: "Leave" });
  deepEqual(decodeWsCommand(encodeReady()), { type: "Ready" });
  throws(() => encodeJoin(""), RangeError);
  throws(() => encodeJoin("x".repeat(21)), RangeError);
});

const full = (users: number[], state = "SELECTING_CHART") => ({
  host: users[0],
  users,
  lock: false,
  cycle: false,
  chart: null,
  state,
  rounds: [],
});

Deno.test("page room list follows the proxy's stream: create_room snapshot, live events, last leave ends a room", () => {
  const list = new RoomList();
  equal(list.apply("create_room", { room: "b", data: full([1]) }), "b");
  equal(list.apply("create_room", { room: "a", data: full([2, 3]) }), "a");
  deepEqual(list.sorted().map((r) => r.name), ["a", "b"]);
  list.apply("update_room", { room: "a", data: { state: "PLAYING", chart: 5, lock: true } });
  list.apply("join_room", { room: "b", user: 4 });
  list.apply("new_round", { room: "a", round: { chart: 5, records: [] } });
  const a = list.rooms.get("a")!;
  deepEqual([a.state, a.chart, a.lock, a.rounds.length], ["PLAYING", 5, true, 1]);
  deepEqual(list.rooms.get("b")!.users, [1, 4]);
  list.apply("leave_room", { room: "b", user: 1 });
  list.apply("leave_room", { room: "b", user: 4 });
  equal(list.rooms.has("b"), false);
  equal(list.apply("join_room", { room: "zzz", user: 1 }), null);
  equal(list.apply("update_room", { room: "a", data: { state: "BOGUS" } }), "a");
  equal(list.rooms.get("a")!.state, "PLAYING");
  equal(list.apply("create_room", null), null);
});

Deno.test("page room list follows the game server's stream: update_room snapshot creates, delete_room removes", () => {
  const list = new RoomList();
  list.apply("update_room", { room: "x", data: full([7], "WAITING_FOR_READY") });
  equal(list.rooms.get("x")!.state, "WAITING_FOR_READY");
  equal(list.apply("delete_room", { room: "x" }), "x");
  equal(list.rooms.size, 0);
  list.apply("update_room", { room: "y", data: full([1]) });
  list.reset();
  equal(list.rooms.size, 0);
});

Deno.test("page player counters: combo, best combo, accuracy; hold marks count as nothing", () => {
  const s = new PlayerStats();
  equal(formatAccuracy(s.accuracy), "100.00%");
  for (const j of ["Perfect", "Perfect", "HoldPerfect", "Good", "Bad", "Perfect", "Miss", "HoldGood", "Good"]) s.add(j);
  deepEqual([s.perfect, s.good, s.bad, s.miss, s.combo, s.maxCombo, s.judged], [3, 2, 1, 1, 1, 3, 7]);
  equal(formatAccuracy(s.accuracy), "61.42%");
  s.reset();
  deepEqual([s.perfect, s.combo, s.maxCombo], [0, 0, 0]);
  equal(formatScore(1000000), "1,000,000");
});

Deno.test("every file of static/spectator/ is served, and every served file exists", async () => {
  const dir = new URL("../static/spectator/", import.meta.url);
  const files: string[] = [];
  for await (const entry of Deno.readDir(dir)) if (entry.isFile) files.push(entry.name);
  deepEqual(files.sort(), Object.keys(SPECTATOR_FILES).sort());
});
