import { deepEqual, equal, ok } from "node:assert/strict";
import { SqliteDb } from "../db/mod.ts";
import { ManualClock } from "../util/clock.ts";
import { memoryLogHub } from "../util/log.ts";
import { AuditStore, migrateAudit } from "./audit_store.ts";
import { CommandService, type CommandSettings } from "./command_service.ts";
import { argon2Hasher, joinFragments, TEST_ARGON2 } from "./passwords.ts";

const PWD = { pwd1: "red", pwd2: "green", pwd3: "blue" };

async function rig(over: Partial<CommandSettings> = {}) {
  const db = SqliteDb.open(":memory:");
  await migrateAudit(db);
  const hasher = argon2Hasher(TEST_ARGON2);
  const clock = new ManualClock(1_750_000_000_000);
  const audit = new AuditStore(db);
  const service = new CommandService({
    settings: {
      password_hash: await hasher.hash(joinFragments([PWD.pwd1, PWD.pwd2, PWD.pwd3])!),
      commands: {
        serverinfo: ["uname", "-a"],
        fail: ["sh", "-c", "echo partial; echo oops >&2; exit 3"],
        big: ["seq", "1", "200000"],
        slow: ["sleep", "30"],
        daemon: ["sh", "-c", "sleep 30 & echo $!"],
        missing: ["no-such-program-here"],
      },
      allow_custom: false,
      cwd: ".",
      timeout_secs: 5,
      max_output_bytes: 1024,
      max_concurrent: 1,
      audit_retention_days: 30,
      lockout: { max_failures: 3, window_secs: 600, lockout_secs: 900 },
      ...over,
    },
    hasher,
    audit,
    clock,
    log: memoryLogHub().logger(),
  });
  /** Posts form fields like the page does; moves the clock while the request runs (timeouts, drain waits). */
  const post = async (fields: Record<string, string>, ip = "192.0.2.1", tickMs = 0) => {
    const req = Promise.resolve(
      service.app.request("/execute", { method: "POST", body: new URLSearchParams(fields) }, { ip }),
    );
    let settled = false;
    req.finally(() => settled = true);
    for (let i = 0; tickMs > 0 && !settled && i < 400; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      clock.advance(tickMs);
    }
    const res = await req;
    return { status: res.status, body: await res.json() as Record<string, unknown> };
  };
  return { db, audit, clock, service, post };
}

Deno.test("command service runs a whitelisted alias after the three fragments match", async () => {
  const r = await rig();
  try {
    const res = await r.post({ ...PWD, cmd: "serverinfo" });
    equal(res.status, 200);
    equal(res.body.status, "success");
    equal(res.body.command, "serverinfo");
    ok(String(res.body.result).length > 0);
    const [entry] = await r.audit.recent(1);
    deepEqual([entry?.outcome, entry?.alias, entry?.exitCode, entry?.ip], ["ok", "serverinfo", 0, "192.0.2.1"]);
    ok(!JSON.stringify(await r.audit.recent()).includes("green"), "no fragment in the audit log");
  } finally {
    await r.db.close();
  }
});

Deno.test("command service refuses wrong or missing fragments, then locks the address out", async () => {
  const r = await rig();
  try {
    deepEqual(await r.post({ ...PWD, pwd3: "blu", cmd: "serverinfo" }), {
      status: 403,
      body: { status: "error", message: "Authentication failed" },
    });
    // The fragments are checked together and in order: moving a letter between them does not match.
    equal((await r.post({ pwd1: "re", pwd2: "dgreen", pwd3: "blue", cmd: "serverinfo" })).status, 403);
    const third = await r.post({ pwd1: "red", pwd2: "green", cmd: "serverinfo" });
    deepEqual(third, {
      status: 429,
      body: { status: "error", message: "Too many failed attempts; try again in 15 min" },
    });
    equal((await r.post({ ...PWD, cmd: "serverinfo" })).status, 429, "even the right password while locked");
    equal((await r.post({ ...PWD, cmd: "serverinfo" }, "192.0.2.2")).status, 200, "another address");
    r.clock.advance(900_000);
    equal((await r.post({ ...PWD, cmd: "serverinfo" })).status, 200);
    const outcomes = (await r.audit.recent()).map((e) => e.outcome).reverse();
    deepEqual(outcomes, ["refused_auth", "refused_auth", "refused_auth", "refused_locked", "ok", "ok"]);
  } finally {
    await r.db.close();
  }
});

