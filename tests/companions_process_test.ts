/**
 * `deno task companions` as users run it: the task's own permission flags
 * (read from deno.json, not `-A`), a configuration file, stdin at end of
 * file as under a service manager. Every service answers on its port, the
 * site routes, the room service follows a log written after start, the
 * command service runs an allowed program and is refused one the task does
 * not allow, SIGHUP does not stop it, SIGTERM stops it cleanly.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { argon2Hasher, joinFragments, TEST_ARGON2 } from "../src/companions/passwords.ts";
import { denoTasks, taskCommand } from "../src/util/deno_tasks.ts";
import { freePort, watchOutput } from "./support/child_server.ts";
import { eventually } from "./support/companions.ts";

const ROOT = new URL("..", import.meta.url).pathname;

/** The task's command line after `deno`, split into arguments. */
async function taskArgs(): Promise<string[]> {
  const tasks = denoTasks(await Deno.readTextFile(`${ROOT}deno.json`));
  const [program, ...args] = taskCommand(tasks, "companions").split(/\s+/);
  equal(program, "deno");
  ok(!args.includes("-A") && !args.includes("--allow-all"), "the task must not grant everything");
  return args;
}

Deno.test("deno task companions: every service on its port, the site routes, least permissions, clean stop", async () => {
  const dir = await Deno.makeTempDir({ prefix: "chorus-companions-proc-" });
  const hasher = argon2Hasher(TEST_ARGON2);
  const ports = {
    site: freePort(),
    user_manager: freePort(),
    room: freePort(),
    api: freePort(),
    command: freePort(),
    file: freePort(),
  };
  const fragments = ["alpha-part", "bravo-part", "charlie-part"];
  await Deno.writeTextFile(
    `${dir}/companions.yml`,
    [
      `data_dir: ${dir}/data`,
      `site: { port: ${ports.site} }`,
      `user_manager: { port: ${ports.user_manager}, game_server_url: null, refresh_interval_secs: 0 }`,
      `room: { port: ${ports.room}, log_path: ${dir}/server.log, poll_interval_ms: 50 }`,
      `api: { port: ${ports.api}, url: "http://127.0.0.1:${freePort()}/api/rooms/info" }`,
      `command:`,
      `  port: ${ports.command}`,
      `  password_hash: "${await hasher.hash(joinFragments(fragments)!)}"`,
      `  commands: { serverinfo: [uname, -s], clock: [date] }`,
      `file: { port: ${ports.file} }`,
    ].join("\n"),
  );
  const child = new Deno.Command(Deno.execPath(), {
    args: [...await taskArgs(), "--config", `${dir}/companions.yml`],
    cwd: ROOT,
    env: { NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const out = watchOutput(child);
  try {
    await Promise.race([
      out.waitFor(/site ready: http:\/\/127\.0\.0\.1:\d+\//),
      out.done.then(() => {
        throw new Error(`companions did not start:\n${out.lines.join("\n")}`);
      }),
    ]);
    const url = (name: keyof typeof ports, path: string) => `http://127.0.0.1:${ports[name]}${path}`;
    const json = async (u: string, init?: RequestInit) => {
      const res = await fetch(u, init);
      return { status: res.status, body: await res.json() };
    };

    // Each service on its own port, bound to loopback.
    equal((await json(url("room", "/health"))).body.status, "ok");
    deepEqual((await json(url("user_manager", "/users/total"))).body, { status: "success", total_users: 0 });
    deepEqual((await json(url("api", "/users"))).body, { total_online_users: 0 });
    equal((await fetch(url("file", "/api"))).status, 404, "no user_info.json yet");
    const page = await fetch(url("site", "/"));
    ok((await page.text()).includes("<title>Chorus"));
    for (const line of out.lines.filter((l) => l.includes("companion service listening"))) {
      ok(line.includes("address=127.0.0.1"), line);
    }

    // The room service follows a log that appears after start.
    await Deno.writeTextFile(
      `${dir}/server.log`,
      [
        "2026-01-01T00:00:00.000Z INFO  room created room=live user=100 name=Alice host=100 state=SelectingChart cycle=false lock=false",
        "2026-01-01T00:00:01.000Z INFO  user joined room room=live user=200 name=Bob",
        "",
      ].join("\n"),
    );
    await eventually(async () => ((await json(url("site", "/roomsjson"))).body as unknown[]).length === 1, "the room");
    deepEqual((await json(url("site", "/usertotal"))).body, { total_users: 2, example_usernames: ["Alice", "Bob"] });
    await eventually(async () => (await fetch(url("file", "/api")).then((r) => r.status)) === 200, "user_info.json");

    // The command service: an allowed program runs; one outside --allow-run is refused by Deno, not run.
    const form = (cmd: string) =>
      new URLSearchParams({ pwd1: fragments[0]!, pwd2: fragments[1]!, pwd3: fragments[2]!, cmd });
    const info = await json(url("site", "/postadmin/execute"), { method: "POST", body: form("serverinfo") });
    deepEqual([info.status, info.body.result], [200, "Linux\n"]);
    const refused = await json(url("command", "/execute"), { method: "POST", body: form("clock") });
    deepEqual([refused.status, refused.body.message], [
      400,
      "Command failed: this process may not run date (grant it with --allow-run=date or use an allowed program)",
    ]);

    // SIGHUP is not a reason to stop; SIGTERM is, cleanly.
    child.kill("SIGHUP");
    await out.waitFor(/SIGHUP: still running/);
    equal((await json(url("room", "/health"))).status, 200);
    child.kill("SIGTERM");
    const status = await child.status;
    await out.done;
    equal(status.code, 0, out.lines.join("\n"));
    ok(out.lines.some((l) => l.includes("companions stopped")));
    for (const secret of fragments) ok(!out.lines.some((l) => l.includes(secret)), "no secret in the log");
  } finally {
    try {
      child.kill("SIGKILL");
    } catch {
      // Already stopped.
    }
    await child.status;
    await out.done;
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("deno task companions: a bad configuration is refused with the key and exit code 3", async () => {
  const dir = await Deno.makeTempDir({ prefix: "chorus-companions-proc-" });
  try {
    await Deno.writeTextFile(
      `${dir}/bad.yml`,
      "command:\n  password_hash: plaintext-password\nsite: { port: 99999 }\n",
    );
    const res = await new Deno.Command(Deno.execPath(), {
      args: [...await taskArgs(), "--config", `${dir}/bad.yml`],
      cwd: ROOT,
      env: { NO_COLOR: "1" },
      stdin: "null",
    }).output();
    equal(res.code, 3);
    const err = new TextDecoder().decode(res.stderr);
    ok(err.includes("command.password_hash: expected an Argon2id hash"), err);
    ok(err.includes("site.port: expected an integer between 0 and 65535"), err);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
