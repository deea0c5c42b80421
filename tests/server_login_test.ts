/**
 * Session authentication states (spec 3 §3.2): console sessions are their
 * own identity; a reconnect takes over only once its `Authenticate(Ok)` is
 * flushed, and any failure before that leaves the old binding working; the
 * pre-activation buffer limits of spec 3 §8; commands past their deadline.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { assertRejectsWithReason } from "../src/client/mod.ts";
import { PRE_AUTH_LIMITS } from "../src/session/auth_gate.ts";
import { expectLog, log, mark, waitUntil } from "./support/describe.ts";
import { devToken, type Harness, settle, startHarness } from "./support/harness.ts";
import { HeldConnection, loginBytes } from "./support/held_connection.ts";

// Bystanders send nothing for a while: a long heartbeat keeps them connected.
const QUIET = { heartbeat_timeout: 3600 };

/** Holds the next `/record` lookup until released, and the hedge `Played` sends beside it after 1.5 s. */
function holdRecordLookup(h: Harness): { started: () => boolean; release: () => void } {
  let started = false;
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  h.dev.state.setFault("record", {
    times: 2,
    hook: async () => {
      started = true;
      await released;
      return undefined;
    },
  });
  return { started: () => started, release };
}

/** Records user.online / user.offline of one user. */
function presence(h: Harness, user: number): string[] {
  const seen: string[] = [];
  h.bus.listen((e) => {
    if ((e.kind === "user.online" || e.kind === "user.offline") && e.user === user) seen.push(e.kind);
  });
  return seen;
}

/** Alice (100) hosts room "abc" with Bob (200). */
async function roomOfTwo(h: Harness) {
  const alice = await h.login(100);
  const bob = await h.login(200);
  await alice.createRoom("abc");
  await bob.joinRoom("abc");
  return { alice, bob };
}

/** Starts a second login of user 100 on a connection that never reads; resolves once it is DurableAccepted. */
async function stuckRelogin(h: Harness) {
  const conn = new HeldConnection(loginBytes(100));
  const session = h.server.attach(conn, "127.0.0.1")!;
  await waitUntil(() => session.state === "durable-accepted", "login answered, not flushed");
  return { conn, session };
}

Deno.test("a console authenticating with an online player's token is its own identity and replaces nobody", async () => {
  const h = await startHarness({ config: QUIET });
  const { alice, bob } = await roomOfTwo(h);
  const core = h.server.core;
  const aliceSession = core.users.get(100)!.session!;
  const events = presence(h, 100);
  const console = await h.connect();
  const { user, room } = await console.consoleAuthenticate(devToken(100));
  deepEqual(user, { id: 100, name: "Alice", monitor: false });
  equal(room, null, "never the player's room");
  await settle();
  equal(alice.isClosed, false, "the player's game connection stays open");
  const record = core.users.get(100)!;
  equal(record.session, aliceSession, "the player's binding is untouched");
  equal(record.category, "normal", "the account is not turned into a console");
  const a = mark(alice);
  await bob.chat("still here?");
  await expectLog(alice, ["Message.Chat{user:200,content:still here?}"], a);
  deepEqual(log(console), ["Authenticate(Ok)"], "the console gets no room traffic");
  await assertRejectsWithReason(console.createRoom("x"), "invalid command for this session");
  await console.close();
  await settle();
  equal(alice.isClosed, false, "closing the console leaves the player alone");
  equal(core.users.get(100)?.session, aliceSession);
  await alice.chat("yes");
  deepEqual(events, [], "no presence change for the player");
  await h.close();
});

Deno.test("a reconnect whose connection dies before its Authenticate(Ok) is flushed leaves the old one working", async () => {
  const h = await startHarness({ config: QUIET });
  const { alice, bob } = await roomOfTwo(h);
  const core = h.server.core;
  const oldSession = core.users.get(100)!.session!;
  const events = presence(h, 100);
  const { conn, session } = await stuckRelogin(h);
  ok(conn.bytesOffered > 0, "the reply was queued");
  equal(core.users.get(100)!.session, oldSession, "no takeover before the reply is flushed");
  equal(core.users.get(100)!.pending, session);
  const a = mark(alice);
  await bob.chat("before");
  await expectLog(alice, ["Message.Chat{user:200,content:before}"], a);
  equal(session.gatedFrames, 1, "the new connection holds the chat behind its reply");
  conn.hangUp();
  equal(await session.done, "eof");
  await settle();
  const user = core.users.get(100);
  ok(user, "the user is not deleted");
  equal(user.session, oldSession, "the old binding is kept");
  equal(user.pending, null);
  await bob.chat("after");
  await expectLog(alice, ["Message.Chat{user:200,content:before}", "Message.Chat{user:200,content:after}"], a);
  await alice.chat("mine still");
  equal(core.rooms.get("abc")?.players.length, 2);
  deepEqual(events, [], "presence stays balanced: no online or offline for a login that never became Active");
  await h.close();
});

