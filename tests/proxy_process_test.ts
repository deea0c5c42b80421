/**
 * `deno task proxy` as a process, started exactly as the task does (its
 * permission flags, read from deno.json): the one-line refusals and their
 * exit codes, `--help`, and a run in front of `main.ts dev` (the development
 * game server and upstream) on loopback — rooms, login, profile, the
 * spectator WebSocket (an oversized message refused as it arrives), visitors,
 * the page — ended by SIGTERM.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import denoConfig from "../deno.json" with { type: "json" };
import { connect } from "../src/client/mod.ts";
import { decodeLiveEvent, encodeWsCommand } from "../src/http/mod.ts";
import { DEV_PASSWORD, devEmail, devToken } from "../src/upstream/mod.ts";
import { taskCommand } from "../src/util/deno_tasks.ts";
import { freePort, spawnServer, watchOutput } from "./support/child_server.ts";
import { waitUntil } from "./support/describe.ts";
import { TestSocket } from "./support/ws.ts";
import { closeCode, frameHeader, handshake } from "./support/ws_raw.ts";

const ROOT = new URL("..", import.meta.url).pathname;
const SECRET = "process-test-secret-0123456789";

/** `deno run <flags> main.ts proxy` as the task spells it. */
function taskArgs(): string[] {
  const task = taskCommand(denoConfig.tasks, "proxy");
  const words = task.split(/\s+/);
  equal(words[0], "deno");
  ok(!words.includes("-A") && !words.includes("--allow-all"), "the task runs without --allow-all");
  return words.slice(1);
}

