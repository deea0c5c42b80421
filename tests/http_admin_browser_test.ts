/**
 * The admin panel end to end in headless Chromium (spec 2 §4.2, issue 13),
 * against real TCP players: log in; the configured server name once in the
 * header; the server status (players online, rooms, uptime, version, store
 * health and readiness issues); the online players, also those in no room,
 * with kick and ban; rooms with readable states, chart names, lock and
 * cycle switches, remove and disband; the ban form and unban; one request
 * per 5 s refresh (the page's timers run on Playwright's fake clock, so the
 * test does not wait five real seconds); no secret in the page; log out.
 * Screenshots (desktop and phone) are kept in `artifacts/admin/`
 * (gitignored). Needs Debian's `chromium` at /usr/bin/chromium; skipped with
 * a printed reason otherwise.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { chromium, type Page } from "playwright-core";
import { STORE_DOWN_ISSUE } from "../src/app_health.ts";
import { VERSION } from "../src/http/context.ts";
import { waitUntil } from "./support/describe.ts";
import { ADMIN_PASSWORD, startHttpHarness } from "./support/http.ts";

const CHROMIUM = "/usr/bin/chromium";
const ARTIFACTS = new URL("../artifacts/admin/", import.meta.url);
const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };

function hasChromium(): boolean {
  try {
    return Deno.statSync(CHROMIUM).isFile;
  } catch {
    return false;
  }
}

const available = hasChromium();
if (!available) console.log(`http admin browser test skipped: ${CHROMIUM} is missing (apt-get install -y chromium)`);

async function shot(page: Page, name: string): Promise<void> {
  await Deno.mkdir(ARTIFACTS, { recursive: true });
  // The whole page in one viewport (Chromium's full-page capture leaves the bottom of a tall page blank when
  // panels use backdrop-filter), then the viewport as it was.
  const viewport = page.viewportSize()!;
  const height = await page.evaluate("document.documentElement.scrollHeight") as number;
  await page.setViewportSize({ width: viewport.width, height: Math.max(height, viewport.height) });
  await page.screenshot({ path: new URL(`${name}.png`, ARTIFACTS).pathname });
  await page.setViewportSize(viewport);
}

/** Answers the next dialog (confirm or prompt) with `answer`; resolves with its message. */
function nextDialog(page: Page, answer?: string): Promise<string> {
  return new Promise((resolve) => {
    page.once("dialog", (dialog) => {
      resolve(dialog.message());
      void dialog.accept(answer);
    });
  });
}