Deno.test("a dangling user whose new connection dies before the flush dangles again; a new user is removed", async () => {
  const h = await startHarness({ config: { ...QUIET, dangle_grace: 10 } });
  const { alice, bob } = await roomOfTwo(h);
  const core = h.server.core;
  const events = presence(h, 100);
  await alice.close();
  await waitUntil(() => core.users.get(100)?.session === null, "alice dangling");
  const { conn, session } = await stuckRelogin(h);
  await h.advance(10_000);
  equal(core.rooms.get("abc")?.players.length, 2, "the grace does not run out under a login in flight");
  conn.hangUp();
  await session.done;
  await settle();
  equal(core.users.get(100)?.session, null, "dangling again");
  const b = mark(bob);
  await h.advance(10_000);
  await expectLog(bob, ["Message.LeaveRoom{user:100,name:Alice}", "Message.NewHost{user:200}", "ChangeHost(true)"], b);
  equal(core.users.has(100), false);
  deepEqual(events, ["user.offline"], "only the old connection's offline");

  const fresh = new HeldConnection(loginBytes(300));
  const third = h.server.attach(fresh, "127.0.0.1")!;
  await waitUntil(() => third.state === "durable-accepted", "login answered");
  ok(core.users.get(300)?.pending === third);
  fresh.hangUp();
  await third.done;
  await settle();
  equal(core.users.has(300), false, "a user created for a rolled-back login is removed");
  equal(core.seenPlayers.has(300), false, "and never counted as a player");
  await h.close();
});

Deno.test("the reply to the old connection's in-flight Played never reaches the new connection", async () => {
  const h = await startHarness({ config: QUIET });
  const alice = await h.login(100);
  await alice.createRoom("abc");
  await alice.selectChart(7);
  await alice.requestStart();
  await waitUntil(() => alice.roomState?.state.type === "Playing", "playing");
  const lookup = holdRecordLookup(h);
  const slow = alice.played(100001).catch(() => "old connection closed");
  await waitUntil(lookup.started, "record lookup started");
  const fresh = await h.connect();
  const { room } = await fresh.authenticate(devToken(100));
  equal(room?.id, "abc");
  await alice.closed;
  equal(await slow, "old connection closed");
  const f = mark(fresh);
  lookup.release();
  await waitUntil(() => h.server.core.counters.values.stale_commit_prevented === 1, "the old command finished");
  await settle(5);
  ok(!log(fresh, f).some((line) => line.startsWith("Played(")), "no Played reply on the new connection");
  deepEqual(fresh.violations, [], "so the official client cannot crash on it");
  await fresh.chat("fine");
  // The old command's commit was refused because its session was superseded: that is what the counter is for.
  deepEqual(h.server.core.counters.violations(), { stale_commit_prevented: 1 });
  await h.close({ allowViolations: true });
});

Deno.test("pre-activation buffer: 256 events fit; one more fails the login and counts compat_queue_drop", async () => {
  const h = await startHarness({ config: QUIET });
  const { alice } = await roomOfTwo(h);
  const core = h.server.core;
  const oldSession = core.users.get(100)!.session!;
  const { session } = await stuckRelogin(h);
  const chat = { type: "Message", message: { type: "Chat", user: 0, content: "x" } } as const;
  for (let i = 0; i < PRE_AUTH_LIMITS.maxEvents; i++) core.sendTo([100], chat);
  equal(session.gatedFrames, 256);
  equal(session.open, true);
  core.sendTo([100], chat);
  equal(await session.done, "slow-client", "the login fails closed");
  equal(core.users.get(100)?.session, oldSession);
  equal(core.users.get(100)?.pending, null);
  await waitUntil(() => alice.received.filter((c) => c.type === "Message").length >= 257, "old connection got all");
  await alice.chat("still bound");
  deepEqual(core.counters.violations(), { compat_queue_drop: 1 });
  await h.close({ allowViolations: true });
});

Deno.test("pre-activation buffer: a control frame that overflows it counts gate_control_overflow", async () => {
  const h = await startHarness({ config: QUIET });
  const { alice } = await roomOfTwo(h);
  const core = h.server.core;
  const { session } = await stuckRelogin(h);
  const chat = { type: "Message", message: { type: "Chat", user: 0, content: "x" } } as const;
  for (let i = 0; i < PRE_AUTH_LIMITS.maxEvents; i++) core.sendTo([100], chat);
  // Alice is the host already: the control frame changes nothing for her old connection.
  core.sendTo([100], { type: "ChangeHost", is_host: true });
  equal(await session.done, "slow-client");
  equal(core.users.get(100)?.pending, null);
  await alice.chat("still bound");
  deepEqual(core.counters.violations(), { gate_control_overflow: 1 });
  await h.close({ allowViolations: true });
});

Deno.test("pre-activation buffer: a reply not flushed within 8 s fails the login; the old binding stays", async () => {
  const h = await startHarness({ config: QUIET });
  const { alice } = await roomOfTwo(h);
  const core = h.server.core;
  const oldSession = core.users.get(100)!.session!;
  const { session } = await stuckRelogin(h);
  await h.advance(7_000);
  equal(session.open, true);
  await h.advance(2_000);
  equal(await session.done, "auth-timeout");
  equal(core.users.get(100)?.session, oldSession);
  await alice.chat("still bound");
  await h.close();
});

Deno.test("a command that reaches its handler after its deadline is refused and counts late_commit", async () => {
  const h = await startHarness({ config: QUIET });
  const alice = await h.login(100);
  await alice.createRoom("abc");
  await alice.selectChart(7);
  await alice.requestStart();
  await waitUntil(() => alice.roomState?.state.type === "Playing", "playing");
  const lookup = holdRecordLookup(h);
  const played = alice.played(100001);
  await waitUntil(lookup.started, "record lookup started");
  // Queued behind the slow Played: it reaches its handler 4.6 s after it arrived (deadline 4.5 s, budget 5 s).
  const chat = alice.chat("late");
  const server = h.server.core.users.get(100)!.session!;
  await waitUntil(() => server.outstanding("Chat") === 1, "chat received, waiting in the mailbox");
  await h.advance(4600);
  lookup.release();
  await played;
  await assertRejectsWithReason(chat, "Server is busy, please try again later");
  deepEqual(h.server.core.counters.violations(), { late_commit: 1 });
  await h.close({ allowViolations: true });
});