function spawnProxy(args: string[], env: Record<string, string>): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: [...taskArgs(), ...args],
    cwd: ROOT,
    env: { NO_COLOR: "1", SERVICE_SECRET_KEY: "", HSN_SECRET_KEY: "", ...env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

/** Polls an asynchronous condition for up to 5 s (state of another process). */
async function until(cond: () => Promise<boolean>, what: string): Promise<void> {
  const end = performance.now() + 5000;
  while (!(await cond())) {
    if (performance.now() > end) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function run(args: string[], env: Record<string, string> = {}) {
  const out = await spawnProxy(args, env).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

Deno.test("deno task proxy refuses to start with one line and exit code 3 (config) or 2 (usage); --help", async (t) => {
  const cases: [string, string[], Record<string, string>, number, string][] = [
    [
      "no --allowed-origin",
      [],
      { SERVICE_SECRET_KEY: SECRET },
      3,
      "Refusing to start: --allowed-origin is required (the origin of the page that calls this proxy, e.g. https://monitor.example.org), or --debug for development",
    ],
    [
      "no secret",
      ["--allowed-origin", "https://m.example"],
      {},
      3,
      "Refusing to start: SERVICE_SECRET_KEY is not set (nor HSN_SECRET_KEY); it must equal the game server's service_secret_key",
    ],
    [
      "no secret, debug",
      ["--debug"],
      {},
      3,
      "Refusing to start: SERVICE_SECRET_KEY is not set (nor HSN_SECRET_KEY); it must equal the game server's service_secret_key",
    ],
    [
      "a bad option",
      ["--debug", "--prot", "1"],
      { SERVICE_SECRET_KEY: SECRET },
      2,
      "Unknown option '--prot'; did you mean --port? (see chorus proxy --help)",
    ],
  ];
  for (const [name, args, env, code, line] of cases) {
    await t.step(name, async () => {
      const r = await run(args, env);
      equal(r.code, code);
      equal(r.stderr, `${line}\n`);
      equal(r.stdout, "");
    });
  }
  await t.step("HSN_SECRET_KEY is accepted as the alias (it gets as far as binding the port)", async () => {
    const port = freePort();
    const blocker = Deno.listen({ hostname: "127.0.0.1", port });
    try {
      const r = await run([
        "--debug",
        "--host",
        "127.0.0.1",
        "--port",
        String(port),
        "--data-dir",
        await Deno.makeTempDir(),
      ], {
        HSN_SECRET_KEY: SECRET,
      });
      equal(r.code, 1);
      ok(/^Cannot start the monitor proxy: .*(in use|AddrInUse)/i.test(r.stderr), r.stderr);
    } finally {
      blocker.close();
    }
  });
  await t.step("--help", async () => {
    const r = await run(["--help"]);
    equal(r.code, 0);
    ok(r.stdout.startsWith("Chorus monitor proxy"));
    ok(r.stdout.includes("--allowed-origin <origin>"));
  });
});

Deno.test("deno task proxy in front of main.ts dev: rooms, login, profile, /ws/live, /visited, page; oversized WebSocket message; SIGTERM", async () => {
  const dir = await Deno.makeTempDir({ prefix: "chorus-proxy-process-" });
  const gamePort = freePort();
  const game = spawnServer({
    port: gamePort,
    dataDir: `${dir}/server`,
    upstream: "http://127.0.0.1:1",
    command: "dev",
    flags: ["--service-secret-key", SECRET, "--monitors", "9", "--dev-upstream-port", "0", "--no-cli"],
  });
  let proxy: Deno.ChildProcess | null = null;
  try {
    await game.ready;
    const upstream = game.lines.map((l) => /^development upstream: (http:\S+)/.exec(l)?.[1]).find(Boolean);
    ok(upstream, game.lines.join("\n"));
    const port = freePort();
    proxy = spawnProxy([
      "--host",
      "127.0.0.1",
      "--port",
      String(port),
      "--mp-server",
      `127.0.0.1:${gamePort}`,
      "--api-base",
      upstream,
      "--allowed-origin",
      "http://localhost:5173",
      "--data-dir",
      `${dir}/proxy`,
    ], { SERVICE_SECRET_KEY: SECRET });
    const out = watchOutput(proxy);
    await Promise.race([
      out.waitFor(/room monitor connected/),
      out.done.then(() => Promise.reject(new Error(out.lines.join("\n")))),
    ]);
    ok(out.lines.some((l) => /monitor proxy listening/.test(l)));
    // The secret never reaches the log.
    equal(out.lines.some((l) => l.includes(SECRET)), false);
    const url = `http://127.0.0.1:${port}`;

    const alice = await connect({ port: gamePort, pingIntervalMs: 0 });
    await alice.authenticate(devToken(100));
    await alice.createRoom("proc");
    // The room reaches the proxy as a pushed event; the next request shows it.
    let list: { total: number } = { total: 0 };
    await until(async () => (list = await (await fetch(`${url}/rooms/info`)).json()).total === 1, "room listed");
    deepEqual(list, {
      total: 1,
      rooms: [{
        name: "proc",
        data: { host: 100, users: [100], lock: false, cycle: false, chart: null, state: "SELECTING_CHART", rounds: [] },
      }],
    });
    const login = await fetch(`${url}/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: "http://localhost:5173" },
      body: JSON.stringify({ email: devEmail(9), password: DEV_PASSWORD }),
    });
    equal(login.headers.get("access-control-allow-origin"), "http://localhost:5173");
    const { token } = await login.json();
    const me = await (await fetch(`${url}/auth/me`, { headers: { authorization: `Bearer ${token}` } })).json();
    equal(me.game_id, 9);
    const ws = await TestSocket.open(`ws://127.0.0.1:${port}/ws/live?token=${encodeURIComponent(token)}`);
    await ws.waitFor(1);
    ws.socket.send(encodeWsCommand({ type: "Join", room_id: "proc" }));
    await waitUntil(() => ws.messages.map(decodeLiveEvent).some((e) => e.type === "Join"), "joined");
    const join = ws.messages.map(decodeLiveEvent).find((e) => e.type === "Join");
    equal(join?.type === "Join" && join.result.ok, true);
    await ws.close();
    // A 32 MiB message announced (issue 14): refused with 1009 from its header, only 64 KiB of it ever sent.
    const big = await handshake(port, `/ws/live?token=${encodeURIComponent(token)}`);
    await big.write(frameHeader(32 << 20));
    await big.write(new Uint8Array(64 * 1024)).catch(() => 0);
    equal(await closeCode(big), 1009);
    deepEqual(await (await fetch(`${url}/visited?count_only=true`)).json(), { count: 1 });
    const page = await fetch(`${url}/spectator/`);
    equal(page.status, 200);
    ok((await page.text()).includes("Chorus spectator"));
    await alice.close();

    proxy.kill("SIGTERM");
    const status = await proxy.status;
    await out.done;
    equal(status.code, 0);
    ok(out.lines.some((l) => /monitor proxy stopped/.test(l)), out.lines.join("\n"));
    proxy = null;
  } finally {
    if (proxy) {
      proxy.kill("SIGKILL");
      await proxy.status;
      await proxy.stdout.cancel().catch(() => {});
      await proxy.stderr.cancel().catch(() => {});
    }
    game.child.kill("SIGTERM");
    await game.child.status;
    await game.done;
    await Deno.remove(dir, { recursive: true });
  }
});
