import { deepEqual, equal } from "node:assert/strict";
import { parseLogLine, splitFields, stripAnsi } from "./log_lines.ts";
import { RoomTracker } from "./room_tracker.ts";

const FIXTURES = new URL("../../tests/fixtures/companions/", import.meta.url);

function replayLines(lines: readonly string[]): RoomTracker {
  const tracker = new RoomTracker();
  for (const line of lines) {
    const { at, events } = parseLogLine(line);
    for (const ev of events) tracker.apply(ev, at ?? 0);
  }
  return tracker;
}

async function replay(file: string): Promise<RoomTracker> {
  return replayLines((await Deno.readTextFile(new URL(file, FIXTURES))).split("\n"));
}

function rooms(t: RoomTracker) {
  return [...t.rooms.values()].map((r) => ({
    name: r.name,
    host: r.hostId,
    users: r.users,
    state: r.state,
    cycle: r.cycle,
    chart: r.chart,
  }));
}

Deno.test("log lines: this project's recorded server log (text) gives rooms, states, charts and names", async () => {
  // The recording ends with the server stopping, which empties the room list: replay up to that line.
  const text = await Deno.readTextFile(new URL("chorus_server.log", FIXTURES));
  const stopped = text.split("\n").findIndex((l) => l.includes("game server stopped"));
  equal(stopped > 0, true);
  const whole = new RoomTracker();
  for (const line of text.split("\n")) for (const ev of parseLogLine(line).events) whole.apply(ev, 0);
  equal(whole.rooms.size, 0, "after 'game server stopped' no room is left");
  const t = await replayLines(text.split("\n").slice(0, stopped));
  deepEqual(rooms(t), [{ name: "abc", host: 100, users: [100], state: "selecting_chart", cycle: true, chart: 7 }]);
  deepEqual([...t.names], [[100, "Alice"], [200, "Bob"], [300, "Carol"]]);
  equal(t.userRoom.get(100), "abc");
  equal(t.userRoom.has(200), false);
  equal(t.lastActivity, Date.parse("2026-11-25T18:27:31.451Z"));
});

Deno.test("log lines: this project's JSON log format gives the same rooms", async () => {
  const t = await replay("chorus_server_json.log");
  deepEqual(rooms(t), [{ name: "abc", host: 100, users: [100], state: "selecting_chart", cycle: true, chart: 7 }]);
  deepEqual([...t.names.keys()], [100, 200, 300]);
});

Deno.test("log lines: the official server's texts (ANSI coloured) give rooms, states, charts and names", async () => {
  const t = await replay("official_server.log");
  deepEqual(rooms(t), [{ name: "abc", host: 200, users: [100, 200], state: "selecting_chart", cycle: true, chart: 7 }]);
  equal(t.rooms.get("abc")?.chartName, "Lucky Seven");
  deepEqual([...t.names], [[200, "Bob"], [400, 'Dave "D" Drum']]);
});

Deno.test("log lines: the official state sequence is tracked line by line", () => {
  const t = new RoomTracker();
  const feed = (line: string) => parseLogLine(line).events.forEach((e) => t.apply(e, 1));
  feed('INFO phira_mp_server::session: user create room user=1 room="r"');
  feed('DEBUG phira_mp_server::room: broadcast ChangeState(WaitingForReady) room="r"');
  equal(t.rooms.get("r")?.state, "waiting_for_ready");
  feed('DEBUG phira_mp_server::room: broadcast ChangeState(Playing) room="r"');
  equal(t.rooms.get("r")?.state, "playing");
  feed('DEBUG phira_mp_server::room: broadcast ChangeState(SelectChart(None)) room="r"');
  equal(t.rooms.get("r")?.state, "selecting_chart");
  // A NewHost without a room on the line finds it through the user's room.
  feed("DEBUG phira_mp_server::room: broadcast Message(NewHost { user: 1 })");
  equal(t.rooms.get("r")?.hostId, 1);
});

Deno.test("log lines: user text in one of our lines never poses as an official event", () => {
  const line =
    '2026-01-01T00:00:00.000Z INFO  in-game console command user=100 command="user create room user=5 room=\\"evil\\""';
  deepEqual(parseLogLine(line).events, []);
  deepEqual(parseLogLine("garbage"), { at: null, events: [] });
  deepEqual(parseLogLine("{not json").events, []);
  deepEqual(parseLogLine('{"msg":"room created","room":"bad name!"}').events, []);
});

Deno.test("splitFields reads bare and quoted values; stripAnsi removes colour codes", () => {
  const { msg, fields } = splitFields('user joined room room=abc user=200 name="B \\"o\\" b" reason=leave');
  equal(msg, "user joined room");
  deepEqual([...fields], [["room", "abc"], ["user", "200"], ["name", 'B "o" b'], ["reason", "leave"]]);
  equal(stripAnsi("\x1b[2mtime\x1b[0m \x1b[32m INFO\x1b[0m x"), "time  INFO x");
});

Deno.test("room tracker removes rooms idle longer than the limit", () => {
  const t = new RoomTracker();
  t.apply({ t: "create", room: "old", user: 1 }, 0);
  t.apply({ t: "create", room: "new", user: 2 }, 3_000_000);
  deepEqual(t.cleanup(3_600_001, 3_600_000), ["old"]);
  deepEqual([...t.rooms.keys()], ["new"]);
  equal(t.userRoom.has(1), false);
  t.apply({ t: "join", room: "new", user: 3 }, 3_500_000);
  t.apply({ t: "join", room: "other", user: 3 }, 3_500_001);
  deepEqual(t.rooms.get("new")?.users, [2], "a join elsewhere leaves the old room");
});
