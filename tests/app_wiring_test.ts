/**
 * What `src/app.ts` wires around the HTTP port and the local socket, through
 * `startApp`: `/health/ready` reading persistence, `http_cors_origins`
 * reaching the CORS middleware, and `approve openuds` knowing whether the
 * local socket actually runs in approval mode (configured and started).
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import type { App } from "../src/app.ts";
import { STORE_DOWN_ISSUE } from "../src/app_health.ts";
import type { CommandOutcome } from "../src/console/registry.ts";
import { type Config, defaultConfig } from "../src/config/mod.ts";
import type { PersistenceStatus } from "../src/persistence/status.ts";
import { serveDevApi } from "../src/upstream/mod.ts";
import { appConfig, startTestApp } from "./support/app.ts";
import { freePort } from "./support/child_server.ts";
import { dataDirs } from "./support/persistence_stack.ts";

async function start(config: Config, quiet = false): Promise<App> {
  const app = startTestApp(config, { quiet });
  await app.ready;
  return app;
}

/** Runs a console command on the app's registry (the one `approve openuds` lives in). */
function run(app: App, line: string): Promise<CommandOutcome> {
  const registry = app.cli as unknown as {
    run(line: string, actor: { kind: "console" }): Promise<CommandOutcome>;
  };
  return registry.run(line, { kind: "console" });
}

