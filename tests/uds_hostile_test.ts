/**
 * OpenUDS against hostile local clients (issue 14 "Caps are global"): four
 * connections that never authenticated locked the operator out, and wrong
 * tokens could be tried as fast as the socket allowed. Unauthenticated
 * connections now time out quickly, have their own bound and never take an
 * operator's slot; failed tokens back off and share a budget.
 */
import { deepEqual, equal } from "node:assert/strict";
import { AUTH_TIMEOUT_MS, MAX_UNAUTHENTICATED, OPENUDS_AUTH_LIMITS } from "../src/uds/mod.ts";
import { waitUntil } from "./support/describe.ts";
import { settle } from "./support/harness.ts";
import { startUdsHarness, TOKEN, type UdsClient } from "./support/uds.ts";

Deno.test("openuds: connections that never authenticate do not lock the operator out, and go after 5 s", async () => {
  const u = await startUdsHarness({ openuds: { max_connections: 4 } });
  const idle: UdsClient[] = [];
  for (let i = 0; i < 4; i++) idle.push(await u.connect());
  await waitUntil(() => u.uds.connections === 4, "idle connections accepted");
  const operator = await u.client();
  equal(((await operator.ok("server.stats")) as { openuds_connections: number }).openuds_connections, 1);
  equal(AUTH_TIMEOUT_MS, 5000);
  await u.c.h.advance(AUTH_TIMEOUT_MS);
  for (const c of idle) {
    await c.closed;
    deepEqual(c.frames, [{ type: "auth_error", code: "UNAUTHORIZED", message: "authentication timed out" }]);
  }
  await u.close();
});

Deno.test("openuds: unauthenticated connections are bounded; the oldest makes room for a newcomer", async () => {
  const u = await startUdsHarness();
  const idle: UdsClient[] = [];
  for (let i = 0; i < MAX_UNAUTHENTICATED; i++) idle.push(await u.connect());
  await waitUntil(() => u.uds.connections === MAX_UNAUTHENTICATED, "idle connections accepted");
  const operator = await u.client();
  await operator.ok("server.stats");
  await idle[0]!.closed;
  deepEqual(idle[0]!.frames, [{
    type: "auth_error",
    code: "TOO_MANY_CONNECTIONS",
    message: `too many unauthenticated connections (${MAX_UNAUTHENTICATED})`,
  }]);
  equal(u.uds.connections, MAX_UNAUTHENTICATED);
  await u.close();
});

Deno.test("openuds: wrong tokens back off; a refused attempt is not tried", async () => {
  const u = await startUdsHarness();
  const tryToken = async (token: string) => {
    const c = await u.connect();
    await c.send({ type: "authenticate", token });
    await waitUntil(() => c.frames.length > 0, "an answer");
    const frame = c.frames[0]!;
    await c.close();
    return frame;
  };
  for (let i = 0; i < OPENUDS_AUTH_LIMITS.freeFailures; i++) {
    deepEqual(await tryToken(`guess-${i}`), { type: "auth_error", code: "UNAUTHORIZED", message: "invalid token" });
  }
  deepEqual(await tryToken("guess-x"), { type: "auth_error", code: "UNAUTHORIZED", message: "invalid token" });
  // Now even the right token waits: nothing is compared until the back-off ends.
  deepEqual(await tryToken(TOKEN), {
    type: "auth_error",
    code: "RATE_LIMITED",
    message: "too many failed authentications; retry in 1 s",
    retry_after_secs: 1,
  });
  await u.c.h.advance(1000);
  equal((await tryToken(TOKEN)).type, "authenticated");
  await settle();
  await u.close();
});
