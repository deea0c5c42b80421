/**
 * The spectator page end to end in headless Chromium: protocol clients play
 * a scripted round while the page watches — through the monitor proxy
 * (e-mail/password login, `/auth/me`, the proxy's room stream and
 * `/ws/live`) and on the game server's own HTTP port (game token login,
 * profile S room stream, its `/ws/live`). Asserts what the page shows:
 * the room list kept live, the players, the chart the room plays drawn under
 * the touches (judge lines, notes, judgement flashes in their colours, read
 * from the page's `chorusSpectator.chart` hook and its pixels), counters
 * moving, touches drawn, the state changes and the results table; keeps
 * screenshots (desktop and phone) under tests/artifacts/. Needs
 * /usr/bin/chromium; skipped with a printed reason otherwise.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { type Browser, chromium, type Page } from "playwright-core";
import type { PhiraClient } from "../src/client/mod.ts";
import type { JudgeEvent, TouchFrame } from "../src/protocol/mod.ts";
import { gameChartHandler } from "../src/app_charts.ts";
import { defaultConfig } from "../src/config/mod.ts";
import { DEV_PASSWORD, devEmail, devRecordId, devToken, Upstream } from "../src/upstream/mod.ts";
import { memoryLogHub } from "../src/util/log.ts";
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

/** The chart the scripted round plays: development chart 1 (official JSON; two lines, notes every half second from 2 s). */
const CHART = 1;

/** A note of the chart as `/chart/{id}.json` has it: its index on its line (the `note_id` of judges) and time. */
interface ChartNote {
  line: number;
  id: number;
  time: number;
  kind: string;
}

/** The notes of line 0 of chart {@link CHART} in time order, read from the server the page uses. */
async function chartNotes(url: string): Promise<ChartNote[]> {
  const res = await fetch(`${url}/chart/${CHART}.json`);
  equal(res.status, 200);
  const { chart } = await res.json() as { chart: { lines: { notes: { time: number; kind: unknown }[] }[] } };
  return chart.lines[0]!.notes
    .map((n, id) => ({ line: 0, id, time: n.time, kind: typeof n.kind === "string" ? n.kind : "Hold" }))
    .sort((a, b) => a.time - b.time);
}

/** Judge events for notes `from..` of `notes` (one each, at the note's time), with the given judgements. */
function judges(notes: ChartNote[], from: number, kinds: JudgeEvent["judgement"][]): JudgeEvent[] {
  return kinds.map((judgement, i) => {
    const n = notes[from + i]!;
    return { time: n.time, line_id: n.line, note_id: n.id, judgement };
  });
}

/** What the chart layer drew in the last frame of player `id` (`chorusSpectator.chart.panel`). */
interface ChartFrame {
  frames: number;
  time: number | null;
  counts: {
    lines: number;
    notes: number;
    effects: number;
    effectsByClass: Record<string, number>;
    shown: Record<string, number>;
  } | null;
}

function chartFrame(page: Page, id: number): Promise<ChartFrame | null> {
  return page.evaluate((player) => {
    // deno-lint-ignore no-explicit-any
    const hook = (globalThis as any).chorusSpectator.chart;
    return hook.panel(player);
  }, id);
}

