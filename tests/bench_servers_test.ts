/**
 * `deno task bench-servers` as users run it (the task's own command line),
 * with tiny sizes against Chorus only: the idle and relay phases run a real
 * server, the real load generator and the development upstream, print the
 * Markdown tables and write the JSON; a usage error exits 2. The figures
 * themselves are measured for BENCHMARKS.md, never asserted here.
 */
import { equal, match, ok } from "node:assert/strict";

const ROOT = new URL("..", import.meta.url).pathname;
const denoJson = JSON.parse(await Deno.readTextFile(`${ROOT}deno.json`));

/** `deno task bench-servers` as argv: the task's words, then ours. */
function taskArgs(extra: string[]): string[] {
  const task = (denoJson.tasks["bench-servers"] as string).split(/\s+/);
  equal(task[0], "deno");
  return [...task.slice(1), ...extra];
}

async function run(extra: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = await new Deno.Command(Deno.execPath(), { args: taskArgs(extra), cwd: ROOT, stdin: "null" }).output();
  const text = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: out.code, stdout: text(out.stdout), stderr: text(out.stderr) };
}

Deno.test("deno task bench-servers: idle and relay phases against Chorus print the tables and write the JSON", async () => {
  const dir = await Deno.makeTempDir({ prefix: "bench-servers-test-" });
  try {
    const json = `${dir}/out.json`;
    const r = await run([
      ...["--servers", "chorus", "--phases", "idle,relay", "--sessions", "20", "--hold", "1"],
      ...["--rooms", "1", "--relay-duration", "3", "--round-secs", "2", "--settle", "0", "--sample-interval", "0.5"],
      ...["--json", json],
    ]);
    equal(r.code, 0, r.stderr);
    match(r.stdout, /\| Chorus, embedded default store \| [\d.]+ +\| [\d.]+ +\| [\d.]+ +\| [\d.]+ ms/);
    match(r.stdout, /Relay: 1 rooms × \(8 players \+ 1 monitor\)/);
    const report = JSON.parse(await Deno.readTextFile(json));
    equal(report.format, "chorus-bench-servers/1");
    const [chorus] = report.results;
    equal(chorus.kind, "chorus");
    equal(chorus.failures.length, 0);
    equal(chorus.idle.established, 20);
    ok(chorus.idle.rssAfterStartMiB > 10, "RSS after start read from /proc");
    ok(chorus.idle.ping.p99 > 0);
    equal(chorus.relay.ready, 1);
    ok(chorus.relay.relayedPerSec > 0, "the monitor received touches and judges");
    ok(chorus.relay.serverCpuPercent !== null && chorus.relay.rssEndMiB > 10, "server sampled during the window");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("deno task bench-servers: usage errors exit 2 with a clear message and the usage", async () => {
  const r = await run(["--servers", "tphira"]);
  equal(r.code, 2);
  match(r.stderr, /Cannot run tphira: --tphira-dir is missing/);
  match(r.stderr, /Usage: deno task bench-servers/);
  const missing = await run(["--tphira-dir", "/nonexistent/tphira"]);
  equal(missing.code, 2);
  match(missing.stderr, /Cannot run tphira-mp from \/nonexistent\/tphira: dist\/server\/main\.js is missing/);
});
