/**
 * The companion services behind the site, end to end without a browser: a
 * live game server writing its room log, scripted clients playing, and the
 * paths the pages call (spec 2 §4.5) answered through the site.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { SITE_FILES } from "../src/companions/site.ts";
import {
  ADMIN_PASSWORD_ROLE,
  eventually,
  FRAGMENTS,
  startCompanionsStack,
  SUPER_PASSWORD,
} from "./support/companions.ts";

async function get(url: string, init?: RequestInit): Promise<{ status: number; body: unknown; headers: Headers }> {
  const res = await fetch(url, init);
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // text
  }
  return { status: res.status, body, headers: res.headers };
}

async function post(url: string, body: unknown) {
  return await get(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

Deno.test("companion site: pages, routed calls and the services agree with a live game server", async (t) => {
  const s = await startCompanionsStack();
  try {
    const alice = await s.game.login(100);
    const bob = await s.game.login(200);
    await s.game.login(300); // logged in, never in a room: known to the game server only
    await alice.createRoom("stage");
    await bob.joinRoom("stage");
    await alice.selectChart(7);

    await t.step("pages: every file with a strict policy and no secret; nothing else from disk", async () => {
      for (const name of [...Object.keys(SITE_FILES), ""]) {
        const res = await fetch(`${s.site}/${name}`);
        const text = await res.text();
        equal(res.status, 200, name);
        ok(res.headers.get("content-security-policy")?.includes("script-src 'self'"), name);
        for (const secret of [SUPER_PASSWORD, ADMIN_PASSWORD_ROLE, ...FRAGMENTS, "$argon2"]) {
          ok(!text.includes(secret), `${name} holds ${secret}`);
        }
      }
      for (const path of ["/../deno.json", "/static/site/index.html", "/site.js.map", "/.env"]) {
        equal((await get(`${s.site}${path}`)).status, 404, path);
      }
      const info = await get(`${s.site}/site.json`);
      deepEqual(info.body, {
        title: "Chorus",
        game_site_url: "https://phira.example",
        custom_commands: true,
        services: { user_manager: true, room: true, command: true },
      });
    });

    await t.step("rooms: HEAD and GET /roomsjson from the followed log", async () => {
      await eventually(async () => {
        const rooms = (await get(`${s.site}/roomsjson`)).body as { chart_id: number | null }[];
        return rooms.length === 1 && rooms[0]!.chart_id === 7;
      }, "the room in /roomsjson");
      const [room] = (await get(`${s.site}/roomsjson`)).body as Record<string, unknown>[];
      deepEqual({ ...room, created_at: 0, last_activity: 0 }, {
        name: "stage",
        host_id: 100,
        host_name: "Alice",
        user_count: 2,
        user_names: ["Alice", "Bob"],
        users: [{ id: 100, name: "Alice" }, { id: 200, name: "Bob" }],
        created_at: 0,
        last_activity: 0,
        state: "选谱中",
        state_code: "selecting_chart",
        cycle: false,
        lock: false,
        chart: 7,
        chart_id: 7,
        chart_name: null,
      });
      const head = await fetch(`${s.site}/roomsjson`, { method: "HEAD" });
      equal(head.status, 200);
      equal(await head.text(), "");
      deepEqual((await get(`${s.site}/usertotal`)).body, { total_users: 2, example_usernames: ["Alice", "Bob"] });
    });

    await t.step("chart metadata through the site's cache", async () => {
      const chart = (await get(`${s.site}/gameapi/chart/7`)).body as Record<string, unknown>;
      equal(chart.name, "Lucky Seven");
      equal(chart.file, `${s.upstream.url}/files/chart-7.zip`);
      equal((await get(`${s.site}/gameapi/chart/0`)).status, 404);
      equal((await get(`${s.site}/gameapi/chart/x`)).status, 400);
    });

    await t.step("register: a player from the log, one the game server knows, and one never seen", async () => {
      const a = await post(`${s.site}/usermgr/register`, { name: "alice", password: "hunter22", game_id: 100 });
      equal(a.status, 200, JSON.stringify(a.body));
      const c = await post(`${s.site}/usermgr/register`, { name: "carol", password: "hunter22", game_id: 300 });
      equal((c.body as { user: { game_name: string } }).user.game_name, "Carol");
      const n = await post(`${s.site}/usermgr/register`, { name: "nobody", password: "hunter22", game_id: 999 });
      deepEqual(n, {
        status: 400,
        body: { status: "error", message: "Phira account not found (it has to play on this server first)" },
        headers: n.headers,
      });
      await eventually(async () => {
        const login = await post(`${s.site}/usermgr/login`, { name: "alice", password: "hunter22" });
        const user = (login.body as { user: { image_url: string; game_rks: number } }).user;
        return user.image_url === `${s.upstream.url}/avatars/100.svg` && user.game_rks > 0;
      }, "the avatar and rks from the game API");
      const total = await get(`http://127.0.0.1:${s.companions.ports.user_manager}/users/total`);
      deepEqual(total.body, { status: "success", total_users: 2 });
    });

    await t.step("command through /postadmin/execute with the three fragments", async () => {
      const form = new URLSearchParams({ pwd1: FRAGMENTS[0], pwd2: FRAGMENTS[1], pwd3: FRAGMENTS[2], cmd: "status" });
      const res = await get(`${s.site}/postadmin/execute`, { method: "POST", body: form });
      equal(res.status, 200);
      equal((res.body as { result: string }).result, `${Deno.build.os === "linux" ? "Linux" : ""}`.trim() + "\n");
      form.set("pwd2", "wrong");
      equal((await get(`${s.site}/postadmin/execute`, { method: "POST", body: form })).status, 403);
    });

    await t.step("api service counts the players in rooms; file service serves user_info.json", async () => {
      const api = `http://127.0.0.1:${s.companions.ports.api}/users`;
      await eventually(
        async () => ((await get(api)).body as { total_online_users: number }).total_online_users === 2,
        "2 online",
      );
      const file = `http://127.0.0.1:${s.companions.ports.file}/api`;
      await eventually(async () => {
        const res = await get(file);
        return res.status === 200 && typeof res.body === "object";
      }, "user_info.json");
      deepEqual((await get(file)).body, { 100: "Alice", 200: "Bob" });
    });
  } finally {
    await s.close();
  }
});

Deno.test("companion site: a service switched off answers 503 on its paths; other pages from site.static_dir", async () => {
  const pages = await Deno.makeTempDir({ prefix: "chorus-pages-" });
  await Deno.writeTextFile(`${pages}/index.html`, "<!doctype html><title>restyled</title>");
  const s = await startCompanionsStack({
    command: { enabled: false },
    room: { enabled: false },
    site: { port: 0, static_dir: pages },
  });
  try {
    equal(s.companions.ports.command, undefined);
    deepEqual((await get(`${s.site}/postadmin/execute`, { method: "POST", body: "cmd=status" })).body, {
      status: "error",
      message: "The command service is not running here",
    });
    equal((await get(`${s.site}/roomsjson`)).status, 503);
    // Without the room service the total comes from the user manager.
    deepEqual((await get(`${s.site}/usertotal`)).body, { status: "success", total_users: 0 });
    equal(
      (await get(`${s.site}/`)).body,
      "<!doctype html><title>restyled</title>",
      "site.static_dir serves other pages",
    );
    equal((await get(`${s.site}/rooms.html`)).status, 500, "a page missing there is an error, not a fallback");
  } finally {
    await s.close();
    await Deno.remove(pages, { recursive: true });
  }
});
