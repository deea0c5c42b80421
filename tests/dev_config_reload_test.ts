/**
 * `config reload` under `main.ts dev`: dev overrides `game_api_endpoint` with the development upstream, and the
 * override is applied to every re-read of the configuration too, so reloading an unchanged file reports nothing
 * changed (not the user's endpoint as "take effect after a restart"), while a real change is still reported. Through
 * `startApp` with the override, and through `main.ts dev` as a child process driven over its line-mode console.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { type App, startApp } from "../src/app.ts";
import type { CommandOutcome } from "../src/console/registry.ts";
import { loadConfig } from "../src/config/mod.ts";
import { serveDevApi, type Upstream } from "../src/upstream/mod.ts";
import { withDevUpstream } from "../src/upstream/dev_command.ts";
import { freePort, mainArgs, watchOutput } from "./support/child_server.ts";
import { dataDirs } from "./support/persistence_stack.ts";

/** The user's own endpoint, which dev overrides (never contacted). */
const USER_ENDPOINT = "https://api.example.invalid";

function configYaml(o: { port: number; dataDir: string; serverName: string; logLevel?: string }): string {
  return [
    `port: ${o.port}`,
    "bind_address: 127.0.0.1",
    "http_port: 0",
    `data_dir: ${JSON.stringify(o.dataDir)}`,
    `game_api_endpoint: ${USER_ENDPOINT}`,
    `server_name: ${o.serverName}`,
    `log_level: ${o.logLevel ?? "error"}`,
    "openuds:",
    "  enabled: false",
    "welcome:",
    "  enabled: false",
    "",
  ].join("\n");
}

/** Runs a console command on the app's registry. */
function run(app: App, line: string): Promise<CommandOutcome> {
  const registry = app.cli as unknown as {
    run(line: string, actor: { kind: "console" }): Promise<CommandOutcome>;
  };
  return registry.run(line, { kind: "console" });
}

Deno.test("config reload with dev's endpoint override carried through: no spurious change, real changes reported", async (t) => {
  const dev = serveDevApi({ port: 0 });
  const dirs = dataDirs();
  const confDir = await Deno.makeTempDir({ prefix: "chorus-dev-reload-" });
  const file = `${confDir}/server_config.yml`;
  const args = ["--config", file];
  try {
    await t.step("with the override: nothing changed, then only the real change", async () => {
      const dataDir = await dirs.fresh();
      await Deno.writeTextFile(file, configYaml({ port: freePort(), dataDir, serverName: "Before" }));
      const app = startApp(await loadConfig({ args }), {
        console: false,
        args,
        adjust: (l) => withDevUpstream(l, dev.url),
      });
      try {
        await app.ready;
        equal((app.server.core.ctx.upstream as Upstream).baseUrl, dev.url, "the server runs against the dev upstream");
        deepEqual(await run(app, "config reload"), {
          ok: true,
          lines: [`configuration reloaded from ${file}: nothing changed`],
        });
        const check = await run(app, "check-config");
        ok(check.ok);
        ok(check.lines.includes("same as the running configuration"), check.lines.join("\n"));

        // A real change is still reported; the endpoint (now another user value) is still the dev upstream.
        await Deno.writeTextFile(
          file,
          configYaml({ port: app.server.core.ctx.config.port, dataDir, serverName: "After" })
            .replace(USER_ENDPOINT, "https://other.example.invalid"),
        );
        deepEqual(await run(app, "config reload"), {
          ok: true,
          lines: [`configuration reloaded from ${file}: 1 changed`, "  applied: server_name"],
        });
        equal((app.server.core.ctx.upstream as Upstream).baseUrl, dev.url);
      } finally {
        await app.stop();
      }
    });
    await t.step("without it (the override applied to the start only): the endpoint reads as changed", async () => {
      const dataDir = await dirs.fresh();
      await Deno.writeTextFile(file, configYaml({ port: freePort(), dataDir, serverName: "Before" }));
      const loaded = withDevUpstream(await loadConfig({ args }), dev.url);
      const app = startApp(loaded, { console: false, args });
      try {
        await app.ready;
        deepEqual(await run(app, "config reload"), {
          ok: true,
          lines: [
            `configuration reloaded from ${file}: 1 changed`,
            "  take effect after a restart: game_api_endpoint",
          ],
        });
      } finally {
        await app.stop();
      }
    });
  } finally {
    await dev.close();
    await dirs.cleanup();
    await Deno.remove(confDir, { recursive: true });
  }
});

Deno.test("main.ts dev: config reload of an unchanged file with its own game_api_endpoint reports nothing changed", async () => {
  const dirs = dataDirs();
  const confDir = await Deno.makeTempDir({ prefix: "chorus-dev-reload-" });
  const file = `${confDir}/server_config.yml`;
  const port = freePort();
  const dataDir = await dirs.fresh();
  await Deno.writeTextFile(file, configYaml({ port, dataDir, serverName: "Before", logLevel: "info" }));
  const child = new Deno.Command(Deno.execPath(), {
    args: mainArgs("dev", "--config", file, "--dev-upstream-port", "0"),
    env: { NO_COLOR: "1" },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const { lines, waitFor, done } = watchOutput(child);
  const exited = child.status.then(() => {
    throw new Error(`main.ts dev exited early:\n${lines.join("\n")}`);
  });
  exited.catch(() => {}); // Only raced against; the normal exit at the end must not count as unhandled.
  const writer = child.stdin.getWriter();
  const send = (line: string) => writer.write(new TextEncoder().encode(`${line}\n`));
  try {
    await Promise.race([waitFor(/game server listening/), exited]);
    ok(lines.some((l) => l.includes(`game_api_endpoint = "${USER_ENDPOINT}"`)), "dev warns about the override");
    await send("config reload");
    await Promise.race([waitFor(/^configuration reloaded from /), exited]);
    const reload = lines.filter((l) => l.startsWith("configuration reloaded from "));
    deepEqual(reload, [`configuration reloaded from ${file}: nothing changed`], lines.join("\n"));
    ok(!lines.some((l) => l.includes("take effect after a restart")), lines.join("\n"));

    await Deno.writeTextFile(file, configYaml({ port, dataDir, serverName: "After", logLevel: "info" }));
    await send("config reload");
    await Promise.race([waitFor(/^configuration reloaded from .*: 1 changed$/), exited]);
    await Promise.race([waitFor(/^ {2}applied: server_name$/), exited]);
    ok(!lines.some((l) => l.includes("take effect after a restart")), lines.join("\n"));

    await writer.close();
    child.kill("SIGTERM");
    equal((await child.status).code, 0, lines.join("\n"));
  } finally {
    try {
      child.kill("SIGKILL");
    } catch {
      // Already exited.
    }
    await writer.close().catch(() => {});
    await child.status;
    await done;
    await dirs.cleanup();
    await Deno.remove(confDir, { recursive: true });
  }
});
