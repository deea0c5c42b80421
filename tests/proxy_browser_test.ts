/**
 * The spectator page end to end in headless Chromium: protocol clients play
 * a scripted round while the page watches — through the monitor proxy
 * (e-mail/password login, `/auth/me`, the proxy's room stream and
 * `/ws/live`) and on the game server's own HTTP port (game token login,
 * profile S room stream, its `/ws/live`). Asserts what the page shows:
 * the room list kept live, the players, counters moving, touches drawn, the
 * state changes and the results table; keeps screenshots (desktop and
 * phone) under tests/artifacts/. Needs /usr/bin/chromium; skipped with a
 * printed reason otherwise.
 */
import { equal, ok } from "node:assert/strict";
import { type Browser, chromium, type Page } from "playwright-core";
import type { PhiraClient } from "../src/client/mod.ts";
import type { JudgeEvent, TouchFrame } from "../src/protocol/mod.ts";
import { DEV_PASSWORD, devEmail, devRecordId, devToken } from "../src/upstream/mod.ts";
import { waitUntil } from "./support/describe.ts";
import type { Harness } from "./support/harness.ts";
import { startHttpHarness } from "./support/http.ts";
import { startProxyHarness } from "./support/proxy.ts";

const CHROMIUM = "/usr/bin/chromium";
const ARTIFACTS = new URL("./artifacts/", import.meta.url);

function hasChromium(): boolean {
  try {
    return Deno.statSync(CHROMIUM).isFile;
  } catch {
    return false;
  }
}

const available = hasChromium();
if (!available) console.log(`spectator browser tests skipped: ${CHROMIUM} is missing (apt-get install -y chromium)`);

