import { deepEqual, equal, notEqual } from "node:assert/strict";
import { AuthCache, tokenHash } from "./auth_cache.ts";

const id = (user_id: number) => ({ user_id, name: `u${user_id}`, language: "en-US", cached_at: 0 });

Deno.test("tokenHash is hex SHA-256 and does not contain the token", async () => {
  const hash = await tokenHash("secret-token");
  equal(hash.length, 64);
  notEqual(hash.includes("secret"), true);
  equal(await tokenHash("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
});

Deno.test("AuthCache evicts the least recently used entry", () => {
  const cache = new AuthCache(2);
  cache.set("a", id(1));
  cache.set("b", id(2));
  cache.get("a");
  cache.set("c", id(3));
  deepEqual(cache.entries().map(([k]) => k), ["a", "c"]);
  equal(cache.get("b"), undefined);
  cache.forgetUser(1);
  deepEqual(cache.entries().map(([k]) => k), ["c"]);
});
