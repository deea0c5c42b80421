/**
 * Logins on durable persistence (spec 3 §3.2): a login refused after its
 * journal record was written — the fsync failed, or the socket closed
 * before the reply — is compensated and never counts; tokens never reach
 * the log or the disk, only their SHA-256 (spec 3 §2.2).
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { faultyJournalFiles } from "../src/persistence/journal/faults_test_util.ts";
import { devToken } from "../src/upstream/mod.ts";
import { ManualClock } from "../src/util/clock.ts";
import { waitUntil } from "./support/describe.ts";
import { dataDirs, type Stack, startStack } from "./support/persistence_stack.ts";

const dirs = dataDirs();
// Clients here do not ping: keep them connected while the clock runs.
const config = { heartbeat_timeout: 3600 };

/** Checks the counter this scenario must raise, then clears it so the stack's teardown check still guards the rest. */
function expectCommitWithoutResponse(s: Stack, n: number): void {
  const counters = s.server.core.counters;
  assert.deepEqual(counters.violations(), { commit_without_response: n });
  counters.values.commit_without_response = 0;
}

Deno.test("a login whose journal fsync fails is refused, compensated, and leaves no user or player behind", async () => {
  const { faults, open: openJournalFile } = faultyJournalFiles();
  const s = await startStack({ dataDir: await dirs.fresh(), openJournalFile, config });
  const alice = await s.login(100);
  await alice.close();
  faults.failSync = true;
  const bob = await s.connect();
  // A storage error the player can pass on, not "Server is busy" (issue 14 "Diagnostics").
  await assert.rejects(bob.authenticate(devToken(200)), /The server cannot save logins: its storage failed/);
  // A second refused login of a user who has logged in before takes back only its own login.
  const again = await s.connect();
  await assert.rejects(again.authenticate(devToken(100)), /its storage failed/);
  faults.failSync = false;
  await s.persistence.flush();
  const q = s.persistence.queries;
  assert.equal(await q.user(200), null, "no users row for the refused login");
  assert.equal(await q.totalPlayers(), 1);
  assert.equal((await q.user(100))?.login_count, 1, "only alice's real login counts");
  assert.deepEqual((await q.ipHistory(100)).map((r) => r.use_count), [1]);
  assert.deepEqual(await q.ipHistory(200), []);
  assert.equal(s.server.core.seenPlayers.has(200), false);
  expectCommitWithoutResponse(s, 2);
  await s.close();
});

Deno.test("a login whose socket closes between journaling and the reply is compensated", async () => {
  const { faults, open: openJournalFile } = faultyJournalFiles();
  const s = await startStack({ dataDir: await dirs.fresh(), openJournalFile, config });
  const core = s.server.core;
  let release!: () => void;
  faults.holdSync = new Promise((resolve) => (release = resolve));
  const carol = await s.connect();
  const login = carol.authenticate(devToken(300)).catch(() => "closed");
  await waitUntil(() => [...core.sessions][0]?.state === "authenticating", "login being journaled");
  await carol.close();
  await waitUntil(() => core.sessions.size === 0, "server saw the close");
  faults.holdSync = null;
  release();
  assert.equal(await login, "closed");
  await waitUntil(() => core.counters.values.commit_without_response === 1, "compensated");
  await s.persistence.flush();
  assert.equal(await s.persistence.queries.user(300), null);
  assert.equal(await s.persistence.queries.totalPlayers(), 0);
  assert.equal(core.users.has(300), false);
  expectCommitWithoutResponse(s, 1);
  await s.close();
});

/** Every file under `dir`, as latin-1 text (so any byte sequence can be searched). */
async function readTree(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) out.push(...await readTree(path));
    else if (entry.isFile) out.push(new TextDecoder("latin1").decode(await Deno.readFile(path)));
  }
  return out;
}

Deno.test("tokens never appear in the log, the journal or the store; the auth cache keeps their SHA-256", async () => {
  const dataDir = await dirs.fresh();
  const clock = new ManualClock();
  const s = await startStack({ dataDir, clock, config });
  const token = devToken(100);
  const hash = createHash("sha256").update(token).digest("hex");
  const alice = await s.connect();
  await alice.authenticate(token);
  await alice.createRoom("r1");
  const wrong = "not-a-real-token-0123456789abcd";
  await assert.rejects((await s.connect()).authenticate(wrong));
  clock.advance(60_000); // the periodic auth-cache save
  await s.persistence.flush();
  const logged = JSON.stringify(s.logs.history());
  assert.ok(logged.includes("user authenticated"), "the log was captured");
  assert.ok(logged.includes("authentication failed"), "the refused login was logged");
  assert.ok(!logged.includes(token), "no valid token in the log");
  assert.ok(!logged.includes(wrong), "no rejected token in the log");
  const journal = (await readTree(`${dataDir}/journal`)).join("\n");
  assert.ok(journal.includes(hash), "the journal holds the token's SHA-256");
  assert.equal(s.server.core.authCache.get(hash)?.user_id, 100);
  await s.close();
  // After a clean stop everything is in the store: no file under data_dir has either token.
  for (const text of await readTree(dataDir)) {
    assert.ok(!text.includes(token) && !text.includes(wrong), "no token on disk");
  }
});

Deno.test("cleanup of the template data directories", async () => {
  await dirs.cleanup();
});
