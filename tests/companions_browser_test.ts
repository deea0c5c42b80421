/**
 * The companion site's pages in headless Chromium (spec 2 §4.5), against a
 * live game server whose room log the room service follows: register and
 * log in, list rooms while scripted clients play, change a password, and,
 * as an administrator, batch-edit and edit users and run a command. The
 * message bars' 5 s and the rooms page's refresh run on Playwright's fake
 * clock. Screenshots of every page are kept in `artifacts/companions/`
 * (gitignored). Needs Debian's `chromium` at /usr/bin/chromium; skipped
 * with a printed reason otherwise.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { chromium, type Page } from "playwright-core";
import {
  ADMIN_PASSWORD_ROLE,
  eventually,
  FRAGMENTS,
  startCompanionsStack,
  SUPER_PASSWORD,
} from "./support/companions.ts";

const CHROMIUM = "/usr/bin/chromium";
const ARTIFACTS = new URL("../artifacts/companions/", import.meta.url);

function hasChromium(): boolean {
  try {
    return Deno.statSync(CHROMIUM).isFile;
  } catch {
    return false;
  }
}

const available = hasChromium();
if (!available) console.log(`companions browser test skipped: ${CHROMIUM} is missing (apt-get install -y chromium)`);

async function shot(page: Page, name: string): Promise<void> {
  await Deno.mkdir(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: new URL(`${name}.png`, ARTIFACTS).pathname, fullPage: true });
}

/** Fills the one-shot password dialog and submits it. */
async function answerSecrets(page: Page, values: readonly string[]): Promise<void> {
  const dialog = page.locator("#secret-dialog");
  await dialog.waitFor();
  for (let i = 0; i < values.length; i++) await dialog.locator(`#secret-${i}`).fill(values[i]!);
  await dialog.locator("#secret-ok").click();
  await dialog.waitFor({ state: "detached" });
}