Deno.test("wired app: readiness, CORS from the config, and approve openuds per OpenUDS mode", async (t) => {
  const dev = serveDevApi({ port: 0 });
  // One data-dir template for every app started here (the schema is created once).
  const dirs = dataDirs();
  try {
    await t.step("/health/ready follows persistence; http_cors_origins reaches the API", async () => {
      const dataDir = await dirs.fresh();
      const port = freePort();
      const app = await start(
        appConfig(dataDir, dev.url, { http_port: port, http_cors_origins: ["https://watch.example"] }),
      );
      const base = `http://127.0.0.1:${port}`;
      const get = async (path: string, headers: Record<string, string> = {}) => {
        const res = await fetch(`${base}${path}`, { headers });
        return { status: res.status, headers: res.headers, body: await res.json() };
      };
      try {
        const ready = await get("/health/ready");
        deepEqual([ready.status, ready.body], [200, { status: "ready" }]);
        equal(app.persistence.status().store_up, true);

        // The store going away (what the apply worker reports) makes the process not ready.
        const real = app.persistence.status.bind(app.persistence);
        let store_up = false;
        let failures = 0;
        app.persistence.status = (): PersistenceStatus => {
          const s = real();
          return { ...s, store_up, counters: { ...s.counters, write_failures: s.counters.write_failures + failures } };
        };
        const down = await get("/health/ready");
        deepEqual([down.status, down.body], [503, { status: "not ready", issues: [STORE_DOWN_ISSUE] }]);

        // Journal appends that keep failing: records are in memory only.
        store_up = true;
        failures = 1;
        deepEqual((await get("/health/ready")).status, 200, "one failed append is survivable");
        failures = 4;
        const failing = await get("/health/ready");
        equal(failing.status, 503);
        equal((failing.body as { issues: string[] }).issues.length, 1);
        match(
          (failing.body as { issues: string[] }).issues[0]!,
          /^journal writes failing: 4 write or fsync failures in the last 60 s/,
        );
        app.persistence.status = real;

        // http_cors_origins from the configuration: the listed origin is allowed, others get no CORS headers.
        const allowed = await get("/api/rooms", { origin: "https://watch.example" });
        equal(allowed.status, 200);
        equal(allowed.headers.get("access-control-allow-origin"), "https://watch.example");
        const other = await get("/api/rooms", { origin: "https://evil.example" });
        equal(other.headers.get("access-control-allow-origin"), null);
        const preflight = await fetch(`${base}/api/rooms`, {
          method: "OPTIONS",
          headers: { origin: "https://watch.example", "access-control-request-method": "GET" },
        });
        await preflight.body?.cancel();
        equal(preflight.headers.get("access-control-allow-origin"), "https://watch.example");
        match(preflight.headers.get("access-control-allow-methods") ?? "", /GET/);
        // Never on the admin panel.
        const admin = await get("/admin/api/session", { origin: "https://watch.example" });
        equal(admin.headers.get("access-control-allow-origin"), null);
      } finally {
        await app.stop();
      }
    });
    await t.step("approve openuds says approval mode is not running when OpenUDS is off or uses a token", async (t) => {
      const socketDir = await Deno.makeTempDir({ prefix: "chorus-app-uds-" });
      const openuds = (token: string, enabled = true) => ({
        ...defaultConfig().openuds,
        enabled,
        socket_path: `${socketDir}/openuds.sock`,
        auth_token: token,
      });
      const NOT_RUNNING = "OpenUDS approval mode is not running (the local socket is off or uses auth_token)";
      try {
        await t.step("OpenUDS off", async () => {
          const app = await start(appConfig(await dirs.fresh(), dev.url, { openuds: openuds("", false) }));
          try {
            const r = await run(app, "approve openuds 1234");
            ok(!r.ok);
            deepEqual([r.code, r.message], ["UNAVAILABLE", NOT_RUNNING]);
          } finally {
            await app.stop();
          }
        });
        await t.step("OpenUDS in token mode", async () => {
          const app = await start(appConfig(await dirs.fresh(), dev.url, { openuds: openuds("a-long-shared-token") }));
          try {
            ok((await Deno.stat(`${socketDir}/openuds.sock`)).isSocket, "the local socket listens");
            const r = await run(app, "approve openuds 1234");
            ok(!r.ok);
            deepEqual([r.code, r.message], ["UNAVAILABLE", NOT_RUNNING]);
            deepEqual((await run(app, "approve openuds")).lines.some((l) => l.includes(NOT_RUNNING)), true);
          } finally {
            await app.stop();
          }
        });
        await t.step("OpenUDS in approval mode", async () => {
          const app = await start(appConfig(await dirs.fresh(), dev.url, { openuds: openuds("") }));
          try {
            const r = await run(app, "approve openuds 1234");
            ok(!r.ok);
            deepEqual([r.code, r.message], ["INVALID_ARGUMENT", "no approval request 1234"]);
            deepEqual(await run(app, "approve openuds"), {
              ok: true,
              lines: ["no OpenUDS client is waiting for approval"],
            });
          } finally {
            await app.stop();
          }
        });
        await t.step("OpenUDS configured for approval mode but failing to start", async (t) => {
          // Unusable socket paths (root can write anywhere, so no permission case): a regular file where the
          // socket's directory should be, and a regular file at the socket path itself.
          const blocker = `${socketDir}/blocker`;
          await Deno.writeTextFile(blocker, "not a directory, not a socket");
          for (
            const [what, path] of [["directory is a file", `${blocker}/openuds.sock`], [
              "path is a file",
              blocker,
            ]] as const
          ) {
            await t.step(what, async () => {
              const config = appConfig(await dirs.fresh(), dev.url, {
                openuds: { ...openuds(""), socket_path: path },
              });
              // Quiet: the error it logs on purpose is checked in the history, not printed as if something failed.
              const app = await start(config, true);
              try {
                ok(
                  app.logs.history().some((r) => r.level === "error" && r.msg === "OpenUDS did not start"),
                  "the failed start is logged",
                );
                const r = await run(app, "approve openuds 1234");
                ok(!r.ok);
                deepEqual([r.code, r.message], ["UNAVAILABLE", NOT_RUNNING]);
                deepEqual((await run(app, "approve openuds")).lines.some((l) => l.includes(NOT_RUNNING)), true);
              } finally {
                await app.stop();
              }
            });
          }
          equal(await Deno.readTextFile(blocker), "not a directory, not a socket", "the file is left alone");
        });
      } finally {
        await Deno.remove(socketDir, { recursive: true });
      }
    });
  } finally {
    await dev.close();
    await dirs.cleanup();
  }
});
