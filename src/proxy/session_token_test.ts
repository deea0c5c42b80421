import { deepEqual, equal, notEqual, ok, rejects } from "node:assert/strict";
import { decodeJwt, decodeProtectedHeader, jwtVerify, SignJWT } from "jose";
import { deriveKey } from "../net/mod.ts";
import { ManualClock } from "../util/clock.ts";
import { KEY_INFOS } from "./service.ts";
import { parseExpiry, SessionTokens, TokenError } from "./session_token.ts";

const hexBytes = (hex: string) => Uint8Array.from(hex.match(/../g)!, (b) => parseInt(b, 16));
// extended.md §5.2: the key derived for `jwt` from `dev_secret_local`.
const JWT_KEY = hexBytes(
  "8a84551811d3e1f35f1b2d1e332b11d0091d3d70f45d3c6e90fdc940685e9d10e51d13d518b63968179ab1508652925396a5f31923f003a30e4c036a43c23ec4",
);
const SEAL = new Uint8Array(32).fill(7);
const GAME_TOKEN = "0123456789abcdef0123456789abcdef";

async function rejectsWith(p: Promise<unknown>, kind: "expired" | "invalid", message: string): Promise<void> {
  await rejects(p, (e) => e instanceof TokenError && e.kind === kind && e.message === message);
}

Deno.test("session tokens: HS256 with the key derived for jwt (extended.md §5.2 vector), game token sealed", async () => {
  equal(KEY_INFOS.jwt, "jwt");
  deepEqual(await deriveKey("dev_secret_local", KEY_INFOS.jwt, 64), JWT_KEY);
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const tokens = new SessionTokens({ sign: JWT_KEY, seal: SEAL }, clock);
  const jwt = await tokens.issue(100, GAME_TOKEN, Date.UTC(2026, 0, 2));
  deepEqual(decodeProtectedHeader(jwt), { alg: "HS256", typ: "JWT" });
  // Anyone holding the jwt key verifies it with a stock JWT library.
  const { payload } = await jwtVerify(jwt, JWT_KEY, { currentDate: new Date(clock.now()) });
  equal(payload.sub, "100");
  equal(payload.id, 100);
  equal(payload.exp, Date.UTC(2026, 0, 2) / 1000);
  equal(payload.iat, Date.UTC(2026, 0, 1) / 1000);
  // The game token is not readable from the token (it sits in browser storage).
  equal(jwt.includes(GAME_TOKEN), false);
  equal(JSON.stringify(decodeJwt(jwt)).includes(GAME_TOKEN), false);
  deepEqual(await tokens.verify(jwt), { id: 100, gameToken: GAME_TOKEN, exp: Date.UTC(2026, 0, 2) / 1000 });
});

Deno.test("session tokens expire with the game token", async () => {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const tokens = new SessionTokens({ sign: JWT_KEY, seal: SEAL }, clock);
  const jwt = await tokens.issue(100, GAME_TOKEN, clock.now() + 60_000);
  clock.advance(59_000);
  equal((await tokens.verify(jwt)).id, 100);
  clock.advance(1_000);
  await rejectsWith(tokens.verify(jwt), "expired", "token expired; log in again");
});

Deno.test("session tokens: tampering, other keys, other algorithms and garbage are refused", async (t) => {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const tokens = new SessionTokens({ sign: JWT_KEY, seal: SEAL }, clock);
  const jwt = await tokens.issue(100, GAME_TOKEN, clock.now() + 3_600_000);
  const [header, payload, signature] = jwt.split(".") as [string, string, string];
  const b64 = (o: unknown) => btoa(JSON.stringify(o)).replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_");
  const claims = decodeJwt(jwt);
  const cases: [string, () => Promise<string>][] = [
    [
      "payload changed (id 100 → 1)",
      () => Promise.resolve(`${header}.${b64({ ...claims, id: 1, sub: "1" })}.${signature}`),
    ],
    ["expiry pushed back", () => Promise.resolve(`${header}.${b64({ ...claims, exp: 4_000_000_000 })}.${signature}`)],
    ["signature flipped", () => Promise.resolve(`${header}.${payload}.${signature.slice(0, -2)}AA`)],
    ["alg none", () => Promise.resolve(`${b64({ alg: "none", typ: "JWT" })}.${payload}.`)],
    [
      "signed with another key",
      () => new SignJWT(claims).setProtectedHeader({ alg: "HS256" }).sign(new Uint8Array(64).fill(1)),
    ],
    ["HS512 with the right key", () => new SignJWT(claims).setProtectedHeader({ alg: "HS512" }).sign(JWT_KEY)],
    [
      "valid signature, sealed token swapped",
      () => new SignJWT({ ...claims, gt: "x.y.z.w.v" }).setProtectedHeader({ alg: "HS256" }).sign(JWT_KEY),
    ],
    [
      "valid signature, no exp",
      () => new SignJWT({ id: 100, gt: claims.gt, sub: "100" }).setProtectedHeader({ alg: "HS256" }).sign(JWT_KEY),
    ],
    ["not a JWT", () => Promise.resolve("hello")],
    ["empty", () => Promise.resolve("")],
  ];
  for (const [name, make] of cases) {
    await t.step(name, async () => rejectsWith(tokens.verify(await make()), "invalid", "invalid token"));
  }
  await t.step("the seal key matters too", async () => {
    const other = new SessionTokens({ sign: JWT_KEY, seal: new Uint8Array(32).fill(8) }, clock);
    await rejectsWith(other.verify(jwt), "invalid", "invalid token");
  });
});

Deno.test("session tokens: each issue seals afresh; short keys are refused", async () => {
  const clock = new ManualClock();
  const tokens = new SessionTokens({ sign: JWT_KEY, seal: SEAL }, clock);
  notEqual(await tokens.issue(1, "t", clock.now() + 1000), await tokens.issue(1, "t", clock.now() + 1000));
  ok(new SessionTokens({ sign: new Uint8Array(32), seal: SEAL }, clock));
  let threw = false;
  try {
    new SessionTokens({ sign: new Uint8Array(16), seal: SEAL }, clock);
  } catch (e) {
    threw = e instanceof RangeError;
  }
  equal(threw, true);
});

Deno.test("parseExpiry reads RFC 3339 text, seconds or milliseconds", () => {
  equal(parseExpiry("2026-02-01T00:00:00Z"), Date.UTC(2026, 1, 1));
  equal(parseExpiry("2026-02-01T08:00:00+08:00"), Date.UTC(2026, 1, 1));
  equal(parseExpiry(1_800_000_000), 1_800_000_000_000);
  equal(parseExpiry(1_800_000_000_000), 1_800_000_000_000);
  equal(parseExpiry(undefined), null);
  equal(parseExpiry("soon"), null);
  equal(parseExpiry(-5), null);
});
