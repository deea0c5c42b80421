/**
 * Self-update end to end (spec 3 §5.4): the wired app (`startApp`) against
 * a local release server on loopback, driven through OpenUDS and the
 * console as an operator would, with small artifacts standing in for the
 * binary. Covers the happy path and the notice after the restart, a bad
 * checksum, a truncated download resumed, players online (the update
 * waits), cancel, and rollback (by command and after a failed start).
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { type App, startApp } from "../src/app.ts";
import { connect } from "../src/client/mod.ts";
import type { CommandOutcome } from "../src/console/registry.ts";
import type { Config } from "../src/config/mod.ts";
import { EXIT_RESTART, TICK_MS, type UpdateStatus } from "../src/update/mod.ts";
import { ManualClock } from "../src/util/clock.ts";
import { devToken, serveDevApi } from "../src/upstream/mod.ts";
import { appConfig } from "./support/app.ts";
import { settle } from "./support/harness.ts";
import { dataDirs } from "./support/persistence_stack.ts";
import { type ReleaseServer, startReleaseServer } from "./support/release_server.ts";
import { TOKEN, UdsClient } from "./support/uds.ts";

const OLD = new TextEncoder().encode("#!/bin/sh\necho chorus 0.1.0\n");
const NEW = new Uint8Array(150_000).map((_, i) => (i * 7 + 3) & 0xff);

interface Running {
  readonly app: App;
  readonly clock: ManualClock;
  readonly socket: string;
}

/** Starts the app as version `version` over executable `exe`, with the update section pointing at `releases`. */
async function start(
  base: Config,
  exe: string,
  version: string,
  releases: ReleaseServer,
  more: Partial<Config["update"]> = {},
): Promise<Running> {
  const clock = new ManualClock();
  const config: Config = { ...base, update: { ...base.update, manifest_url: releases.manifestUrl, ...more } };
  const app = startApp({ config, sources: new Map(), warnings: [], file: null, rest: [] }, {
    console: false,
    clock,
    update: { executable: exe, version },
  });
  await app.ready;
  return { app, clock, socket: config.openuds.socket_path };
}

async function udsClient(socket: string): Promise<UdsClient> {
  const client = new UdsClient(await Deno.connect({ transport: "unix", path: socket }));
  await client.send({ type: "authenticate", token: TOKEN, client_name: "update-test" });
  equal((await client.next((f) => f.type === "authenticated", "authenticated")).type, "authenticated");
  return client;
}

function run(app: App, line: string): Promise<CommandOutcome> {
  const registry = app.cli as unknown as {
    run(line: string, actor: { kind: "console" }): Promise<CommandOutcome>;
  };
  return registry.run(line, { kind: "console" });
}

/** Resolves with the stop reason, or "running" when the app has not asked to stop by the next macrotask. */
function stopState(app: App): Promise<string> {
  return Promise.race([app.stopRequested, new Promise<string>((r) => setTimeout(() => r("running"), 0))]);
}