Deno.test({
  name: "companion pages in Chromium: register, rooms while playing, password change, admin batch edit and commands",
  ignore: !available,
  async fn() {
    const s = await startCompanionsStack();
    // Chart 7 with a cover (the development charts have none), so the thumbnail and its enlargement are exercised.
    const cover = `${s.upstream.url}/avatars/7.svg`;
    s.upstream.api.state.setFault("chart", {
      hook: async (req) => {
        if (!new URL(req.url).pathname.endsWith("/chart/7")) return undefined;
        const real = await s.upstream.api.app.fetch(new Request(`${s.upstream.url}/chart/8`));
        return Response.json({
          ...(await real.json()),
          id: 7,
          name: "Lucky Seven",
          illustration: cover,
          file: `${s.upstream.url}/files/chart-7.zip`,
        });
      },
    });
    let browser: Awaited<ReturnType<typeof chromium.launch>> | null = null;
    try {
      const alice = await s.game.login(100);
      const bob = await s.game.login(200);
      await alice.createRoom("stage");
      await bob.joinRoom("stage");
      await alice.cycleRoom(true);
      await alice.selectChart(7);
      await eventually(
        () => (s.companions.room?.tracker.rooms.get("stage")?.chart ?? null) === 7,
        "the room in the log",
      );

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
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const page = await context.newPage();
      const errors: string[] = [];
      page.on("pageerror", (e) => errors.push(String(e)));
      page.on("console", (m) => {
        if (m.type() === "error" && !/Failed to load resource/.test(m.text())) errors.push(m.text());
      });
      await page.clock.install();

      // Landing page and registration through the dialog.
      await page.goto(`${s.site}/`);
      await page.locator("#user-total:has-text('2')").waitFor();
      await page.click("#register-open");
      await page.fill("#auth-name", "alice");
      await page.fill("#auth-password", "hunter22");
      await page.fill("#auth-confirm", "hunter22");
      await page.fill("#auth-game-id", "100");
      await page.click("#auth-submit");
      await page.locator(".message.success:has-text('Registration successful')").waitFor();
      await page.locator("#nav-user:has-text('alice')").waitFor();
      const stored = await page.evaluate(() => localStorage.getItem("chorus.user"));
      ok(stored && !stored.includes("hunter22") && !stored.includes("argon2"), String(stored));
      await page.locator(".fade-in.visible").first().waitFor();
      await shot(page, "index");
      // Message bars disappear after 5 s.
      await page.clock.runFor(5100);
      equal(await page.locator(".message").count(), 0);

      // Rooms page while the clients play.
      await page.goto(`${s.site}/rooms.html`);
      await page.locator("#server-status:has-text('online')").waitFor();
      const row = page.locator('tr[data-room="stage"]');
      await row.waitFor();
      equal(await row.locator(".room-count").textContent(), "2");
      equal(await row.locator(".room-cycle").textContent(), "Yes");
      equal(await row.locator(".room-host a").textContent(), "Alice");
      equal(await row.locator(".room-host a").getAttribute("href"), "https://phira.example/user/100");
      await row.locator(".room-chart a:has-text('Lucky Seven')").waitFor();
      equal(await row.locator(".room-download a").getAttribute("href"), `${s.upstream.url}/files/chart-7.zip`);
      await row.locator(".room-cover img").click();
      await page.locator("#cover-dialog[open]").waitFor();
      equal(await page.getAttribute("#cover-large", "src"), cover);
      await page.click("#cover-close");
      await row.locator(".members-button").click();
      await page.locator("#members-list li.host:has-text('Alice')").waitFor();
      deepEqual(await page.locator("#members-list li").allTextContents(), ["Alice (host)", "Bob"]);
      await shot(page, "rooms-members");
      await page.click("#members-close");

      // Carol creates a room and Bob leaves for it; the next refresh shows both rooms.
      const carol = await s.game.login(300);
      await carol.createRoom("second");
      await bob.leaveRoom();
      await bob.joinRoom("second");
      await carol.selectChart(42);
      await carol.requestStart();
      await bob.ready(); // the round starts: the room is playing
      await eventually(
        () => s.companions.room?.tracker.rooms.get("second")?.state === "playing",
        "the second room playing",
      );
      await page.clock.runFor(10_000);
      await page.locator('tr[data-room="second"] .room-count:has-text("2")').waitFor();
      await page.locator('tr[data-room="second"] .room-state:has-text("Playing")').waitFor();
      await page.locator('tr[data-room="second"] .room-chart a:has-text("The Answer")').waitFor();
      await page.locator('tr[data-room="stage"] .room-count:has-text("1")').waitFor();
      await shot(page, "rooms");

      // Account page: a wrong current password, then a real change.
      await page.goto(`${s.site}/account.html`);
      await page.locator("#account-name:has-text('alice')").waitFor();
      equal(await page.locator("#account-game a").textContent(), "Alice (100)");
      await page.fill("#pw-current", "not-it");
      await page.fill("#pw-new", "brand-new-pw");
      await page.fill("#pw-confirm", "brand-new-pw");
      await page.click("#password-submit");
      await page.locator(".message.error:has-text('Incorrect password')").waitFor();
      equal(await page.inputValue("#pw-current"), "", "the form forgets the password");
      await page.fill("#pw-current", "hunter22");
      await page.fill("#pw-new", "short");
      await page.fill("#pw-confirm", "short");
      await page.click("#password-submit");
      await page.locator(".message.error:has-text('at least 6 characters')").waitFor();
      await page.fill("#pw-current", "hunter22");
      await page.fill("#pw-new", "brand-new-pw");
      await page.fill("#pw-confirm", "brand-new-pw");
      await page.click("#password-submit");
      await page.locator(".message.success:has-text('Account updated')").waitFor();
      await shot(page, "account");
      await page.clock.runFor(5100);
      await page.click("#logout-button");
      await page.click("#login-open");
      await page.fill("#auth-name", "alice");
      await page.fill("#auth-password", "hunter22");
      await page.click("#auth-submit");
      await page.locator(".message.error:has-text('Incorrect password')").waitFor();
      await page.fill("#auth-password", "brand-new-pw");
      await page.click("#auth-submit");
      await page.locator("#nav-user:has-text('alice')").waitFor();

      // The admin page is gated on the stored profile; make alice an administrator, then log in again.
      await page.goto(`${s.site}/admin.html`);
      await page.locator("#not-admin").waitFor();
      const um = `http://127.0.0.1:${s.companions.ports.user_manager}`;
      const post = (path: string, body: unknown) =>
        fetch(`${um}${path}`, { method: "POST", body: JSON.stringify(body) }).then((r) => r.json());
      await post("/admin/update", { password: SUPER_PASSWORD, user_id: 1, changes: { admin: "yes" } });
      await post("/register", { name: "bob", password: "hunter22", game_id: 200 });
      await post("/register", { name: "carol", password: "hunter22", game_id: 300 });
      await page.click("#logout-button");
      await page.click("#login-open");
      await page.fill("#auth-name", "alice");
      await page.fill("#auth-password", "brand-new-pw");
      await page.click("#auth-submit");
      await page.locator("#panel").waitFor();
      await page.locator("#api-status:has-text('online')").waitFor();

      // Server control: the status check asks for the three parts, sends them once.
      await page.click("#check-status");
      await answerSecrets(page, FRAGMENTS);
      await page.locator("#game-status:has-text('check passed')").waitFor();
      equal((await page.textContent("#command-output"))?.trim(), "Linux");
      await page.fill("#custom-cmd", "bash start.sh && bash check.sh");
      await page.click("#custom-run");
      await answerSecrets(page, FRAGMENTS);
      await page.locator(".message.error:has-text('Shell syntax is not supported')").waitFor();
      await shot(page, "admin-server");

      // User management: a wrong password, then the list, a batch change and an edit.
      await page.click("#tab-users");
      await page.click("#load-users");
      await answerSecrets(page, ["wrong password"]);
      await page.locator(".message.error:has-text('Unauthorized')").waitFor();
      await page.click("#load-users");
      await answerSecrets(page, [ADMIN_PASSWORD_ROLE]);
      await page.locator("#users tbody tr").nth(2).waitFor();
      await page.fill("#user-search", "bo");
      equal(await page.locator("#users tbody tr").count(), 1);
      await page.fill("#user-search", "");
      await page.locator('tr[data-user="2"] .select-user').check();
      await page.locator('tr[data-user="3"] .select-user').check();
      await page.locator("#selected-count:has-text('2 selected')").waitFor();
      await page.click('[data-batch="dev:yes"]');
      await answerSecrets(page, [SUPER_PASSWORD]);
      await page.locator(".message.success:has-text('2 of 2 users updated')").waitFor();
      await page.selectOption("#user-filter", "dev");
      equal(await page.locator("#users tbody tr").count(), 2);
      await page.selectOption("#user-filter", "all");
      await page.locator('tr[data-user="2"] .edit-user').click();
      await page.fill("#edit-name", "robert");
      await page.click("#edit-save");
      await answerSecrets(page, [ADMIN_PASSWORD_ROLE]);
      await page.locator('tr[data-user="2"] .user-name:has-text("robert")').waitFor();
      const list = await post("/admin/users", { password: ADMIN_PASSWORD_ROLE }) as {
        users: { id: number; name: string; dev: string; admin: string }[];
      };
      deepEqual(list.users.map((u) => [u.id, u.name, u.admin, u.dev]), [
        [1, "alice", "yes", "no"],
        [2, "robert", "no", "yes"],
        [3, "carol", "no", "yes"],
      ]);
      await shot(page, "admin-users");

      // Nothing secret stayed in the page or its storage.
      const html = await page.content();
      const storage = await page.evaluate(() => JSON.stringify(localStorage));
      for (const secret of [SUPER_PASSWORD, ADMIN_PASSWORD_ROLE, ...FRAGMENTS, "brand-new-pw", "$argon2"]) {
        ok(!html.includes(secret) && !storage.includes(secret), secret);
      }
      deepEqual(errors, []);
      await context.close();
    } finally {
      await browser?.close();
      await s.close();
    }
  },
});