Deno.test("command service refuses unknown aliases and custom commands while they are off", async () => {
  const r = await rig();
  try {
    equal((await r.post({ ...PWD, cmd: "rm" })).body.message, "Invalid command alias");
    equal((await r.post({ ...PWD, cmd: "constructor" })).body.message, "Invalid command alias");
    deepEqual(await r.post({ ...PWD, cmd: "custom", custom_cmd: "uname" }), {
      status: 403,
      body: { status: "error", message: "Custom commands are disabled" },
    });
  } finally {
    await r.db.close();
  }
});

Deno.test("command service custom commands: run without a shell, blacklist and shell syntax refused", async () => {
  const r = await rig({ allow_custom: true });
  try {
    const ok1 = await r.post({ ...PWD, cmd: "custom", custom_cmd: "echo 'a;b' \"c d\"" });
    deepEqual([ok1.status, ok1.body.result, ok1.body.command], [200, "a;b c d\n", "echo 'a;b' \"c d\""]);
    equal((await r.post({ ...PWD, cmd: "custom", custom_cmd: "" })).body.message, "Custom command required");
    const danger = await r.post({ ...PWD, cmd: "custom", custom_cmd: "rm -r -f /" });
    deepEqual([danger.status, danger.body.message], [
      400,
      "Dangerous command blocked: recursive deletion of the root directory is not allowed",
    ]);
    const meta = await r.post({ ...PWD, cmd: "custom", custom_cmd: "bash start.sh && bash check.sh" });
    deepEqual([meta.status, meta.body.message], [
      400,
      'Shell syntax is not supported (commands run without a shell): "&"',
    ]);
    const outcomes = (await r.audit.recent()).map((e) => [e.outcome, e.command]).reverse();
    deepEqual(outcomes.slice(1), [
      ["refused_command", ""],
      ["refused_command", "rm -r -f /"],
      ["refused_command", "bash start.sh && bash check.sh"],
    ]);
  } finally {
    await r.db.close();
  }
});

Deno.test("command service reports failures with stderr, caps output and names a missing program", async () => {
  const r = await rig();
  try {
    const failed = await r.post({ ...PWD, cmd: "fail" });
    deepEqual([failed.status, failed.body.message, failed.body.result], [
      400,
      "Command failed (exit 3): oops\n",
      "partial\n",
    ]);
    const big = await r.post({ ...PWD, cmd: "big" });
    equal(big.status, 200);
    equal(String(big.body.result).length, 1024);
    equal(big.body.truncated, true);
    const missing = await r.post({ ...PWD, cmd: "missing" });
    deepEqual([missing.status, missing.body.message], [400, "Command failed: program not found: no-such-program-here"]);
  } finally {
    await r.db.close();
  }
});

Deno.test("command service times a program out on the clock and does not hang on a daemon's open output", async () => {
  const r = await rig();
  try {
    const slow = await r.post({ ...PWD, cmd: "slow" }, "192.0.2.1", 1000);
    deepEqual([slow.status, slow.body.message], [504, "Command timed out after 5 s"]);
    equal((await r.audit.recent(1))[0]?.outcome, "timeout");
    const daemon = await r.post({ ...PWD, cmd: "daemon" }, "192.0.2.1", 500);
    equal(daemon.status, 200);
    const pid = Number(String(daemon.body.result).trim());
    ok(pid > 0);
    Deno.kill(pid, "SIGKILL");
  } finally {
    await r.db.close();
  }
});

Deno.test("command service refuses everything while no password hash is configured", async () => {
  const r = await rig({ password_hash: "" });
  try {
    deepEqual(await r.post({ ...PWD, cmd: "serverinfo" }), {
      status: 503,
      body: { status: "error", message: "Command service is not configured: set command.password_hash" },
    });
  } finally {
    await r.db.close();
  }
});
