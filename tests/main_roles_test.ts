/**
 * `main.ts` dispatches roles (src/roles/): `chorus help` lists them,
 * `chorus <role> --help` prints that role's own usage, an unknown role or a
 * stray argument is a usage error (exit 2), and configuration flags may come
 * before a game-server role's name. Run with the `start` task's permissions.
 */
import { equal, match, ok } from "node:assert/strict";

const MAIN = new URL("../main.ts", import.meta.url).pathname;
const FLAGS = ["--allow-net", "--allow-read", "--allow-write", "--allow-env", "--allow-sys"];

async function run(args: string[]) {
  const dir = await Deno.makeTempDir({ prefix: "chorus-roles-" });
  try {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", ...FLAGS, MAIN, ...args],
      cwd: dir,
      env: { NO_COLOR: "1" },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder();
    return { code: out.code, stdout: text.decode(out.stdout), stderr: text.decode(out.stderr) };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("main.ts roles: the table, each role's own usage, usage errors", async (t) => {
  await t.step("help lists every role with its summary", async () => {
    const r = await run(["help"]);
    equal(r.code, 0, r.stderr);
    for (const role of ["start", "check-config", "dev", "load"]) match(r.stdout, new RegExp(`^  ${role} +\\S`, "m"));
  });
  await t.step("<role> --help prints that role's usage", async () => {
    const dev = await run(["dev", "--help"]);
    equal(dev.code, 0, dev.stderr);
    match(dev.stdout, /^Usage: chorus dev /m);
    match(dev.stdout, /--dev-upstream-port <n> +port of the development upstream/);
    const load = await run(["load", "--help"]);
    equal(load.code, 0, load.stderr);
    match(load.stdout, /^Usage: chorus load <scenario>/m);
    const check = await run(["check-config", "-h"]);
    match(check.stdout, /^Usage: chorus check-config /m);
  });
  await t.step("an unknown role or a stray argument: exit 2 and the usage", async () => {
    const bogus = await run(["bogus"]);
    equal(bogus.code, 2);
    match(bogus.stderr, /^Unknown command: bogus$/m);
    const extra = await run(["check-config", "extra"]);
    equal(extra.code, 2);
    match(extra.stderr, /^Unexpected argument: extra$/m);
    match(extra.stderr, /^Usage: chorus check-config /m);
  });
  await t.step("configuration flags may come before a game-server role's name", async () => {
    const r = await run(["--port", "23456", "check-config"]);
    equal(r.code, 0, r.stderr);
    match(r.stdout, /^ {2}port +=\s+23456 +\(flag --port\)$/m);
    ok(!r.stdout.includes("Usage"));
  });
});
