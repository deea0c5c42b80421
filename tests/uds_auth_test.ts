/**
 * OpenUDS handshake (spec 3 §4.5, §5 rule 3): token mode with a
 * constant-time comparison, console approval with an expiry, and refusals
 * for anything else. The token never reaches the log.
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { AUTH_TIMEOUT_MS } from "../src/uds/mod.ts";
import { waitUntil } from "./support/describe.ts";
import { startUdsHarness, TOKEN } from "./support/uds.ts";

Deno.test("openuds token mode: the right token authenticates, a wrong or missing one is refused", async () => {
  const u = await startUdsHarness();
  const good = await u.connect();
  await good.send({ type: "authenticate", token: TOKEN, client_name: "orchestrator" });
  const auth = await good.next();
  equal(auth.type, "authenticated");
  match(auth.session_id as string, /^[0-9a-f-]{36}$/);
  equal(auth.server_version, u.c.registry.services.version);
  for (
    const frame of [{ type: "authenticate", token: "wrong" }, { type: "Authenticate" }, {
      type: "authenticate",
      token: 5,
    }]
  ) {
    const bad = await u.connect();
    await bad.send(frame);
    await bad.closed;
    deepEqual(bad.frames, [{ type: "auth_error", code: "UNAUTHORIZED", message: "invalid token" }]);
  }
  const text = JSON.stringify(u.c.h.logs.history());
  ok(!text.includes(TOKEN), "the token is never logged");
  ok(text.includes("OpenUDS client refused: invalid token"));
  ok(text.includes("OpenUDS client authenticated"));
  await u.close();
});

Deno.test("openuds: anything but authenticate first is refused and the connection closed", async () => {
  const u = await startUdsHarness();
  const a = await u.connect();
  await a.send({ type: "command", id: "1", command: "server.stats" });
  await a.closed;
  deepEqual(a.frames, [{
    type: "auth_error",
    code: "UNAUTHORIZED",
    message: "authentication required: send {type: authenticate} first",
  }]);
  const b = await u.connect();
  await b.send("hello");
  await b.closed;
  deepEqual(b.frames, [{ type: "auth_error", code: "UNAUTHORIZED", message: "authentication required" }]);
  const c = await u.client();
  await c.send({ type: "authenticate", token: TOKEN });
  deepEqual((await c.next()).error, { code: "INVALID_STATE", message: "already authenticated" });
  await u.close();
});

Deno.test("openuds: a client that never authenticates is closed after the handshake timeout", async () => {
  const u = await startUdsHarness();
  const idle = await u.connect();
  await u.c.h.advance(AUTH_TIMEOUT_MS - 1);
  equal(idle.frames.length, 0);
  await u.c.h.advance(1);
  await idle.closed;
  deepEqual(idle.frames, [{ type: "auth_error", code: "UNAUTHORIZED", message: "authentication timed out" }]);
  await u.close();
});

Deno.test("openuds approval mode: AuthPending, then approve openuds on the console", async () => {
  const u = await startUdsHarness({ openuds: { auth_token: "", approval_ttl_secs: 120 } });
  const a = await u.connect();
  await a.send({ type: "authenticate", client_name: "dashboard" });
  const pending = await a.next();
  equal(pending.type, "auth_pending");
  match(pending.pending_id as string, /^[0-9a-f]{8}$/);
  equal(pending.expires_in_secs, 120);
  // Nothing works while waiting, but the connection stays.
  await a.send({ type: "command", id: 1, command: "server.stats" });
  deepEqual((await a.next()).error, { code: "UNAUTHORIZED", message: "waiting for console approval" });
  ok(u.c.h.logs.history().some((r) => r.fields.approve === `approve openuds ${pending.pending_id}`));
  const list = await u.c.lines("approve openuds");
  match(list[0]!, new RegExp(`^${pending.pending_id}  dashboard  expires 2026-01-01 00:02:00Z$`));
  deepEqual(await u.c.lines(`approve openuds ${pending.pending_id}`), [
    `OpenUDS client ${pending.pending_id} approved`,
  ]);
  equal((await a.next()).type, "authenticated");
  equal(((await a.ok("server.status")) as { server: string }).server, "Chorus");
  equal((await u.c.run(`approve openuds ${pending.pending_id}`)).ok, false, "an id works once");
  await u.close();
});

Deno.test("openuds approval mode: requests expire, and a token is refused", async () => {
  const u = await startUdsHarness({ openuds: { auth_token: "", approval_ttl_secs: 30 } });
  const a = await u.connect();
  await a.send({ type: "authenticate", client_name: "late" });
  const { pending_id } = await a.next();
  await u.c.h.advance(30_000);
  await a.closed;
  deepEqual(a.frames, [{ type: "auth_error", code: "UNAUTHORIZED", message: "approval request expired" }]);
  equal((await u.c.run(`approve openuds ${pending_id}`)).lines[0], `error: approval request ${pending_id} expired`);
  deepEqual(await u.c.lines("approve openuds"), ["no OpenUDS client is waiting for approval"]);
  const b = await u.connect();
  await b.send({ type: "authenticate", token: "guess" });
  await b.closed;
  deepEqual(b.frames, [{
    type: "auth_error",
    code: "UNAUTHORIZED",
    message: "token authentication is not configured",
  }]);
  // A client that goes away while waiting leaves nothing behind.
  const c = await u.connect();
  await c.send({ type: "authenticate" });
  await c.next();
  equal(u.uds.approvals.pending().length, 1);
  await c.close();
  await waitUntil(() => u.uds.approvals.pending().length === 0, "pending request dropped");
  await u.close();
});