Deno.test("self-update end to end against a local release server", async (t) => {
  const dev = serveDevApi({ port: 0 });
  const dirs = dataDirs();
  const releases = startReleaseServer();
  const work = await Deno.makeTempDir({ prefix: "chorus-update-" });
  let exe = "";
  let steps = 0;
  /** A fresh executable (its own directory: a step that fails leaves nothing behind for the next) and data dir. */
  const setup = async () => {
    const dir = `${work}/${++steps}`;
    await Deno.mkdir(dir);
    exe = `${dir}/chorus`;
    await Deno.writeFile(exe, OLD, { mode: 0o755 });
    releases.seen.length = 0;
    const dataDir = await dirs.fresh();
    return appConfig(dataDir, dev.url, {
      // The notices are info and warn lines; players here do not ping.
      log_level: "info",
      heartbeat_timeout: 3600,
      openuds: {
        ...appConfig("", "").openuds,
        enabled: true,
        socket_path: `${dataDir}/openuds.sock`,
        auth_token: TOKEN,
      },
    });
  };
  try {
    await t.step("happy path over OpenUDS: verified, replaced, restart, one-time notice", async () => {
      const config = await setup();
      await releases.publish("0.2.0", NEW);
      const { app, socket } = await start(config, exe, "0.1.0", releases);
      const client = await udsClient(socket);
      const checked = await client.ok("update.check") as UpdateStatus;
      deepEqual(checked.latest?.version, "0.2.0");
      equal(checked.last_check?.outcome, "newer");
      const applied = await client.ok("update.apply") as UpdateStatus;
      equal(applied.phase, "restarting");
      match(await app.stopRequested, /update to 0\.2\.0/);
      equal(app.exitCode(), EXIT_RESTART);
      deepEqual(await Deno.readFile(exe), NEW, "the new binary is in place");
      deepEqual(await Deno.readFile(`${exe}.previous`), OLD, "the old one is kept for rollback");
      equal((await Deno.stat(exe)).mode! & 0o777, 0o755);
      await client.close();
      await app.stop();

      // The supervisor starts the new binary: it tells once that the update completed.
      const second = await start(config, exe, "0.2.0", releases);
      const notice = second.app.logs.history().filter((r) => r.msg.startsWith("update completed"));
      deepEqual(notice.map((r) => r.msg), ["update completed: 0.1.0 → 0.2.0"]);
      const again = await udsClient(second.socket);
      const status = await again.ok("update.status") as UpdateStatus;
      deepEqual([status.version, status.last_update?.from, status.last_update?.to], ["0.2.0", "0.1.0", "0.2.0"]);
      equal(status.latest, null, "0.2.0 is the newest");
      await again.close();
      await second.app.stop();
      await assert404(`${exe}.update.json`);
      const third = await start(config, exe, "0.2.0", releases);
      equal(third.app.logs.history().some((r) => r.msg.startsWith("update completed")), false, "only once");
      await third.app.stop();
    });

    await t.step("a bad checksum leaves the running binary untouched and says why", async () => {
      const config = await setup();
      await releases.publish("0.2.0", NEW, { sha256: "0".repeat(64) });
      const { app } = await start(config, exe, "0.1.0", releases);
      const outcome = await run(app, "update apply");
      equal(outcome.ok, false);
      match(
        outcome.ok ? "" : outcome.message,
        /checksum: SHA-256 of the download is [0-9a-f]{64}, the manifest says 0{64}/,
      );
      deepEqual(await Deno.readFile(exe), OLD);
      await assert404(`${exe}.download`);
      await assert404(`${exe}.previous`);
      equal(await stopState(app), "running");
      const status = await run(app, "update");
      ok(status.ok && status.lines.some((l) => l.startsWith("last error: SHA-256")), JSON.stringify(status));
      await app.stop();
      equal(app.exitCode(), 0);
    });

    await t.step("a truncated download is resumed with Range by the next attempt", async () => {
      const config = await setup();
      await releases.publish("0.2.0", NEW);
      const { app } = await start(config, exe, "0.1.0", releases);
      releases.fault({ kind: "cut", after: 60_000 });
      const first = await run(app, "update apply");
      equal(first.ok, false);
      match(first.ok ? "" : first.message, /truncated: the download stopped at 60000 of 150000 bytes/);
      deepEqual(await Deno.readFile(exe), OLD);
      equal((await Deno.stat(`${exe}.download`)).size, 60_000);
      const second = await run(app, "update apply");
      ok(second.ok, JSON.stringify(second));
      deepEqual(releases.seen.filter((s) => s.path === "/chorus-0.2.0").map((s) => s.range), [null, "bytes=60000-"]);
      deepEqual(await Deno.readFile(exe), NEW);
      match(await app.stopRequested, /update to 0\.2\.0/);
      await app.stop();
    });

    await t.step("players online: apply is refused, schedule waits for min_idle_minutes without them", async () => {
      const config = await setup();
      await releases.publish("0.2.0", NEW);
      const { app, clock } = await start(config, exe, "0.1.0", releases, { min_idle_minutes: 10 });
      const player = await connect({ port: app.server.address!.port, pingIntervalMs: 0 });
      await player.authenticate(devToken(100));
      const refused = await run(app, "update apply");
      match(refused.ok ? "" : refused.message, /1 player is online: update schedule waits for them/);
      const scheduled = await run(app, "update schedule");
      ok(
        scheduled.ok && scheduled.lines.includes("pending: scheduled 0.2.0, waiting for 1 player to leave"),
        JSON.stringify(scheduled),
      );
      const since = (app.updater.status().pending!).since;
      await run(app, "update schedule");
      equal(app.updater.status().pending!.since, since, "scheduling again changes nothing");
      clock.advance(30 * 60_000); // half an hour of play
      deepEqual(await Deno.readFile(exe), OLD, "nothing happens while the player is online");
      await player.close();
      // The user leaves the registry after the reconnect grace; the idle clock starts at the next tick.
      while (app.server.core.users.has(100)) clock.advance(1000), await settle(1);
      clock.advance(TICK_MS);
      equal(app.updater.status().pending!.waiting_for, "10 idle minutes");
      clock.advance(9 * 60_000);
      equal(app.updater.state.phase, "idle", "not yet");
      clock.advance(60_000 + TICK_MS);
      match(await app.stopRequested, /update to 0\.2\.0/);
      deepEqual(await Deno.readFile(exe), NEW);
      await app.stop();
    });

    await t.step("cancel drops a scheduled update and stops a download in flight", async () => {
      const config = await setup();
      await releases.publish("0.2.0", NEW);
      const { app, clock, socket } = await start(config, exe, "0.1.0", releases, { min_idle_minutes: 1 });
      const player = await connect({ port: app.server.address!.port, pingIntervalMs: 0 });
      await player.authenticate(devToken(100));
      ok((await run(app, "update schedule")).ok);
      const cancelled = await run(app, "update cancel");
      ok(cancelled.ok && cancelled.lines[0] === "cancelled" && cancelled.lines.includes("pending: none"));
      await player.close();
      while (app.server.core.users.has(100)) clock.advance(1000), await settle(1);
      clock.advance(10 * 60_000);
      deepEqual(await Deno.readFile(exe), OLD, "nothing was installed");
      equal(releases.seen.some((s) => s.path === "/chorus-0.2.0"), false, "nor downloaded");

      // A forced update whose download hangs: cancel stops it, the partial file stays for a resume.
      const { promise: released, resolve: release } = Promise.withResolvers<void>();
      releases.fault({ kind: "hold", after: 40_000, release: released });
      const client = await udsClient(socket);
      // Sent now, its answer read after the cancel (the client's reads time out after 3 s).
      await client.send({ type: "command", id: "force-1", command: "update.force" });
      while (app.updater.state.phase !== "downloading") await settle(1);
      while (((await Deno.stat(`${exe}.download`).catch(() => null))?.size ?? 0) < 40_000) await settle(1);
      // Commands on one connection run in order: the cancel comes from a second one.
      const other = await udsClient(socket);
      const cancel = await other.ok("update.cancel") as { cancelled: boolean };
      await other.close();
      equal(cancel.cancelled, true);
      const answer = await client.next((f) => f.type === "response" && f.id === "force-1", "update.force answer");
      equal(answer.ok, false);
      match((answer.error as { message: string }).message, /cancelled/);
      release();
      deepEqual(await Deno.readFile(exe), OLD);
      equal((await Deno.stat(`${exe}.download`)).size, 40_000);
      equal(await stopState(app), "running");
      await client.close();
      await app.stop();
    });

    await t.step("rollback: by command, and automatically when the new binary cannot start", async () => {
      const config = await setup();
      await releases.publish("0.2.0", NEW);
      const first = await start(config, exe, "0.1.0", releases);
      ok((await run(first.app, "update force")).ok);
      await first.app.stopRequested;
      await first.app.stop();

      // The new version starts, then the operator rolls back.
      const second = await start(config, exe, "0.2.0", releases);
      const back = await run(second.app, "update rollback");
      ok(back.ok, JSON.stringify(back));
      match(await second.app.stopRequested, /rollback from 0\.2\.0/);
      equal(second.app.exitCode(), EXIT_RESTART);
      deepEqual(await Deno.readFile(exe), OLD);
      await second.app.stop();
      const third = await start(config, exe, "0.1.0", releases);
      ok(third.app.logs.history().some((r) => r.msg === "rolled back from 0.2.0 to 0.1.0"));
      const none = await run(third.app, "update rollback");
      match(none.ok ? "" : none.message, /there is no previous binary/);

      // Update again; this time the new binary fails to start (its address cannot be bound).
      ok((await run(third.app, "update force")).ok);
      await third.app.stopRequested;
      await third.app.stop();
      deepEqual(await Deno.readFile(exe), NEW);
      const broken = startApp({
        config: {
          ...config,
          bind_address: "192.0.2.1",
          update: { ...config.update, manifest_url: releases.manifestUrl },
        },
        sources: new Map(),
        warnings: [],
        file: null,
        rest: [],
      }, { console: false, clock: new ManualClock(), update: { executable: exe, version: "0.2.0" } });
      await broken.ready.then(() => Promise.reject(new Error("should not start")), () => {});
      await broken.stop();
      deepEqual(await Deno.readFile(exe), OLD, "the previous binary is back for the supervisor's next start");
      const fourth = await start(config, exe, "0.1.0", releases);
      const said = fourth.app.logs.history().find((r) => r.msg.startsWith("rolled back from 0.2.0"));
      match(said?.msg ?? "", /rolled back from 0\.2\.0 to 0\.1\.0 \(0\.2\.0 failed to start: /);
      await fourth.app.stop();
    });
  } finally {
    await releases.close();
    await dev.close();
    await dirs.cleanup();
    await Deno.remove(work, { recursive: true });
  }
});

async function assert404(path: string): Promise<void> {
  const found = await Deno.stat(path).then(() => true, () => false);
  equal(found, false, `${path} should not exist`);
}
