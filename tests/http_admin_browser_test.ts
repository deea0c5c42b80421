/**
 * The admin panel end to end in headless Chromium (spec 2 §4.2): log in,
 * see a room created by a real TCP client, kick that client, ban and unban
 * a player id, disband a room, see a new room appear through the 5 s
 * refresh (the page's timers run on Playwright's fake clock, so the test
 * does not wait five real seconds), log out. Needs Debian's `chromium` at
 * /usr/bin/chromium; skipped with a printed reason otherwise.
 */
import { deepEqual, equal } from "node:assert/strict";
import { chromium } from "playwright-core";
import { ADMIN_PASSWORD, startHttpHarness } from "./support/http.ts";

const CHROMIUM = "/usr/bin/chromium";

function hasChromium(): boolean {
  try {
    return Deno.statSync(CHROMIUM).isFile;
  } catch {
    return false;
  }
}

const available = hasChromium();
if (!available) console.log(`http admin browser test skipped: ${CHROMIUM} is missing (apt-get install -y chromium)`);

Deno.test({
  name: "http admin panel in Chromium: log in, kick, ban and unban, disband, auto-refresh, log out",
  ignore: !available,
  async fn() {
    const h = await startHttpHarness({ listen: true });
    let browser: Awaited<ReturnType<typeof chromium.launch>> | null = null;
    try {
      const alice = await h.login(100);
      await alice.createRoom("stage");
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
      const page = await browser.newPage();
      // The page's setInterval (5 s refresh) runs on a clock the test moves.
      await page.clock.install();
      await page.goto(`${h.url}/admin`);
      await page.fill("#password", "wrong password");
      await page.click("#login-button");
      await page.waitForSelector("#login-error:has-text('wrong password')");
      await page.fill("#password", ADMIN_PASSWORD);
      await page.click("#login-button");
      const row = page.locator('tr[data-room="stage"]');
      await row.waitFor();
      equal(await row.locator(".room-state").textContent(), "SELECTING_CHART");
      equal(await row.locator(".room-count").textContent(), "1");
      equal(await page.locator("#player-count").textContent(), "1");
      await row.locator('li[data-user="100"] button:has-text("Kick")').click();
      const removed = await alice.waitForMessage("LeaveRoom");
      deepEqual(removed, { type: "LeaveRoom", user: 100, name: "Alice" });
      await row.waitFor({ state: "detached" });
      equal(h.server.core.rooms.has("stage"), false);
      equal(await page.locator("#no-rooms").isVisible(), true);
      // The session cookie is HttpOnly: the page's script cannot read it.
      equal(await page.evaluate("document.cookie"), "");

      // Ban and unban a player id through the form and the Unban button.
      await page.fill("#ban-user", "300");
      await page.fill("#ban-reason", "cheating");
      await page.click("#ban-button");
      const ban = page.locator('#bans tr[data-user="300"]');
      await ban.waitFor();
      equal(await ban.locator("td").nth(1).textContent(), "cheating");
      deepEqual(h.server.core.bans.userBans().map((b) => [b.user_id, b.reason]), [[300, "cheating"]]);
      await page.waitForSelector("#status:has-text('ban 300: done')");
      await ban.locator('button:has-text("Unban")').click();
      await ban.waitFor({ state: "detached" });
      await page.waitForSelector("#status:has-text('unban 300: done')");
      deepEqual(h.server.core.bans.userBans(), []);

      // A room created by another TCP client shows up with no user action: the 5 s refresh.
      const bob = await h.login(200);
      await bob.createRoom("arena");
      const arena = page.locator('tr[data-room="arena"]');
      equal(await arena.count(), 0);
      await page.clock.runFor(5000);
      await arena.waitFor();
      equal(await arena.locator(".room-count").textContent(), "1");

      // Disband asks for confirmation; accepting it closes the room on the server.
      const dialogs: string[] = [];
      page.once("dialog", (dialog) => {
        dialogs.push(dialog.message());
        void dialog.accept();
      });
      await arena.locator('button:has-text("Disband")').click();
      await arena.waitFor({ state: "detached" });
      deepEqual(dialogs, ["Disband room arena?"]);
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
