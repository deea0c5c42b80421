/**
 * The `accounts` role as users run it: `deno task accounts` (the task's own
 * permission flags, read from deno.json) as a child process with stdin at
 * end of file, against a game server and a development upstream on
 * loopback. First start prints the generated root password once and stores
 * only its hash; login and a registration proof work over real HTTP and a
 * real game client; SIGHUP does not stop it, SIGTERM does, gracefully; a
 * second start keeps the data and ignores ACCOUNTS_ROOT_PASSWORD.
 */
import { equal, match, ok } from "node:assert/strict";
import denoJson from "../deno.json" with { type: "json" };
import { serveDevApi } from "../src/upstream/mod.ts";
import { taskCommand } from "../src/util/deno_tasks.ts";
import { watchOutput } from "./support/child_server.ts";
import { startHarness } from "./support/harness.ts";
import { TextSseReader } from "./support/accounts.ts";

const ROOT = new URL("..", import.meta.url).pathname;
const SECRET = "process-test-secret";

/** `deno task accounts` as argv: the task's flags, then ours. */
function taskArgs(extra: string[]): string[] {
  const task = taskCommand(denoJson.tasks, "accounts").split(/\s+/);
  equal(task[0], "deno");
  ok(!task.includes("-A") && !task.includes("--allow-all"), "the task does not grant everything");
  return [...task.slice(1), ...extra];
}

function spawn(dataDir: string, gamePort: number, api: string, env: Record<string, string> = {}) {
  const child = new Deno.Command(Deno.execPath(), {
    args: taskArgs([
      "--port",
      "0",
      "--host",
      "127.0.0.1",
      "--data-dir",
      dataDir,
      "--mp-server",
      `127.0.0.1:${gamePort}`,
      "--api-base",
      api,
    ]),
    cwd: ROOT,
    env: { NO_COLOR: "1", SERVICE_SECRET_KEY: SECRET, ...env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  return { child, ...watchOutput(child) };
}

async function portOf(lines: string[], waitFor: (re: RegExp) => Promise<void>): Promise<number> {
  await waitFor(/account backend listening/);
  return Number(/port=(\d+)/.exec(lines.find((l) => l.includes("account backend listening"))!)![1]);
}

Deno.test("deno task accounts: first start, login, a real registration proof, SIGHUP survives, SIGTERM stops; restart keeps data", async () => {
  const h = await startHarness({ config: { service_secret_key: SECRET } });
  const api = serveDevApi({ port: 0 });
  const dir = await Deno.makeTempDir({ prefix: "chorus-accounts-" });
  try {
    const first = spawn(dir, h.port, api.url, { ACCOUNTS_ROOT_PASSWORD: "" });
    const port = await portOf(first.lines, first.waitFor);
    await first.waitFor(/game server link up/);
    const base = `http://127.0.0.1:${port}`;
    const banner = first.lines.find((l) => l.includes("password: "));
    ok(banner, "the generated password is shown");
    const password = /password: (\S+)/.exec(banner)![1]!;
    match(password, /^[A-Za-z0-9_-]{24}$/);

    const login = await fetch(`${base}/api/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ username: "root", password }),
    });
    equal(login.status, 200);
    equal((await login.json()).username, "root");
    match(login.headers.getSetCookie()[0]!, /HttpOnly; SameSite=Lax$/);

    const reg = await fetch(`${base}/api/auth/users`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ username: "alice", password: "password-123", game_id_or_username: "Alice" }),
    });
    equal(reg.status, 200);
    const sse = new TextSseReader(reg.body!);
    const validating = await sse.event();
    equal(validating?.event, "validating");
    const alice = await h.login(100);
    await alice.createRoom(validating!.data);
    const success = await sse.event(10_000);
    equal(success?.event, "success");
    equal(JSON.parse(success!.data).game_id, 100);
    equal(await sse.next(), null);

    first.child.kill("SIGHUP");
    await first.waitFor(/SIGHUP: nothing to reload/);
    equal(await (await fetch(`${base}/health/live`)).text(), "live");
    first.child.kill("SIGTERM");
    equal((await first.child.status).code, 0);
    await first.done;
    ok(first.lines.some((l) => /stopped/.test(l)));
    equal(first.lines.filter((l) => l.includes(password)).length, 1, "printed once, never logged");
    const db = await Deno.readFile(`${dir}/accounts.sqlite`);
    ok(!new TextDecoder("latin1").decode(db).includes(password), "not stored in clear");

    const second = spawn(dir, h.port, api.url, { ACCOUNTS_ROOT_PASSWORD: "another-password-9" });
    const port2 = await portOf(second.lines, second.waitFor);
    await second.waitFor(/ACCOUNTS_ROOT_PASSWORD is set but the root account exists already/);
    ok(!second.lines.some((l) => l.includes("password: ")), "no second banner");
    const again = await fetch(`http://127.0.0.1:${port2}/api/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ username: "alice", password: "password-123" }),
    });
    equal(again.status, 200);
    await again.body?.cancel();
    second.child.kill("SIGTERM");
    equal((await second.child.status).code, 0);
    await second.done;
  } finally {
    await api.close();
    await h.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("deno task accounts: usage errors and a missing secret exit 2 with a clear message", async () => {
  const run = async (args: string[], env: Record<string, string>) => {
    const out = await new Deno.Command(Deno.execPath(), {
      args: taskArgs(args),
      cwd: ROOT,
      env: { NO_COLOR: "1", ...env },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    return { code: out.code, text: new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr) };
  };
  const noSecret = await run(["--port", "0"], { SERVICE_SECRET_KEY: "", HSN_SECRET_KEY: "" });
  equal(noSecret.code, 2);
  match(noSecret.text, /set SERVICE_SECRET_KEY \(or HSN_SECRET_KEY\)/);
  const bad = await run(["--cookie-secure", "sometimes"], { SERVICE_SECRET_KEY: "x" });
  equal(bad.code, 2);
  match(bad.text, /--cookie-secure: expected auto, always or never/);
  const help = await run(["--help"], {});
  equal(help.code, 0);
  match(help.text, /--mp-server <host:port>/);
});
