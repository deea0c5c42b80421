/**
 * Guessing the admin password (issue 14 "the admin login's 5-per-minute
 * limit is per address only": 200 addresses × 5 = 1,000 guesses in 0.4 s).
 * Failures from all addresses share one budget, and an address that keeps
 * failing waits longer each time.
 */
import { deepEqual, equal } from "node:assert/strict";
import { ADMIN_LOGIN_LIMITS } from "../src/http/mod.ts";
import { ADMIN_PASSWORD, type HttpHarness, startHttpHarness } from "./support/http.ts";

async function attempt(
  h: HttpHarness,
  password: string,
  ip: string,
): Promise<{ status: number; retry: string | null }> {
  const res = await h.http.request("/admin/api/login", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ password }),
  }, { ip });
  await res.body?.cancel();
  return { status: res.status, retry: res.headers.get("retry-after") };
}

Deno.test("http admin login: 200 addresses × 5 guesses get only the overall failure budget checked", async () => {
  const h = await startHttpHarness();
  try {
    const statuses: Record<number, number> = {};
    for (let i = 0; i < 200; i++) {
      for (let j = 0; j < 5; j++) {
        const { status } = await attempt(h, `guess-${i}-${j}`, `10.1.${i >> 8}.${i & 255}`);
        statuses[status] = (statuses[status] ?? 0) + 1;
      }
    }
    deepEqual(statuses, { 401: ADMIN_LOGIN_LIMITS.budget, 429: 1000 - ADMIN_LOGIN_LIMITS.budget });
    // While the budget is spent nobody is tried, the right password included; it refills over its window.
    const blocked = await attempt(h, ADMIN_PASSWORD, "192.0.2.77");
    equal(blocked.status, 429);
    await h.advance(Number(blocked.retry) * 1000);
    equal((await attempt(h, ADMIN_PASSWORD, "192.0.2.77")).status, 200);
  } finally {
    await h.close();
  }
});

Deno.test("http admin login: an address that keeps failing waits longer after each failure", async () => {
  const h = await startHttpHarness();
  try {
    const ip = "203.0.113.9";
    for (let i = 0; i < 5; i++) equal((await attempt(h, `guess${i}`, ip)).status, 401);
    deepEqual(await attempt(h, "guess", ip), { status: 429, retry: "60" });
    await h.advance(60_000);
    equal((await attempt(h, "guess5", ip)).status, 401);
    deepEqual(await attempt(h, "guess", ip), { status: 429, retry: "60" });
    await h.advance(60_000);
    equal((await attempt(h, "guess6", ip)).status, 401);
    deepEqual(await attempt(h, ADMIN_PASSWORD, ip), { status: 429, retry: "120" });
    await h.advance(120_000);
    equal((await attempt(h, ADMIN_PASSWORD, ip)).status, 200);
  } finally {
    await h.close();
  }
});
