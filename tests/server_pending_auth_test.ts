/**
 * `max_pending_auth` (spec 3 §2.3, §3.2) counts a login from its
 * `Authenticate` until it is Active or failed: logins waiting on the
 * journal's fsync, or on the flush of their reply, are bounded too.
 * The journal is faked with one whose writes wait until released.
 */
import { deepEqual, equal } from "node:assert/strict";
import { defaultConfig } from "../src/config/mod.ts";
import { EventBus } from "../src/events/mod.ts";
import type { LoginJournal, LoginRecord } from "../src/server/context.ts";
import { GameServer } from "../src/server/mod.ts";
import type { Session } from "../src/session/session.ts";
import { createDevApi, Upstream } from "../src/upstream/mod.ts";
import { ManualClock } from "../src/util/clock.ts";
import { LogHub } from "../src/util/log.ts";
import { SeededRandom } from "../src/util/random.ts";
import { waitUntil } from "./support/describe.ts";
import { HeldConnection, loginBytes } from "./support/held_connection.ts";

const BUSY = "Server is busy, please try again later";

/** A journal whose writes wait until released, one at a time, and then succeed or fail. */
class GatedJournal implements LoginJournal {
  waiting: { record: LoginRecord; settle: (error?: Error) => void }[] = [];
  revoked: number[] = [];

  recordLogin(record: LoginRecord): Promise<void> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ record, settle: (error) => error ? reject(error) : resolve() });
    });
  }

  revokeLogin(record: LoginRecord): void {
    this.revoked.push(record.user_id);
  }

  /** Completes the oldest waiting write (it fails with `error` if given). */
  finish(error?: Error): void {
    this.waiting.shift()!.settle(error);
  }
}

function startServer(journal: LoginJournal): GameServer {
  const clock = new ManualClock();
  const dev = createDevApi({ clock });
  return new GameServer({
    config: {
      ...defaultConfig(),
      max_pending_auth: 1,
      heartbeat_timeout: 3600,
      // Welcome lines would follow every reply; the logs asserted here are exact.
      welcome: { enabled: false, show_time: false, messages: {} },
    },
    clock,
    random: new SeededRandom(1),
    log: new LogHub({ level: "error", sink: () => {} }).logger(),
    upstream: new Upstream({ baseUrl: "http://dev.upstream", fetch: dev.fetch, clock, random: new SeededRandom(7) }),
    bus: new EventBus(() => clock.now()),
    loginJournal: journal,
  });
}

/** Starts a login of dev user `id`; its writes complete unless `held`. */
function startLogin(server: GameServer, id: number, held = false): { conn: HeldConnection; session: Session } {
  const conn = new HeldConnection(loginBytes(id));
  if (!held) conn.release();
  return { conn, session: server.attach(conn, "127.0.0.1")! };
}

/** A login refused as busy: `Authenticate(Err)` with the busy text, then the connection closes. */
async function expectBusy(server: GameServer, id: number): Promise<void> {
  const { conn, session } = startLogin(server, id);
  equal(await session.done, "rejected");
  deepEqual(conn.commands(), [{ type: "Authenticate", result: { ok: false, error: BUSY } }]);
}

Deno.test("max_pending_auth counts a login while its journal record waits for fsync", async () => {
  const journal = new GatedJournal();
  const server = startServer(journal);
  const core = server.core;
  const first = startLogin(server, 100);
  await waitUntil(() => journal.waiting.length === 1, "first login being journaled");
  equal(core.pendingAuth, 1);
  await expectBusy(server, 200);
  equal(core.counters.values.auth_rejected_busy, 1);
  equal(journal.waiting.length, 1, "the refused login never reached the journal");

  journal.finish();
  await waitUntil(() => first.session.state === "active", "first login active");
  equal(core.pendingAuth, 0);
  deepEqual(first.conn.log(), ["Authenticate(Ok)"]);
  const third = startLogin(server, 300);
  await waitUntil(() => journal.waiting.length === 1, "third login being journaled");
  journal.finish();
  await waitUntil(() => third.session.state === "active", "a login after the first one completed is accepted");
  equal(core.pendingAuth, 0);
  await server.shutdown();
});

Deno.test("max_pending_auth counts a journaled login until its reply is flushed", async () => {
  const journal = new GatedJournal();
  const server = startServer(journal);
  const core = server.core;
  const first = startLogin(server, 100, true);
  await waitUntil(() => journal.waiting.length === 1, "journaling");
  journal.finish();
  await waitUntil(() => first.session.state === "durable-accepted", "reply queued, not flushed");
  equal(core.pendingAuth, 1);
  await expectBusy(server, 200);
  first.conn.release();
  await waitUntil(() => first.session.state === "active", "active");
  equal(core.pendingAuth, 0);
  await server.shutdown();
});

Deno.test("max_pending_auth stops counting a login that failed: journal error, or connection gone once fsync ends", async (t) => {
  await t.step("the journal write fails", async () => {
    const journal = new GatedJournal();
    const server = startServer(journal);
    const first = startLogin(server, 100);
    await waitUntil(() => journal.waiting.length === 1, "journaling");
    journal.finish(new Error("Cannot append to the journal: ENOSPC"));
    equal(await first.session.done, "rejected");
    // A storage error the player can pass on, not "Server is busy" (issue 14 "Diagnostics").
    deepEqual(first.conn.log(), [
      "Authenticate(Err:The server cannot save logins: its storage failed. Please tell the server's operator)",
    ]);
    equal(server.core.pendingAuth, 0);
    const next = startLogin(server, 200);
    await waitUntil(() => journal.waiting.length === 1, "the next login is admitted");
    journal.finish();
    await waitUntil(() => next.session.state === "active", "active");
    await server.shutdown();
  });

  await t.step("the connection closes while the record waits for fsync", async () => {
    const journal = new GatedJournal();
    const server = startServer(journal);
    const first = startLogin(server, 100);
    await waitUntil(() => journal.waiting.length === 1, "journaling");
    first.conn.close();
    equal(await first.session.done, "eof");
    // Its fsync is still running: the login keeps its place until the journal answers.
    equal(server.core.pendingAuth, 1);
    await expectBusy(server, 200);
    journal.finish();
    await waitUntil(() => server.core.pendingAuth === 0, "released once the journal answered");
    deepEqual(journal.revoked, [100], "the record nobody was told about is compensated");
    equal(server.core.users.has(100), false);
    deepEqual(server.core.counters.violations(), { commit_without_response: 1 });
    await server.shutdown();
  });
});