/** Polls the chart layer of player `id` until `cond` holds (up to 15 s: the page plays the round in real time). */
async function untilFrame(page: Page, id: number, cond: (f: ChartFrame) => boolean, what: string): Promise<ChartFrame> {
  const end = performance.now() + 15_000;
  for (;;) {
    const f = await chartFrame(page, id);
    if (f && cond(f)) return f;
    if (performance.now() > end) throw new Error(`Timed out waiting for ${what}: ${JSON.stringify(f)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The parts of a page's canvas this test reads (Deno's types have no DOM). */
interface PageCanvas {
  width: number;
  height: number;
  getContext(kind: "2d"): { getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray } };
}

/** Pixels of the canvas at `selector` within 10 per channel of `hex` (what the page really painted). */
function pixelsOf(page: Page, selector: string, hex: string): Promise<number> {
  return page.locator(selector).evaluate((node, color) => {
    const canvas = node as unknown as PageCanvas;
    const { data } = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height);
    const want = [1, 3, 5].map((i) => parseInt(color.slice(i, i + 2), 16));
    let n = 0;
    for (let i = 0; i < data.length; i += 4) {
      if (want.every((v, k) => Math.abs(data[i + k]! - v) <= 10)) n++;
    }
    return n;
  }, hex);
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
async function playRound(
  page: Page,
  url: string,
  alice: PhiraClient,
  bob: PhiraClient,
  shots: string,
): Promise<void> {
  const p100 = '.player[data-player="100"]';
  const p200 = '.player[data-player="200"]';
  await page.locator(p100).waitFor();
  await page.locator(p200).waitFor();
  equal(await text(page, `${p100} .player-name`), "Alice");
  equal(await text(page, `${p200} .player-name`), "Bob");

  await alice.selectChart(CHART);
  // The game server serves the charts its rooms selected (the proxy any chart).
  const notes = await chartNotes(url);
  await alice.requestStart();
  await bob.ready();
  // The page readies its spectator session by itself (once it has the chart), so the round starts.
  await alice.waitFor("ChangeState", (e) => e.state.type === "Playing");
  await expectText(page, "#round-state", "playing");
  await until(() => page.evaluate("chorusSpectator.chart.state === 'ready'"), "the chart loaded");
  equal(await page.evaluate("chorusSpectator.chart.name"), "Dev Tutorial");
  equal(await page.evaluate("chorusSpectator.chart.id"), CHART);

  // The players are half a second before the chart's first notes; the page plays their frames back from there,
  // about a second behind, so the notes come down to their lines while the test watches.
  const t0 = notes[0]!.time - 0.5;
  alice.touches(touches(t0, 0));
  bob.touches(touches(t0, 2));
  alice.judges(judges(notes, 0, ["Perfect", "Perfect", "Good", "Perfect"]));
  bob.judges(judges(notes, 0, ["Perfect", "Miss", "Bad"]));
  await expectText(page, `${p100} dd.perfect`, "3");
  await expectText(page, `${p100} dd.combo`, "4");
  await expectText(page, `${p200} dd.miss`, "1");
  await expectText(page, `${p200} dd.combo`, "0");
  // Counters keep moving as more judgements arrive.
  alice.touches(touches(t0 + 1, 0));
  alice.judges(judges(notes, 4, ["Perfect", "Miss", "Perfect"]));
  await expectText(page, `${p100} dd.perfect`, "5");
  await expectText(page, `${p100} dd.combo`, "1");
  await expectText(page, `${p100} dd.max-combo`, "5");
  await expectText(page, `${p100} dd.accuracy`, "80.71%");
  // Touch points arrived and are being drawn on the canvas.
  const canvas = page.locator(`${p100} canvas.playfield`);
  await until(async () => Number(await canvas.getAttribute("data-touches")) === 48, "touches received");
  await until(async () => Number(await canvas.getAttribute("data-drawn") ?? 0) > 0, "touches drawn");

  // The chart under the touches: both lines, notes coming down, and judgement flashes once the judged notes' times
  // come on the player's clock.
  const approaching = await untilFrame(page, 100, (f) => (f.counts?.notes ?? 0) > 0, "notes drawn");
  equal(approaching.counts!.lines, 2, "both judge lines drawn");
  ok(approaching.time! < notes[0]!.time + 0.5, `the page starts before the first notes (${approaching.time})`);
  await untilFrame(page, 100, (f) => (f.counts?.effects ?? 0) > 0 && f.counts!.notes > 0, "a judgement flash");
  await screenshot(page, `${shots}_playing.png`);
  await canvas.screenshot({ path: new URL(`${shots}_chart.png`, ARTIFACTS).pathname });
  // Bob's bad, in the bad colour, on his canvas while it flashes.
  const bad = await untilFrame(page, 200, (f) => (f.counts?.effectsByClass.bad ?? 0) > 0, "Bob's bad flash");
  deepEqual(bad.counts!.shown, { perfect: 1, good: 0, bad: 1, miss: 1 });
  // Shown at its time on Bob's clock, not when it arrived: the flash lasts half a second from the note's time.
  ok(
    bad.time! >= notes[2]!.time && bad.time! < notes[2]!.time + 0.5,
    `bad flash at ${bad.time}, note ${notes[2]!.time}`,
  );
  ok(await pixelsOf(page, `${p200} canvas.playfield`, "#f29b72") > 0, "the bad colour is painted");
  // Everything Alice's judges said, shown at their times, by colour.
  const all = await untilFrame(page, 100, (f) => (f.counts?.shown.perfect ?? 0) === 5, "Alice's judgements shown");
  deepEqual(all.counts!.shown, { perfect: 5, good: 1, bad: 0, miss: 1 });
  ok(all.time! >= notes[6]!.time, `the player's clock reached the last judged note (${all.time})`);

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
      await playRound(page, h.url, alice, bob, "proxy_spectator");
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
    const dataDir = await Deno.makeTempDir({ prefix: "chorus-spectator-chart-" });
    const h = await startHttpHarness({
      listen: true,
      chart: (h) =>
        gameChartHandler({
          config: { ...defaultConfig(), data_dir: dataDir },
          upstream: new Upstream({ baseUrl: "http://dev.upstream", fetch: h.dev.fetch, clock: h.clock }),
          clock: h.clock,
          log: memoryLogHub("error").logger(),
          server: h.server,
        }),
    });
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
      await playRound(page, h.url, alice, bob, "server_spectator");
      equal(errors.length, 0, errors.join("\n"));
    } finally {
      await browser?.close();
      await h.close();
      await Deno.remove(dataDir, { recursive: true });
    }
  },
});
