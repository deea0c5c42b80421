import { deepEqual, equal, rejects } from "node:assert/strict";
import { ManualClock } from "../util/clock.ts";
import { SeededRandom } from "../util/random.ts";
import { Upstream } from "./client.ts";
import { createDevApi } from "./dev_api.ts";
import { devRks } from "./dev_users.ts";
import { UpstreamError } from "./errors.ts";

function setup() {
  const clock = new ManualClock();
  const dev = createDevApi({ clock });
  const up = new Upstream({ baseUrl: "http://dev.upstream", fetch: dev.fetch, clock, random: new SeededRandom(1) });
  return { dev, up };
}

Deno.test("Upstream.user reads a public profile; an unknown account is HTTP 404 without retries", async () => {
  const { dev, up } = setup();
  deepEqual(await up.user(100), {
    id: 100,
    name: "Alice",
    avatar: "http://dev.upstream/avatars/100.svg",
    rks: devRks(100),
  });
  dev.state.addUser({ id: 77, name: "Kira", rks: 14.25, avatar: "https://img.example/77.png" });
  deepEqual(await up.user(77), { id: 77, name: "Kira", avatar: "https://img.example/77.png", rks: 14.25 });
  dev.state.hideUser(77);
  await rejects(up.user(77), (e: unknown) => e instanceof UpstreamError && e.status === 404 && e.endpoint === "user");
  equal(up.stats().user.retries, 0);
  equal(up.stats().user.calls, 3);
});

Deno.test("Upstream.searchUsers returns the API's paged result; the dev API matches names case-insensitively", async () => {
  const { dev, up } = setup();
  dev.state.addUser({ id: 77, name: "Alicia" });
  const page = await up.searchUsers("ALI");
  equal(page.count, 2);
  deepEqual(page.results.map((p) => [p.id, p.name]), [[77, "Alicia"], [100, "Alice"]]);
  deepEqual((await up.searchUsers("Player123")).results.map((p) => p.id), [123]);
  deepEqual(await up.searchUsers("nobody-has-this"), { count: 0, results: [] });
  const paged = await up.searchUsers("a", 1);
  equal(paged.results.length, 1);
  equal(dev.state.requests.at(-1)?.path, "/user");
});

Deno.test("Upstream.user refuses a malformed profile", async () => {
  const { dev, up } = setup();
  dev.state.setFault("user", { body: { id: "x" } });
  await rejects(up.user(5), (e: unknown) => e instanceof UpstreamError && e.kind === "invalid_response");
});
