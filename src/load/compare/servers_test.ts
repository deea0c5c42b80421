import { deepEqual, equal, ok, throws } from "node:assert/strict";
import { parse } from "yaml";
import { chorusArgs, type ServerSetup, startTask, tphiraConfig, withFileLimit } from "./servers.ts";

const setup: ServerSetup = {
  port: 23456,
  upstream: "http://127.0.0.1:23457",
  monitors: [900000, 900001],
  maxSessions: 10000,
  databaseUrl: null,
};

Deno.test("startTask reads the start task's permission flags and the bundle's launcher, never -A", () => {
  const task = startTask(Deno.readTextFileSync(new URL("../../../deno.json", import.meta.url)));
  ok(task.flags.includes("--allow-net"));
  ok(!task.flags.includes("-A") && !task.flags.includes("--allow-all"));
  equal(task.script, "build/start.js");
  deepEqual(startTask(JSON.stringify({ tasks: { start: "deno run --allow-net main.ts start" } })), {
    flags: ["--allow-net"],
    script: "main.ts",
  });
  throws(
    () => startTask(JSON.stringify({ tasks: { start: "node x.js" } })),
    /is not "deno run <flags> <script> start"/,
  );
});

Deno.test("chorusArgs start main.ts with the run's port, upstream, monitors and capacity", () => {
  const args = chorusArgs(["--allow-net"], "/repo/main.ts", setup);
  deepEqual(args.slice(0, 4), ["run", "--allow-net", "/repo/main.ts", "start"]);
  const flag = (name: string) => args[args.indexOf(name) + 1];
  equal(flag("--port"), "23456");
  equal(flag("--game-api-endpoint"), "http://127.0.0.1:23457");
  equal(flag("--monitors"), "[900000,900001]");
  equal(flag("--max-sessions"), "10064");
  equal(flag("--log-level"), "warn");
  ok(!args.includes("--database-url"));
  const pg = chorusArgs([], "/m.ts", { ...setup, databaseUrl: "postgres://u@h/chorus_bench" });
  equal(pg[pg.indexOf("--database-url") + 1], "postgres://u@h/chorus_bench");
});

Deno.test("tphiraConfig is YAML tphira-mp reads: port, upstream, monitors, relaying rooms", () => {
  const c = parse(tphiraConfig(setup));
  equal(c.HOST, "127.0.0.1");
  equal(c.PORT, 23456);
  equal(c.PHIRA_API_ENDPOINT, "http://127.0.0.1:23457");
  deepEqual(c.monitors, [900000, 900001]);
  equal(c.REPLAY_ENABLED, true);
  equal(c.HTTP_SERVICE, false);
  equal(c.OUTBOUND_PROXY, false);
});

Deno.test("withFileLimit raises the child's descriptor limit to the hard limit and execs the program", async () => {
  const run = async (program: string, args: string[]) => {
    const w = withFileLimit(program, args);
    const out = await new Deno.Command(w.program, { args: w.args, stdout: "piped" }).output();
    return new TextDecoder().decode(out.stdout).trim();
  };
  const hard = await run("sh", ["-c", "ulimit -Hn"]);
  equal(await run("sh", ["-c", "ulimit -n"]), hard);
  equal(await run("echo", ["a b", "c"]), "a b c");
});
