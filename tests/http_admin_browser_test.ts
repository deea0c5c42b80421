/**
 * The admin panel end to end in headless Chromium (spec 2 §4.2): log in,
 * see a room created by a real TCP client, kick that client. Needs Debian's
 * `chromium` at /usr/bin/chromium; skipped with a printed reason otherwise.
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
  name: "http admin panel in Chromium: log in, see a TCP client's room, kick the client",
  ignore: !available,
  async fn() {
    const h = startHttpHarness({ listen: true });
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
    } finally {
      await browser?.close();
      await h.close();
    }
  },
});
