/**
 * Plugin routes and streams over real plugin processes (spec 1 §4.3 rules
 * 1–3; extended.md §2.18): `ok` answers 200 with the value, `error` 500
 * `{error}`; streams filter by event type and translate each event once
 * however many clients listen; the example `rooms_listen` serves the
 * profile R stream and the host's own comes back when it goes; the example
 * `chat_bot` welcomes players and answers `!rank`.
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import type { RecordData } from "../src/protocol/mod.ts";
import { waitUntil } from "./support/describe.ts";
import { SseReader } from "./support/http.ts";
import { startPluginHarness } from "./support/plugins.ts";

const RECORD: RecordData = {
  id: 7,
  player: 100,
  score: 990000,
  perfect: 10,
  good: 1,
  bad: 0,
  miss: 0,
  max_combo: 11,
  accuracy: 0.99,
  full_combo: true,
  std: 0,
  std_score: 0,
};

Deno.test("plugin routes answer ok as 200 JSON and error as 500; streams translate once per event", async () => {
  const p = await startPluginHarness({ plugins: [{ id: "probe", source: "test/probe" }] });
  try {
    deepEqual(await p.json("/api/probe/anything", { method: "POST", body: '{"a":1}' }), { status: 200, body: "v1" });
    // A route the plugin has no answer for: its error case is a 500 with the message.
    await p.ch.ops.call("http.register_route", { path: "api/other", plugin: "probe" }, { kind: "console" });
    deepEqual(await p.json("/api/other"), { status: 500, body: { error: "unknown method", code: 500 } });
    // A plugin registers only for itself.
    const refused = await p.ch.ops.tryCall("http.register_route", { path: "/api/x", plugin: "other" }, {
      kind: "plugin",
      id: "probe",
    });
    ok(!refused.ok && refused.error.code === "FORBIDDEN");

    const a = new SseReader((await p.http.request("/api/probe/stream")).body!);
    const b = new SseReader((await p.http.request("/api/probe/stream")).body!);
    for (const r of [a, b]) {
      deepEqual(await r.next(), { event: "ready", data: { stream: "api/probe/stream", version: "0.1.0" } });
    }
    const before = (p.system.host.info("probe") as { counters: { requests: number } }).counters.requests;
    // Filtered by type: a chat line and a room update do not reach the plugin; a created room does.
    await p.ch.ops.call("room.create", { room_id: "lobby" }, { kind: "console" });
    await p.ch.ops.call("room.lock", { room_id: "lobby", locked: true }, { kind: "console" });
    for (const r of [a, b]) deepEqual(await r.next(), { event: "probe_room", data: { type: "probe_room" } });
    equal((p.system.host.info("probe") as { counters: { requests: number } }).counters.requests, before + 1);
  } finally {
    await p.close();
  }
});

Deno.test("example rooms_listen serves /api/rooms/listen; disabling it brings the host's stream back", async () => {
  const p = await startPluginHarness({ plugins: [{ id: "rooms_listen", source: "examples/rooms_listen" }] });
  try {
    equal(p.system.host.list()[0]?.state, "Enabled");
    const reader = new SseReader((await p.http.request("/api/rooms/listen")).body!);
    const bus = p.ch.h.bus;
    const scoped = { room: "r1", uuid: "u1", hidden: false } as const;
    bus.publish({ kind: "round.started", ...scoped, round: "x", chart: 1, chartName: "c", players: [100] });
    bus.publish({ kind: "round.scored", ...scoped, round: "x", chart: 1, user: 100, record: RECORD });
    deepEqual(await reader.next(), { event: "start_round", data: { type: "start_round", room: "r1" } });
    const score = await reader.next() as { event: string; data: Record<string, unknown> };
    equal(score.event, "player_score");
    equal(score.data.room, "r1");
    equal((score.data.record as { score: number }).score, 990000);
    equal(score.data.player_name, null, "user 100 is not known to this server");

    await p.run("plugin disable rooms_listen");
    const host = new SseReader((await p.http.request("/api/rooms/listen")).body!);
    bus.publish({ kind: "round.started", ...scoped, round: "y", chart: 1, chartName: "c", players: [100] });
    deepEqual(await host.next(), { event: "start_round", data: { room: "r1" } });
  } finally {
    await p.close();
  }
});

Deno.test("example chat_bot welcomes a player, answers !rank in chat and as a console command", async () => {
  const p = await startPluginHarness({ plugins: [{ id: "chat_bot", source: "examples/chat_bot" }] });
  try {
    const alice = await p.ch.h.login(100);
    await waitUntil(() => alice.received.some((c) => c.type === "Message" && c.message.type === "Chat"), "welcome");
    const welcome = alice.received.find((c) => c.type === "Message" && c.message.type === "Chat");
    match(JSON.stringify(welcome), /Welcome, Alice! Type !rank/);
    // The welcome text is the plugin's configuration, persisted in its data directory.
    const config = JSON.parse(await Deno.readTextFile(`${p.dataDir}/plugins/chat_bot/config.json`));
    equal(config.welcome, "Welcome, {name}! Type !rank in a room to see where you stand.");

    await alice.createRoom("bots");
    const seen = alice.received.length;
    await alice.chat("!rank");
    await waitUntil(
      () => alice.received.slice(seen).some((c) => JSON.stringify(c).includes("by playtime")),
      "the !rank answer",
    );
    const lines = (await p.run("chat rank 100")).lines;
    ok(lines.length === 1 && /by playtime/.test(lines[0]!), lines.join("\n"));
    ok((await p.run("help chat")).lines.some((l) => l.includes("chat rank")));
  } finally {
    await p.close();
  }
});
