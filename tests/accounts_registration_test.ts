/**
 * Account backend: registration (spec 2 §3, §6) with a hand-driven room
 * source — the answers before the stream, the stream's events, single-use
 * tokens, the 5-minute timeout on the manual clock, heartbeats, and a client
 * that goes away. The same flow over a real game server is in
 * `accounts_game_server_test.ts`.
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import type { RoomDataJson } from "../src/accounts/room_source.ts";
import {
  type AccountsClient,
  addUser,
  ManualRoomSource,
  ROOT_PASSWORD,
  startTestAccounts,
  type TestAccounts,
  TextSseReader,
} from "./support/accounts.ts";
import { settle } from "./support/harness.ts";

const PW = "password-123";

function room(host: number): RoomDataJson {
  return { host, users: [host], lock: false, cycle: false, chart: null, state: "SELECTING_CHART", rounds: [] };
}

async function register(c: AccountsClient, body: Record<string, unknown>) {
  const res = await c.raw("POST", "/api/auth/users", body);
  equal(res.status, 200, `registration refused: ${res.status}`);
  equal(res.headers.get("content-type"), "text/event-stream; charset=utf-8");
  const sse = new TextSseReader(res.body!);
  const first = await sse.next();
  ok(first && "event" in first && first.event === "validating", JSON.stringify(first));
  match(first.data, /^[0-9a-f]{12}$/, "the token is a valid room name");
  return { sse, token: first.data };
}

async function setup(): Promise<{ t: TestAccounts; source: ManualRoomSource }> {
  const t = await startTestAccounts();
  return { t, source: t.source as ManualRoomSource };
}

Deno.test("registration: validating once, success with the user when the named account creates the token room", async () => {
  const { t, source } = await setup();
  try {
    const c = t.client();
    const { sse, token } = await register(c, { username: "alice", password: PW, game_id_or_username: "Alice" });
    equal(t.service.ctx.verifications.pending, 1);
    source.emit({ type: "created", room: "other-room", creator: 100, data: room(100) });
    source.emit({ type: "created", room: token, creator: 100, data: room(100) });
    const success = await sse.event();
    equal(success?.event, "success");
    const user = JSON.parse(success!.data);
    deepEqual(
      [user.username, user.group_id, user.game_id, user.game_username, user.register_time],
      ["alice", 3, 100, "Alice", new Date(t.clock.now()).toISOString()],
    );
    ok(typeof user.game_rks === "number");
    equal(user.last_sync_time, user.register_time);
    equal(await sse.next(), null, "the stream ends");
    equal(t.service.ctx.verifications.pending, 0);
    // The token is spent: a second room of that name changes nothing.
    source.emit({ type: "created", room: token, creator: 100, data: room(100) });
    await t.login("alice", PW);
    const again = await c.post("/api/auth/users", { username: "alice2", password: PW, game_id_or_username: "100" });
    equal(again.status, 409);
    equal((again.body as { code: string }).code, "game_account_bound");
  } finally {
    await t.close();
  }
});

Deno.test("registration: a room created by another game account ends the proof with an error", async () => {
  const { t, source } = await setup();
  try {
    const { sse, token } = await register(t.client(), { username: "bob", password: PW, game_id_or_username: "200" });
    source.emit({ type: "created", room: token, creator: 300, data: room(300) });
    const error = await sse.event();
    equal(error?.event, "error");
    match(error!.data, new RegExp(`room ${token} was created by game account 300, not by game account 200`));
    equal(await sse.next(), null);
    equal((await t.client().post("/api/auth/login", { username: "bob", password: PW })).status, 401, "no user");
  } finally {
    await t.close();
  }
});

Deno.test("registration: heartbeats every 15 s, timeout after 5 minutes on the injected clock", async () => {
  const { t } = await setup();
  try {
    const { sse } = await register(t.client(), { username: "carol", password: PW, game_id_or_username: "300" });
    t.clock.advance(15_000);
    deepEqual(await sse.next(), { comment: "heartbeat" });
    t.clock.advance(5 * 60_000 - 15_000 - 1);
    await settle();
    equal(t.service.ctx.verifications.pending, 1);
    t.clock.advance(1);
    let frame = await sse.next();
    while (frame && "comment" in frame) frame = await sse.next();
    deepEqual(frame, { event: "timeout", data: "" });
    equal(await sse.next(), null);
    equal(t.service.ctx.verifications.pending, 0);
  } finally {
    await t.close();
  }
});

Deno.test("registration: a client that goes away ends its proof", async () => {
  const { t } = await setup();
  try {
    const { sse } = await register(t.client(), { username: "dave", password: PW, game_id_or_username: "400" });
    equal(t.service.ctx.registrations.size, 1);
    await sse.cancel();
    await settle();
    equal(t.service.ctx.verifications.pending, 0);
    equal(t.service.ctx.registrations.size, 0);
  } finally {
    await t.close();
  }
});

Deno.test("registration: two waiting for one game account (nobody can block another); the first to prove wins", async () => {
  const { t, source } = await setup();
  try {
    const first = await register(t.client("10.0.0.1"), { username: "eve1", password: PW, game_id_or_username: "500" });
    const second = await register(t.client("10.0.0.2"), { username: "eve2", password: PW, game_id_or_username: "500" });
    source.emit({ type: "created", room: second.token, creator: 500, data: room(500) });
    equal((await second.sse.event())?.event, "success");
    const lost = await first.sse.event();
    deepEqual(lost, { event: "error", data: "game account 500 was linked by another registration" });
  } finally {
    await t.close();
  }
});

Deno.test("registration: refusals before the stream are JSON errors with stable codes", async () => {
  const { t, source } = await setup();
  try {
    await addUser(t, "taken", PW, 3, 600);
    const c = t.client();
    const cases: [Record<string, unknown>, number, string][] = [
      [{ username: "a1", password: PW }, 400, "invalid_request"],
      [{ username: "a1", password: PW, game_id_or_username: 5 }, 400, "invalid_request"],
      [{ username: "a1", password: PW, game_id_or_username: "5", phira_id_or_username: "5" }, 400, "invalid_request"],
      [{ username: "a", password: PW, game_id_or_username: "5" }, 422, "invalid_username"],
      [{ username: "a1", password: "short", game_id_or_username: "5" }, 422, "invalid_password"],
      [{ username: "TAKEN", password: PW, game_id_or_username: "5" }, 409, "username_taken"],
      [{ username: "a1", password: PW, game_id_or_username: "600" }, 409, "game_account_bound"],
      [{ username: "a1", password: PW, game_id_or_username: "Nobody Named This" }, 422, "game_account_not_found"],
      [{ username: "a1", password: PW, game_id_or_username: "99999999999" }, 422, "invalid_game_account"],
      [{ username: "a1", password: PW, game_id_or_username: "  " }, 422, "invalid_game_account"],
      [{ username: "a1", password: PW, game_id_or_username: "5", group_id: 2 }, 401, "unauthenticated"],
    ];
    for (const [body, status, code] of cases) {
      const res = await c.post("/api/auth/users", body);
      equal(res.status, status, JSON.stringify(body));
      equal((res.body as { code: string }).code, code, JSON.stringify(body));
    }
    t.dev.state.hideUser(700);
    equal((await c.post("/api/auth/users", { username: "a1", password: PW, game_id_or_username: "700" })).status, 422);
    // The game API answering nonsense is a 502 naming it, never a 500 with an exception text.
    t.dev.state.setFault("user", { body: { nonsense: true }, times: 1 });
    const bad = await c.post("/api/auth/users", { username: "a1", password: PW, game_id_or_username: "701" });
    equal(bad.status, 502);
    equal((bad.body as { code: string }).code, "upstream_error");
    match((bad.body as { error: string }).error, /^the game API did not answer as expected/);
    // Without a game server link there is nothing to prove with.
    (source as { connected: boolean }).connected = false;
    const down = await c.post("/api/auth/users", { username: "a1", password: PW, game_id_or_username: "702" });
    equal(down.status, 503);
    equal((down.body as { code: string }).code, "game_server_unavailable");
  } finally {
    await t.close();
  }
});

Deno.test("registration: at most 3 proofs wait per address; a root may register into another group", async () => {
  const { t, source } = await setup();
  try {
    const c = t.client("10.1.1.1");
    const open: TextSseReader[] = [];
    for (let i = 0; i < 3; i++) {
      open.push((await register(c, { username: `u${i}x`, password: PW, game_id_or_username: String(800 + i) })).sse);
    }
    const fourth = await c.post("/api/auth/users", { username: "u9x", password: PW, game_id_or_username: "809" });
    equal(fourth.status, 429);
    for (const s of open) await s.cancel();
    await settle();
    const root = await t.login("root", ROOT_PASSWORD);
    const { sse, token } = await register(root, {
      username: "newadmin",
      password: PW,
      game_id_or_username: "810",
      group_id: 2,
    });
    source.emit({ type: "created", room: token, creator: 810, data: room(810) });
    const done = await sse.event();
    equal(JSON.parse(done!.data).group_id, 2);
  } finally {
    await t.close();
  }
});

Deno.test("registration: shutting down ends waiting proofs with an error event", async () => {
  const { t } = await setup();
  const { sse } = await register(t.client(), { username: "late1", password: PW, game_id_or_username: "900" });
  const closing = t.close();
  deepEqual(await sse.event(), { event: "error", data: "the server is shutting down; try again later" });
  await closing;
});

Deno.test("registration: one address may start 20 registrations an hour (each costs a game API lookup and a hash)", async () => {
  const { t } = await setup();
  try {
    const c = t.client("10.2.2.2");
    for (let i = 0; i < 20; i++) {
      const res = await c.post("/api/auth/users", {
        username: `n${i}x`,
        password: PW,
        game_id_or_username: "No Such One",
      });
      equal(res.status, 422);
    }
    const limited = await c.post("/api/auth/users", { username: "n99x", password: PW, game_id_or_username: "100" });
    equal(limited.status, 429);
    equal(limited.headers.get("retry-after"), "3600");
    const lookups = t.dev.state.requests.filter((r) => r.endpoint === "user").length;
    equal(lookups, 20, "the refused attempt cost no lookup");
    equal((await t.client("10.2.2.3").post("/api/auth/users", { username: "n98x", password: "short" })).status, 400);
    t.clock.advance(60 * 60_000);
    const again = await c.raw("POST", "/api/auth/users", {
      username: "n99x",
      password: PW,
      game_id_or_username: "100",
    });
    equal(again.status, 200);
    await again.body?.cancel();
  } finally {
    await t.close();
  }
});
