/**
 * `main.ts check-config` as an operator runs it (issue 2 "Configuration"):
 * exit codes and stderr wording for a mistyped flag, a bad environment
 * variable and a bad file value (with the file's unknown-key warning), and
 * masked secrets in the normal output. Each case is a child process in a
 * temporary directory with a clean environment.
 */
import { equal, match, ok } from "node:assert/strict";
import { mainArgs, type MainTask } from "./support/child_server.ts";

/** Runs `main.ts <args>` in `cwd` with only `env` (plus what Deno needs) in its environment. */
async function run(cwd: string, args: string[], env: Record<string, string> = {}) {
  const keep: Record<string, string> = {};
  for (const name of ["PATH", "HOME", "DENO_DIR", "XDG_CACHE_HOME"]) {
    const value = Deno.env.get(name);
    if (value !== undefined) keep[name] = value;
  }
  const out = await new Deno.Command(Deno.execPath(), {
    args: mainArgs(args[0] as MainTask, ...args.slice(1)),
    cwd,
    env: { ...keep, NO_COLOR: "1", ...env },
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder();
  return { code: out.code, stdout: text.decode(out.stdout), stderr: text.decode(out.stderr) };
}

Deno.test("check-config: flag, environment and file mistakes are explained; secrets stay masked", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "chorus-cli-" });
  try {
    await t.step("a mistyped flag: exit 2, `unknown option` with the nearest flag", async () => {
      const r = await run(dir, ["check-config", "--prot", "5"]);
      equal(r.code, 2);
      match(r.stderr, /^unknown option --prot; did you mean --port\?$/m);
      ok(!r.stderr.includes("Unexpected argument"), r.stderr);
      equal(r.stdout, "");
    });

    await t.step("a nested key written with a dash: the dotted flag is suggested", async () => {
      const r = await run(dir, ["check-config", "--openuds-enabled"]);
      equal(r.code, 2);
      match(r.stderr, /^unknown option --openuds-enabled; did you mean --openuds\.enabled\?$/m);
    });

    await t.step("a bad environment variable: exit 3, the key, value, source and reason", async () => {
      const r = await run(dir, ["check-config"], { PM_PORT: "abc" });
      equal(r.code, 3);
      equal(
        r.stderr.trim(),
        'Invalid configuration: port = "abc" (from environment PM_PORT): expected an integer between 1 and 65535',
      );
      equal(r.stdout, "");
    });

    await t.step("a bad file value: exit 3, the unknown-key warning is shown too", async () => {
      await Deno.writeTextFile(`${dir}/bad.yml`, 'port: "x"\ncolour: blue\n');
      const r = await run(dir, ["check-config", "--config", "bad.yml"]);
      equal(r.code, 3);
      const lines = r.stderr.trim().split("\n");
      equal(lines.length, 2, r.stderr);
      match(lines[0]!, /^! Unknown configuration key "colour" \(from file .*bad\.yml line 2\) is ignored$/);
      match(lines[1]!, /^Invalid configuration: port = "x" \(from file .*bad\.yml line 1\): expected an integer/);
    });

    await t.step(
      "a misspelled secret in the file: exit 3 naming the key meant; a misspelled variable: a hint",
      async () => {
        await Deno.writeTextFile(`${dir}/typo.yml`, "admin_pasword: correct-horse-battery\n");
        const r = await run(dir, ["check-config", "--config", "typo.yml"], { PM_PROT: "5" });
        equal(r.code, 3);
        const lines = r.stderr.trim().split("\n");
        equal(lines.length, 2, r.stderr);
        equal(lines[0], "! Unknown environment variable PM_PROT is ignored; did you mean PM_PORT?");
        match(
          lines[1]!,
          /^Invalid configuration: Unknown configuration key "admin_pasword" \(from file .*typo\.yml line 1\): did you mean admin_password\? A misspelled secret would leave admin_password unset, so the server does not start/,
        );
        ok(!r.stderr.includes("correct-horse"), "the value is never shown");
      },
    );

    await t.step("a file that does not parse: only the parse error, no unrelated warnings", async () => {
      await Deno.writeTextFile(`${dir}/broken.yml`, "port: [1\n");
      const r = await run(dir, ["check-config", "--config", "broken.yml"], { PM_PROFILE: "Staging" });
      equal(r.code, 3);
      match(r.stderr.trim(), /^Invalid configuration: cannot parse broken\.yml line \d+ column \d+: [^\n]+$/);
    });

    await t.step("the normal output masks secrets and names their source", async () => {
      const secret = "s3cret-value-that-must-not-leak";
      await Deno.writeTextFile(`${dir}/ok.yml`, "port: 23456\n");
      const r = await run(dir, ["check-config", "--config", "ok.yml"], { PM_SERVICE_SECRET_KEY: secret });
      equal(r.code, 0, r.stderr);
      ok(!r.stdout.includes(secret) && !r.stderr.includes(secret), "the secret is never printed");
      match(r.stdout, /^ {2}service_secret_key +=\s+\*\*\*\* +\(env PM_SERVICE_SECRET_KEY\)$/m);
      match(r.stdout, /^ {2}port +=\s+23456 +\(file .*ok\.yml\)$/m);
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
