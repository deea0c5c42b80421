/**
 * Account backend against a real game server on loopback: the monitor
 * protocol source (TCP, derived key) and the in-process bus source, the
 * registration proof made by real game clients creating rooms (success,
 * wrong account, timeout), and profile R fed from real rooms and rounds.
 * The game server and the backend each have their own manual clock.
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { BusRoomSource, MonitorRoomSource, type RoomSource } from "../src/accounts/mod.ts";
import { playingUsers, roomData } from "../src/room/mod.ts";
import { roomMonitorKey } from "../src/net/mod.ts";
import { ManualClock } from "../src/util/clock.ts";
import { LogHub } from "../src/util/log.ts";
import { startTestAccounts, type TestAccounts, TextSseReader } from "./support/accounts.ts";
import { waitUntil } from "./support/describe.ts";
import { type Harness, settle, startHarness } from "./support/harness.ts";

const SECRET = "accounts-test-secret";
const PW = "password-123";
const quiet = new LogHub({ level: "error", sink: () => {} }).logger();

async function monitorSetup(): Promise<{ h: Harness; t: TestAccounts; clock: ManualClock }> {
  const h = await startHarness({ config: { service_secret_key: SECRET } });
  const clock = new ManualClock();
  const source = new MonitorRoomSource({
    host: "127.0.0.1",
    port: h.port,
    key: await roomMonitorKey(SECRET),
    clock,
    log: quiet,
  });
  const t = await startTestAccounts({ clock, source });
  await waitUntil(() => source.connected, "the monitor link");
  return { h, t, clock };
}

async function busSetup(): Promise<{ h: Harness; t: TestAccounts }> {
  const h = await startHarness();
  const source = new BusRoomSource({
    bus: h.bus,
    log: quiet,
    rooms: () =>
      [...h.server.core.rooms.values()].filter((r) => !r.hidden).map((r) => ({
        name: r.id,
        data: roomData(r),
        playing: playingUsers(r),
      })),
  });
  return startTestAccounts({ source }).then((t) => ({ h, t }));
}

async function startRegistration(t: TestAccounts, username: string, game: string) {
  const res = await t.client().raw("POST", "/api/auth/users", { username, password: PW, game_id_or_username: game });
  equal(res.status, 200);
  const sse = new TextSseReader(res.body!);
  const first = await sse.event();
  equal(first?.event, "validating");
  return { sse, token: first!.data };
}

for (const [label, setup] of [["monitor protocol", monitorSetup], ["event bus", busSetup]] as const) {
  Deno.test(`registration over a real game server (${label}): the named account creates the token room`, async () => {
    const { h, t } = await setup();
    try {
      const { sse, token } = await startRegistration(t, "alice", "Alice");
      const alice = await h.login(100);
      await alice.createRoom(token);
      const success = await sse.event();
      equal(success?.event, "success");
      const user = JSON.parse(success!.data);
      deepEqual([user.username, user.game_id, user.game_username], ["alice", 100, "Alice"]);
      const me = await t.login("alice", PW);
      equal(((await me.get("/api/auth/me")).body as { game_id: number }).game_id, 100);
      // The proof room is an ordinary room of the game server; the backend lists it.
      await waitUntil(() => t.service.ctx.rooms.has(token), "the room in the table");
      equal(((await me.get(`/api/rooms/user/100`)).body as { name: string }).name, token);
    } finally {
      await t.close();
      await h.close();
    }
  });

  Deno.test(`registration over a real game server (${label}): another account creating the room is refused`, async () => {
    const { h, t } = await setup();
    try {
      const { sse, token } = await startRegistration(t, "alice", "100");
      const bob = await h.login(200);
      await bob.createRoom(token);
      const error = await sse.event();
      equal(error?.event, "error");
      match(error!.data, /created by game account 200, not by game account 100/);
      equal(await sse.next(), null);
      equal((await t.client().post("/api/auth/login", { username: "alice", password: PW })).status, 401);
    } finally {
      await t.close();
      await h.close();
    }
  });
}

Deno.test("registration over a real game server: no room within 5 minutes is a timeout", async () => {
  const { h, t, clock } = await monitorSetup();
  try {
    const { sse, token } = await startRegistration(t, "carol", "Carol");
    const carol = await h.login(300);
    await carol.createRoom("not-the-token");
    clock.advance(5 * 60_000);
    let frame = await sse.next();
    while (frame && "comment" in frame) frame = await sse.next();
    deepEqual(frame, { event: "timeout", data: "" });
    // Too late: the token is no longer a proof.
    await carol.leaveRoom();
    await carol.createRoom(token);
    await waitUntil(() => t.service.ctx.rooms.has(token), "the late room");
    equal((await t.client().post("/api/auth/login", { username: "carol", password: PW })).status, 401);
  } finally {
    await t.close();
    await h.close();
  }
});

Deno.test("profile R over the monitor protocol: rooms, rounds and scores of a real game; emptied rooms go away", async () => {
  const { h, t, clock } = await monitorSetup();
  try {
    const alice = await h.login(100);
    const bob = await h.login(200);
    await alice.createRoom("early");
    await waitUntil(() => t.service.ctx.rooms.has("early"), "a room created before listening");
    const sse = new TextSseReader((await t.client().raw("GET", "/api/rooms/listen")).body!);
    await bob.joinRoom("early");
    await alice.selectChart(1);
    await alice.requestStart();
    await bob.ready();
    await waitUntil(() => t.service.ctx.rooms.get("early")?.data.state === "PLAYING", "playing");
    deepEqual(t.service.ctx.rooms.get("early")?.data.playing_users, [100, 200]);
    await alice.played(100001);
    await bob.played(200001);
    const names: string[] = [];
    for (;;) {
      const f = await sse.event();
      names.push(f!.event);
      if (f!.event === "update_room" && f!.data.includes("SELECTING_CHART")) break;
    }
    deepEqual(names, [
      "join_room",
      "update_room",
      "update_room",
      "update_room",
      "start_round",
      "player_score",
      "player_score",
      "update_room",
    ]);
    const info = (await t.client().get("/api/rooms/info/early")).body as { data: { rounds: { records: unknown[] }[] } };
    equal(info.data.rounds[0]?.records.length, 2);
    await bob.leaveRoom();
    await alice.leaveRoom();
    await waitUntil(() => !t.service.ctx.rooms.get("early")?.data.users.length, "left");
    clock.advance(100);
    await waitUntil(() => !t.service.ctx.rooms.has("early"), "the emptied room removed after a fresh snapshot");
    deepEqual((await t.client().get("/api/rooms/info")).body, []);
    await sse.cancel();
  } finally {
    await t.close();
    await h.close();
  }
});

Deno.test("the monitor link: visited accounts recorded, a second monitor refused, and the link going down is reported", async () => {
  const { h, t, clock } = await monitorSetup();
  try {
    await h.login(100);
    await h.login(200);
    await waitUntil(() => clock.pending > 0, "visited batch timer");
    clock.advance(1000);
    for (let i = 0; i < 200 && (await t.client().get("/api/auth/visited/count")).body !== 2; i++) await settle(1);
    equal((await t.client().get("/api/auth/visited/count")).body, 2);
    // The game server accepts one room monitor: another backend keeps retrying with back-off.
    const clock2 = new ManualClock();
    const second: RoomSource = new MonitorRoomSource({
      host: "127.0.0.1",
      port: h.port,
      key: await roomMonitorKey(SECRET),
      clock: clock2,
      log: quiet,
    });
    const events: string[] = [];
    second.start((e) => events.push(e.type));
    await waitUntil(() => clock2.pending > 0, "a retry scheduled");
    equal(second.connected, false);
    deepEqual(events, [] as string[]);
    await second.close();
    // A wrong secret never connects either.
    const clock3 = new ManualClock();
    const wrong = new MonitorRoomSource({
      host: "127.0.0.1",
      port: h.port,
      key: await roomMonitorKey("not-the-secret"),
      clock: clock3,
      log: quiet,
    });
    wrong.start((e) => events.push(e.type));
    await waitUntil(() => clock3.pending > 0, "a retry scheduled");
    clock3.advance(1000);
    await waitUntil(() => clock3.pending > 0, "the next retry scheduled");
    deepEqual(events, [] as string[]);
    await wrong.close();
    await h.server.shutdown();
    await waitUntil(() => !t.service.ctx.source.connected, "link down");
    const ready = await t.client().get("/health/ready");
    equal(ready.status, 503);
    ok(JSON.stringify(ready.body).includes("monitor 127.0.0.1"));
    const reg = await t.client().post("/api/auth/users", { username: "late1", password: PW, game_id_or_username: "5" });
    equal((reg.body as { code: string }).code, "game_server_unavailable");
  } finally {
    await t.close();
    await h.close({ allowViolations: true });
  }
});

Deno.test("profile R over the event bus: scores as each player finishes, deleted rooms go at once", async () => {
  const { h, t } = await busSetup();
  try {
    const alice = await h.login(100);
    const bob = await h.login(200);
    await alice.createRoom("live");
    await bob.joinRoom("live");
    await alice.selectChart(1);
    await alice.requestStart();
    await bob.ready();
    await waitUntil(() => t.service.ctx.rooms.get("live")?.data.state === "PLAYING", "playing");
    const sse = new TextSseReader((await t.client().raw("GET", "/api/rooms/listen")).body!);
    await alice.played(100001);
    const score = await sse.event();
    equal(score?.event, "player_score");
    equal(JSON.parse(score!.data).record.player, 100);
    deepEqual(t.service.ctx.rooms.get("live")?.data.playing_users, [200], "bob still plays");
    await bob.played(200001);
    await alice.leaveRoom();
    await bob.leaveRoom();
    await waitUntil(() => !t.service.ctx.rooms.has("live"), "deleted");
    await sse.cancel();
  } finally {
    await t.close();
    await h.close();
  }
});