async function launch(): Promise<Browser> {
  return await chromium.launch({
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
}

async function screenshot(page: Page, name: string): Promise<void> {
  await Deno.mkdir(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: new URL(name, ARTIFACTS).pathname, fullPage: true });
}

/** Touch frames of one second: a finger sweeping across, a second one tapping. */
function touches(t0: number, finger: number): TouchFrame[] {
  return Array.from({ length: 20 }, (_, i) => ({
    time: t0 + i * 0.05,
    points: [
      [finger, { x: -0.8 + i * 0.08, y: 0.3 * Math.sin(i / 3) }],
      ...(i % 5 === 0 ? [[finger + 1, { x: 0.5, y: -0.2 }] as [number, { x: number; y: number }]] : []),
    ],
  }));
}

function judges(t0: number, kinds: JudgeEvent["judgement"][]): JudgeEvent[] {
  return kinds.map((judgement, i) => ({ time: t0 + i * 0.1, line_id: 0, note_id: i, judgement }));
}

/** Polls an asynchronous condition (page state) for up to 5 s. */
async function until(cond: () => Promise<boolean>, what: string): Promise<void> {
  const end = performance.now() + 5000;
  while (!(await cond())) {
    if (performance.now() > end) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

async function text(page: Page, selector: string): Promise<string> {
  return (await page.locator(selector).textContent())?.trim() ?? "";
}

/** Waits until the text at `selector` is `expected`. */
async function expectText(page: Page, selector: string, expected: string): Promise<void> {
  await page.locator(selector).filter({ hasText: expected }).first().waitFor({ timeout: 5000 }).catch(async () => {
    throw new Error(
      `${selector}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(await text(page, selector))}`,
    );
  });
  equal(await text(page, selector), expected);
}

/**
 * The scripted round, with the page already watching room `stage` (Alice
 * the host, Bob in it): chart, ready, play with touches and judges, results.
 */
async function playRound(page: Page, alice: PhiraClient, bob: PhiraClient, shots: string): Promise<void> {
  const p100 = '.player[data-player="100"]';
  const p200 = '.player[data-player="200"]';
  await page.locator(p100).waitFor();
  await page.locator(p200).waitFor();
  equal(await text(page, `${p100} .player-name`), "Alice");
  equal(await text(page, `${p200} .player-name`), "Bob");

  await alice.selectChart(1);
  await alice.requestStart();
  await bob.ready();
  // The page readies its spectator session by itself, so the round starts.
  await alice.waitFor("ChangeState", (e) => e.state.type === "Playing");
  await expectText(page, "#round-state", "playing");

  alice.touches(touches(0, 0));
  bob.touches(touches(0, 2));
  alice.judges(judges(0.2, ["Perfect", "Perfect", "Good", "Perfect"]));
  bob.judges(judges(0.2, ["Perfect", "Miss", "Bad"]));
  await expectText(page, `${p100} dd.perfect`, "3");
  await expectText(page, `${p100} dd.combo`, "4");
  await expectText(page, `${p200} dd.miss`, "1");
  await expectText(page, `${p200} dd.combo`, "0");
  // Counters keep moving as more judgements arrive.
  alice.touches(touches(1, 0));
  alice.judges(judges(1.2, ["Perfect", "Miss", "Perfect"]));
  await expectText(page, `${p100} dd.perfect`, "5");
  await expectText(page, `${p100} dd.combo`, "1");
  await expectText(page, `${p100} dd.max-combo`, "5");
  await expectText(page, `${p100} dd.accuracy`, "80.71%");
  // Touch points arrived and are being drawn on the canvas.
  const canvas = page.locator(`${p100} canvas.playfield`);
  await until(async () => Number(await canvas.getAttribute("data-touches")) === 48, "touches received");
  await until(async () => Number(await canvas.getAttribute("data-drawn") ?? 0) > 0, "touches drawn");
  await screenshot(page, `${shots}_playing.png`);

  await alice.played(devRecordId(100, 1));
  await expectText(page, `${p100} .score`, "1,000,000");
  await bob.played(devRecordId(200, 3));
  await alice.waitForMessage("GameEnd");
  await page.locator("#results").waitFor({ state: "visible" });
  const rows = page.locator("#results-table tbody tr");
  await until(async () => await rows.count() === 2, "two result rows");
  equal(await rows.nth(0).getAttribute("data-player"), "100");
  equal(await text(page, '#results-table tr[data-player="100"] .result-score'), "1,000,000");
  equal(await text(page, '#results-table tr[data-player="100"] .result-accuracy'), "100.00%");
  equal(await text(page, '#results-table tr[data-player="100"] .result-fc'), "yes");
  await expectText(page, "#round-state", "choosing a chart");
  const log = await page.locator("#event-log li .text").allTextContents();
  for (const line of ["Alice started the game.", "Bob is ready.", "The round started.", "The round is over."]) {
    ok(log.includes(line), `event log has ${JSON.stringify(line)}: ${JSON.stringify(log)}`);
  }
  ok(log.some((l) => l.startsWith("Alice finished: 1,000,000")), JSON.stringify(log));
}

/** The lobby shows `room` with `count` players; rooms created later appear without a reload. */
async function checkLobby(page: Page, h: Harness): Promise<void> {
  const stage = page.locator('#rooms tr[data-room="stage"]');
  await stage.waitFor();
  await expectText(page, '#rooms tr[data-room="stage"] .room-count', "2");
  const carol = await h.login(300);
  await carol.createRoom("later");
  await page.locator('#rooms tr[data-room="later"]').waitFor();
  await carol.leaveRoom();
  await page.locator('#rooms tr[data-room="later"]').waitFor({ state: "detached" });
}

Deno.test({
  name: "spectator page through the monitor proxy: log in, live room list, watch a round, results",
  ignore: !available,
  async fn() {
    const h = await startProxyHarness();
    let browser: Browser | null = null;
    try {
      const alice = await h.login(100);
      const bob = await h.login(200);
      await alice.createRoom("stage");
      await bob.joinRoom("stage");
      browser = await launch();
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      const errors: string[] = [];
      page.on("pageerror", (e) => errors.push(String(e)));
      await page.goto(`${h.url}/spectator/`);
      await page.locator("#password-form").waitFor();
      await page.fill("#email", devEmail(9));
      await page.fill("#password", "wrong");
      await page.click("#login-button");
      await expectText(page, "#login-error", "invalid email or password");
      await page.fill("#password", DEV_PASSWORD);
      await page.click("#login-button");
      await page.locator("#lobby").waitFor({ state: "visible" });
      await page.locator("#who").filter({ hasText: "(9)" }).waitFor();
      // The session token is kept; the game token is nowhere in the page's storage.
      const stored = await page.evaluate(() => JSON.stringify(localStorage) + JSON.stringify(sessionStorage));
      ok(stored.includes("eyJ"), "the proxy session token is stored");
      equal(stored.includes(devToken(9)), false);
      await checkLobby(page, h);

      await page.locator('#rooms tr[data-room="stage"] button').click();
      await page.locator("#watch").waitFor({ state: "visible" });
      await expectText(page, "#watch-status", "Watching live.");
      await playRound(page, alice, bob, "proxy_spectator");
      await screenshot(page, "proxy_spectator_results.png");

      // Readable on a phone: no sideways scrolling of the page itself.
      await page.setViewportSize({ width: 390, height: 844 });
      const overflow = await page.evaluate<number>("document.documentElement.scrollWidth - innerWidth");
      ok(overflow <= 0, `page is ${overflow}px wider than a phone screen`);
      await screenshot(page, "proxy_spectator_phone.png");

      // Back to the list; the spectator left the room on the server.
      await page.click("#back-button");
      await page.locator("#lobby").waitFor({ state: "visible" });
      await waitUntil(() => (h.server.core.rooms.get("stage")?.monitors.length ?? 0) === 0, "spectator left");

      // The game server goes away: the page says why and keeps trying.
      await h.server.shutdown();
      await page.locator("#status").filter({ hasText: "game server unavailable" }).waitFor({ timeout: 10_000 });
      ok(["reconnecting…", "connecting…"].includes(await text(page, "#stream-state")));
      equal(errors.length, 0, errors.join("\n"));
    } finally {
      await browser?.close();
      await h.close({ allowViolations: true });
    }
  },
});

Deno.test({
  name: "spectator page on the game server's HTTP port: token login, room list, watch a round",
  ignore: !available,
  async fn() {
    const h = await startHttpHarness({ listen: true });
    let browser: Browser | null = null;
    try {
      const alice = await h.login(100);
      const bob = await h.login(200);
      await alice.createRoom("stage");
      await bob.joinRoom("stage");
      browser = await launch();
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      const errors: string[] = [];
      page.on("pageerror", (e) => errors.push(String(e)));
      await page.goto(`${h.url}/spectator`);
      await page.locator("#token-form").waitFor();
      await page.fill("#game-token", devToken(9));
      await page.click("#token-button");
      await checkLobby(page, h);
      await page.locator('#rooms tr[data-room="stage"] button').click();
      await expectText(page, "#watch-status", "Watching live.");
      await playRound(page, alice, bob, "server_spectator");
      equal(errors.length, 0, errors.join("\n"));
    } finally {
      await browser?.close();
      await h.close();
    }
  },
});
