/**
 * The single binary (issue 22). `deno compile` writes the program onto
 * Deno's standalone runtime (`denort`), which cannot be downloaded on
 * machines without network access:
 *
 * - what the binary embeds is checked everywhere, by compiling onto the
 *   Deno executable itself as a stand-in runtime (the result does not run,
 *   but `deno compile` lists the embedded files exactly as it would);
 * - the binary itself is built with `deno task compile` and run
 *   (`--version`, `<role> --help`, a server that answers `/health/live`)
 *   wherever a runtime is available (`DENORT_BIN`, or Deno's cache), and is
 *   reported as skipped with the reason otherwise.
 */
import { equal, match, ok } from "node:assert/strict";
import { availableRuntime, compileArgs, denoDirs } from "../deploy/compile.ts";
import { freePort, watchOutput } from "./support/child_server.ts";

const ROOT = new URL("..", import.meta.url).pathname;
const dirs = await denoDirs();

Deno.test("the binary embeds the server's packages, pages and workers, and no test-only package", async () => {
  const dir = await Deno.makeTempDir({ prefix: "chorus-compile-" });
  try {
    const out = await new Deno.Command(Deno.execPath(), {
      args: compileArgs(dirs, `${dir}/chorus`, ["--no-check"]),
      cwd: ROOT,
      env: { DENORT_BIN: Deno.execPath(), NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    // NO_COLOR: plain text to search.
    const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
    ok(out.success, text);
    for (
      const embedded of [
        "@electric-sql/pglite/",
        "hono/",
        "prom-client/",
        "@sentry",
        "zod/",
        "static/*",
        "fengari/",
        "plugins/*",
      ]
    ) {
      ok(text.includes(embedded), `${embedded} is embedded`);
    }
    // PGlite converts old data directories, in a worker (`pglite_convert.ts`).
    for (
      const worker of ["pglite_convert_worker.ts", "password_worker.ts", "sqlite_thread_worker.ts", "io_worker.ts"]
    ) {
      ok(text.includes(worker), `${worker} is embedded`);
    }
    for (const testOnly of ["playwright-core", "parse-prometheus-text-format", "shallow-equal"]) {
      ok(!text.includes(testOnly), `${testOnly} is not embedded`);
    }
    const files = /Files: ([\d.]+)MB/.exec(text);
    ok(files && Number(files[1]) < 60, `embedded files: ${files?.[1]} MB`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

const runtime = availableRuntime(dirs);
const why = Deno.env.get("DENORT_BIN")
  ? `DENORT_BIN=${Deno.env.get("DENORT_BIN")} is not a file`
  : "no denort runtime: set DENORT_BIN or let deno compile download it once";

Deno.test({
  name: runtime ? "deno task compile builds dist/chorus, which runs every role" : `dist/chorus (skipped: ${why})`,
  ignore: !runtime,
  fn: async () => {
    const built = await new Deno.Command(Deno.execPath(), {
      args: ["task", "compile"],
      cwd: ROOT,
      stdout: "piped",
      stderr: "piped",
    })
      .output();
    ok(built.success, new TextDecoder().decode(built.stderr));
    const bin = `${ROOT}dist/chorus`;
    const run = async (...args: string[]) => {
      const o = await new Deno.Command(bin, { args, stdout: "piped", stderr: "piped" }).output();
      return { code: o.code, out: new TextDecoder().decode(o.stdout) };
    };
    const version = await run("--version");
    equal(version.code, 0);
    match(version.out, /^chorus \d+\.\d+\.\d+ \(binary; deno /);
    for (const role of ["start", "dev", "check-config", "legacy", "load", "accounts", "companions"]) {
      const help = await run(role, "--help");
      equal(help.code, 0, role);
      ok(help.out.includes("Usage: chorus"), role);
    }
    // The server itself, on loopback, with the embedded database and pages.
    const data = await Deno.makeTempDir({ prefix: "chorus-bin-" });
    const http = freePort();
    const child = new Deno.Command(bin, {
      args: ["start", "--no-cli", "--port", String(freePort()), "--http-port", String(http), "--data-dir", data],
      env: { PM_BIND_ADDRESS: "127.0.0.1", PM_HTTP_BIND_ADDRESS: "127.0.0.1" },
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const output = watchOutput(child);
    try {
      await output.waitFor(/HTTP listening/);
      const ready = await fetch(`http://127.0.0.1:${http}/health/ready`);
      await ready.body?.cancel();
      equal(ready.status, 200, "the binary serves /health/ready");
      const page = await fetch(`http://127.0.0.1:${http}/admin/`);
      await page.body?.cancel();
      ok(page.status < 500, `the admin page is embedded (HTTP ${page.status})`);
    } finally {
      child.kill("SIGTERM");
      const status = await child.status;
      await output.done;
      await Deno.remove(data, { recursive: true });
      equal(status.code, 0, "graceful stop on SIGTERM");
    }
  },
});
