/**
 * `main.ts dev` as an operator runs it (issue 2): `--dev-upstream-port 0`
 * serves the development upstream on a free port, the log says that the game
 * API endpoint is the development upstream and warns that the user's own
 * `--game-api-endpoint` is overridden, and logins really go to that upstream.
 * Wrong uses of the option are usage errors (exit 2) before anything starts.
 */
import { equal, match, notEqual, ok } from "node:assert/strict";
import { connect } from "../src/client/mod.ts";
import { devToken } from "../src/upstream/mod.ts";
import { freePort, mainArgs, type MainTask, spawnServer } from "./support/child_server.ts";

/** Runs `main.ts <args>` to completion with stdin at end of file. */
async function run(args: string[]) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: mainArgs(args[0] as MainTask, ...args.slice(1)),
    env: { NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder();
  return { code: out.code, stdout: text.decode(out.stdout), stderr: text.decode(out.stderr) };
}

Deno.test("dev --dev-upstream-port 0: free port, logged endpoint, warning for an overridden --game-api-endpoint", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "chorus-dev-" });
  const port = freePort();
  // spawnServer passes --game-api-endpoint <upstream>: the user's explicit value that dev overrides.
  const server = spawnServer({
    command: "dev",
    port,
    dataDir,
    upstream: "https://api.example.invalid",
    flags: ["--dev-upstream-port", "0", "--no-cli", "--openuds.enabled=false"],
  });
  const { child } = server;
  try {
    await server.ready;
    const printed = server.lines.map((l) => /^development upstream: (http:\/\/127\.0\.0\.1:(\d+))$/.exec(l))
      .find((m) => m !== null);
    ok(printed, server.lines.join("\n"));
    const [, url, upstreamPort] = printed;
    notEqual(Number(upstreamPort), 12380, "port 0 lets the OS choose");
    // The guide to the test data: which charts exist, how record ids map to players and scores.
    ok(server.lines.some((l) => l.startsWith("  charts: every id 1..999999 exists")), server.lines.join("\n"));
    ok(server.lines.some((l) => l.startsWith("  records: id = player × 1000 + n is play n")));
    ok(
      server.lines.some((l) =>
        /\binfo\b/i.test(l) && l.includes(`game API endpoint is the development upstream ${url}`)
      ),
      server.lines.join("\n"),
    );
    const warning = server.lines.find((l) => l.includes('game_api_endpoint = "https://api.example.invalid"'));
    ok(warning, server.lines.join("\n"));
    match(warning, /\bwarn/i);
    match(warning, /\(from flag --game-api-endpoint\): ignored by the dev command/);
    // The upstream answers on that port, and the server authenticates against it (not the overridden endpoint).
    const res = await fetch(`${url}/me`, { headers: { authorization: `Bearer ${devToken(100)}` } });
    equal(res.status, 200);
    equal((await res.json()).id, 100);
    const alice = await connect({ host: "127.0.0.1", port, pingIntervalMs: 0 });
    await alice.authenticate(devToken(100));
    await alice.close();
    child.kill("SIGTERM");
    equal((await child.status).code, 0, server.lines.join("\n"));
  } finally {
    try {
      child.kill("SIGKILL");
    } catch {
      // Already exited.
    }
    await child.status;
    await server.done.catch(() => {});
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("--dev-upstream-port mistakes are usage errors", async (t) => {
  await t.step("not a port: exit 2 with the reason", async () => {
    const r = await run(["dev", "--dev-upstream-port", "http"]);
    equal(r.code, 2);
    match(r.stderr, /^Cannot use --dev-upstream-port "http": expected a port number 0-65535$/m);
    equal(r.stdout, "");
  });
  await t.step("with start: exit 2, the option belongs to dev", async () => {
    const r = await run(["start", "--dev-upstream-port=5"]);
    equal(r.code, 2);
    match(r.stderr, /^--dev-upstream-port applies to the dev command only$/m);
  });
});
