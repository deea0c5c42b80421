import assert from "node:assert/strict";
import { loadConfig } from "../config/mod.ts";
import { devEndpointNotice, devGuide } from "./dev_command.ts";
import { devToken } from "./dev_accounts.ts";
import { createDevApi } from "./dev_api.ts";

/** Loads with injected inputs; `file` is the text of server_config.yml. */
function load(o: { args?: string[]; env?: Record<string, string>; file?: string }) {
  return loadConfig({
    args: o.args ?? [],
    env: o.env ?? {},
    cwd: "/srv",
    readTextFile: (path) => path === "/srv/server_config.yml" ? o.file ?? null : null,
  });
}

Deno.test("devEndpointNotice names the development upstream and warns when the user's endpoint is overridden", async (t) => {
  const url = "http://127.0.0.1:40001";
  await t.step("default endpoint: info only", async () => {
    const notice = devEndpointNotice(await load({}), url);
    assert.match(notice.info, /^game API endpoint is the development upstream http:\/\/127\.0\.0\.1:40001 /);
    assert.equal(notice.warning, null);
  });
  const explicit: [string, Parameters<typeof load>[0], string][] = [
    ["file", { file: "game_api_endpoint: https://api.example.com\n" }, "from file server_config.yml line 1"],
    [
      "environment",
      { env: { PM_GAME_API_ENDPOINT: "https://api.example.com" } },
      "from environment PM_GAME_API_ENDPOINT",
    ],
    ["flag", { args: ["dev", "--game-api-endpoint", "https://api.example.com"] }, "from flag --game-api-endpoint"],
  ];
  for (const [name, input, phrase] of explicit) {
    await t.step(`set by ${name}: a warning naming value and source`, async () => {
      const notice = devEndpointNotice(await load(input), url);
      assert.equal(
        notice.warning,
        `game_api_endpoint = "https://api.example.com" (${phrase}): ignored by the dev command, which uses the ` +
          `development upstream ${url}; run \`start\` to use this endpoint`,
      );
    });
  }
});

Deno.test("devGuide says which chart ids exist and how record ids map to players and scores, truthfully", async () => {
  const api = createDevApi();
  const url = "http://127.0.0.1:12380";
  const text = devGuide(url).join("\n");
  assert.match(text, /^development upstream: http:\/\/127\.0\.0\.1:12380$/m);
  assert.ok(text.includes(`Alice (100) ${devToken(100)}`));
  assert.match(text, /charts: every id 1\.\.999999 exists \("Chart <id>", 30-120 s of wav\/flac\/ogg\/mp3 audio\)/);
  assert.match(text, /named: 1 "Dev Tutorial", 7 "Lucky Seven", 42 "The Answer"/);
  assert.match(
    text,
    /records: id = player × 1000 \+ n is play n \(1\.\.999\) of that player, e\.g\. 100001 = Alice's play 1/,
  );
  // What it says holds: chart 42 is "The Answer", chart 999999 exists, 1000000 does not.
  const chart = async (id: number) => await api.fetch(new Request(`${url}/chart/${id}`));
  assert.equal((await (await chart(42)).json()).name, "The Answer");
  assert.equal((await chart(999999)).status, 200);
  const missing = await chart(1000000);
  assert.equal(missing.status, 404);
  await missing.body?.cancel();
  // Record 100001 is Alice's all-perfect play; 100003 is a rough one; 100000 is no record.
  const record = async (id: number) => await api.fetch(new Request(`${url}/record/${id}`));
  const perfect = await (await record(100001)).json();
  assert.deepEqual([perfect.player, perfect.score, perfect.full_combo], [100, 1000000, true]);
  const rough = await (await record(100003)).json();
  assert.ok(rough.player === 100 && rough.miss > 0 && rough.score < 1000000);
  const none = await record(100000);
  assert.equal(none.status, 404);
  await none.body?.cancel();
  // The login it describes gives a token.
  const login = await api.fetch(
    new Request(`${url}/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "user4242@dev.local", password: "password" }),
    }),
  );
  assert.equal(login.status, 200);
  const { id, token } = await login.json();
  assert.equal(id, 4242);
  const me = await api.fetch(new Request(`${url}/me`, { headers: { authorization: `Bearer ${token}` } }));
  assert.equal((await me.json()).id, 4242, "the token works");
});