Deno.test({
  name: "http admin panel in Chromium: status, players (kick, ban), rooms (state, chart, lock, cycle), bans, refresh",
  ignore: !available,
  async fn() {
    let health = { ready: true, issues: [] as string[] };
    const h = await startHttpHarness({ listen: true, httpConfig: { server_name: "Night Owls" }, health: () => health });
    let browser: Awaited<ReturnType<typeof chromium.launch>> | null = null;
    try {
      // Up for 2 h 5 min before the players come.
      await h.advance(7_500_000);
      const alice = await h.login(100);
      await alice.createRoom("stage");
      await alice.selectChart(7);
      await (await h.login(9)).joinRoom("stage", true);
      const bob = await h.login(200);
      await bob.createRoom("arena");
      await bob.selectChart(42);
      const carol = await h.login(300);
      await carol.joinRoom("arena");
      await bob.requestStart();
      const eve = await h.login(500);
      await eve.createRoom("solo");
      await eve.selectChart(2026);
      await eve.requestStart();
      const dave = await h.login(400, "zh-CN");
      equal(h.server.core.rooms.get("solo")!.phase.kind, "play");

      browser = await chromium.launch({
        executablePath: CHROMIUM,
        headless: true,
        args: [
          "--no-sandbox",
          "--disable-gpu",
          "--disable-background-networking",
          "--disable-component-update",
          "--disable-sync",
          "--no-first-run",
        ],
      });
      const page = await browser.newPage({ viewport: DESKTOP, locale: "en-US" });
      const requests: string[] = [];
      page.on("request", (r) => {
        const url = new URL(r.url());
        if (url.pathname.startsWith("/admin/api/")) requests.push(`${r.method()} ${url.pathname}`);
      });
      // The page's setInterval (5 s refresh) runs on a clock the test moves, and only then: an installed clock
      // also runs in real time, so a slow step (a loaded machine) would let a refresh of its own through.
      await page.clock.install();
      await page.clock.pauseAt(Date.now() + 1000);
      await page.goto(`${h.url}/admin`);
      await page.fill("#password", "wrong password");
      await page.click("#login-button");
      await page.waitForSelector("#login-error:has-text('wrong password')");
      await page.fill("#password", ADMIN_PASSWORD);
      await page.click("#login-button");
      await page.locator('#rooms tr[data-room="solo"]').waitFor();

      // The configured server name, once, in the header and the title.
      equal(await page.locator("header h1").textContent(), "Night Owls admin");
      equal(await page.title(), "Night Owls — admin");
      equal((await page.locator("body").innerText()).split("Night Owls").length - 1, 1);

      // Server status.
      equal(await page.locator("#player-count").textContent(), "6");
      equal(await page.locator("#room-count").textContent(), "3");
      equal(await page.locator("#uptime").textContent(), "2 h 5 min");
      equal(await page.locator("#version").textContent(), VERSION);
      equal(await page.locator("#store-state").textContent(), "Memory only");
      equal(await page.locator("#health").textContent(), "Ready");
      equal(await page.locator("#issues li").count(), 0);
      equal(
        await page.locator("#switches").textContent(),
        "6 connections · New connections: accepted · Room creation: on",
      );

      // Online players, Dave in no room, the monitor marked as watching.
      const playerRow = (id: number) => page.locator(`#players tr[data-user="${id}"]`);
      equal(await page.locator("#players tbody tr").count(), 6);
      deepEqual(
        await page.locator("#players tbody tr").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-user"))),
        ["100", "200", "300", "400", "500", "9"],
      );
      equal(await playerRow(400).locator(".player-room").textContent(), "not in a room");
      equal(await playerRow(400).locator(".player-language").textContent(), "zh-CN");
      equal(await playerRow(300).locator(".player-room").textContent(), "arena");
      equal(await playerRow(9).locator(".player-room").textContent(), "stagewatching");
      await page.fill("#player-filter", "dav");
      equal(await page.locator("#players tbody tr").count(), 1);
      await page.fill("#player-filter", "nobody");
      equal(await page.locator("#no-players").textContent(), "No online player matches.");
      await page.fill("#player-filter", "");

      // Rooms: readable states, chart names, lock and cycle.
      const room = (name: string) => page.locator(`#rooms tr[data-room="${name}"]`);
      equal(await room("stage").locator(".room-state").textContent(), "Selecting a chart");
      equal(await room("arena").locator(".room-state").textContent(), "Waiting for players to get ready");
      equal(await room("solo").locator(".room-state").textContent(), "Playing");
      equal(await room("stage").locator(".chart-name").textContent(), "Lucky Seven");
      equal(await room("arena").locator(".room-chart").textContent(), "The Answer #42");
      equal(await room("solo").locator(".chart-name").textContent(), "Chorus Anthem");
      equal(await room("arena").locator(".room-players").textContent(), "2 / 100");
      equal(await room("stage").locator(".room-members").textContent(), "Alice (100)hostRemovePlayer9 (9)monitor");
      equal(await room("arena").locator('li[data-user="200"]').textContent(), "Bob (200)hostreadyRemove");
      equal(await room("stage").locator(".room-lock button").textContent(), "Open");
      equal(await room("stage").locator(".room-cycle button").textContent(), "Off");
      const text = await page.locator("body").innerText();
      for (const raw of ["SELECTING_CHART", "WAITING_FOR_READY", "PLAYING"]) ok(!text.includes(raw), raw);

      // Secrets never reach the page: not the password, not the session cookie, not player addresses.
      const html = await page.content();
      ok(!html.includes(ADMIN_PASSWORD));
      ok(!text.includes("127.0.0.1"));
      equal(await page.evaluate("document.cookie"), "");

      // A ban through the form, so the screenshots show one.
      await page.fill("#ban-user", "777");
      await page.fill("#ban-reason", "cheating");
      await page.click("#ban-button");
      await page.locator('#bans tr[data-user="777"]').waitFor();
      await page.waitForSelector("#status:has-text('ban 777: done')");
      await shot(page, "desktop");
      await page.setViewportSize(PHONE);
      await shot(page, "phone");
      // On a phone every cell carries its column's name.
      equal(await room("arena").locator(".room-state").getAttribute("data-label"), "State");
      await page.setViewportSize(DESKTOP);

      // Lock and cycle a room: the server and the players in it see the change.
      await room("stage").locator(".room-lock button").click();
      await page.waitForSelector("#status:has-text('lock stage: done')");
      equal(h.server.core.rooms.get("stage")!.locked, true);
      await waitUntil(() => alice.locked === true, "Alice sees the lock");
      equal(await room("stage").locator(".room-lock button").textContent(), "Locked");
      equal(await room("stage").locator(".room-lock button").getAttribute("aria-pressed"), "true");
      await room("stage").locator(".room-cycle button").click();
      await page.waitForSelector("#status:has-text('cycle on in stage: done')");
      equal(h.server.core.rooms.get("stage")!.cycle, true);
      await waitUntil(() => alice.cycle === true, "Alice sees cycle on");
      equal(await room("stage").locator(".room-cycle button").textContent(), "On");
      await room("stage").locator(".room-lock button").click();
      await page.waitForSelector("#status:has-text('unlock stage: done')");
      equal(h.server.core.rooms.get("stage")!.locked, false);

      // Remove Carol from her room: she stays online, now in no room.
      await room("arena").locator('li[data-user="300"] button:has-text("Remove")').click();
      await page.waitForSelector("#status:has-text('remove 300 from arena: done')");
      deepEqual(await carol.waitForMessage("LeaveRoom"), { type: "LeaveRoom", user: 300, name: "Carol" });
      equal(await playerRow(300).locator(".player-room").textContent(), "not in a room");

      // Kick Dave (in no room) from the server, after a confirmation.
      const kickAsked = nextDialog(page);
      await playerRow(400).locator('button:has-text("Kick")').click();
      equal(await kickAsked, "Disconnect Dave (400) from the server?");
      await page.waitForSelector("#status:has-text('kick 400: done')");
      await dave.closed;
      await playerRow(400).waitFor({ state: "detached" });

      // Ban Carol from the players list with a reason: disconnected, listed under bans.
      const banAsked = nextDialog(page, "griefing");
      await playerRow(300).locator('button:has-text("Ban")').click();
      equal(
        await banAsked,
        "Ban Carol (300)? They are disconnected and cannot log in until unbanned. Reason:",
      );
      await page.waitForSelector("#status:has-text('ban 300: done')");
      await carol.closed;
      const ban = page.locator('#bans tr[data-user="300"]');
      await ban.waitFor();
      equal(await ban.locator(".ban-reason").textContent(), "griefing");
      const bans = h.server.core.bans.userBans().map((b) => `${b.user_id} ${b.reason}`);
      deepEqual(bans.sort(), ["300 griefing", "777 cheating"]);
      await ban.locator('button:has-text("Unban")').click();
      await ban.waitFor({ state: "detached" });
      await page.waitForSelector("#status:has-text('unban 300: done')");
      deepEqual(h.server.core.bans.userBans().map((b) => b.user_id), [777]);

      // The 5 s refresh: one request, which brings a new room, a state change and a readiness issue.
      const frank = await h.login(600);
      await frank.createRoom("late");
      await alice.requestStart();
      health = { ready: false, issues: [STORE_DOWN_ISSUE] };
      equal(await room("late").count(), 0);
      requests.length = 0;
      await page.clock.runFor(5000);
      await room("late").waitFor();
      deepEqual(requests, ["GET /admin/api/state"]);
      equal(await room("stage").locator(".room-state").textContent(), "Waiting for players to get ready");
      equal(await page.locator("#health").textContent(), "Not ready");
      deepEqual(await page.locator("#issues li").allTextContents(), [STORE_DOWN_ISSUE]);
      equal(await page.locator("#room-count").textContent(), "4");

      // Disband asks for confirmation; accepting it closes the room on the server.
      const disbandAsked = nextDialog(page);
      await room("arena").locator('button:has-text("Disband")').click();
      equal(await disbandAsked, "Disband room arena?");
      await room("arena").waitFor({ state: "detached" });
      await page.waitForSelector("#status:has-text('disband arena: done')");
      equal(h.server.core.rooms.has("arena"), false);

      // Log out: the login form comes back, also after a reload, and the old cookie is refused.
      const [cookie] = await page.context().cookies();
      equal(cookie?.name, "chorus_admin");
      await page.click("#logout-button");
      await page.locator("#login").waitFor({ state: "visible" });
      equal(await page.locator("#dashboard").isVisible(), false);
      await page.reload();
      await page.locator("#login").waitFor({ state: "visible" });
      equal(await page.locator("#dashboard").isVisible(), false);
      equal(await page.locator("#login-form").isVisible(), true);
      const old = await fetch(`${h.url}/admin/api/state`, { headers: { cookie: `chorus_admin=${cookie!.value}` } });
      deepEqual(await old.json(), { error: "login required", code: 401 });
    } finally {
      await browser?.close();
      await h.close();
    }
  },
});
