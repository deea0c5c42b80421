import { deepEqual, equal, throws } from "node:assert/strict";
import { denoTasks, runTask, taskCommand, taskDependencies } from "./deno_tasks.ts";

Deno.test("deno tasks: string and object forms give their command line and dependencies", () => {
  const tasks = denoTasks(JSON.stringify({
    tasks: {
      plain: "  deno run main.ts plain ",
      object: { command: "deno run main.ts object", dependencies: ["cache"] },
      bare: { dependencies: ["a", "b"] },
    },
  }));
  equal(taskCommand(tasks, "plain"), "deno run main.ts plain");
  equal(taskCommand(tasks, "object"), "deno run main.ts object");
  equal(taskCommand(tasks, "bare"), "");
  equal(taskCommand(tasks, "missing"), "");
  deepEqual(taskDependencies(tasks, "plain"), []);
  deepEqual(taskDependencies(tasks, "object"), ["cache"]);
  deepEqual(taskDependencies(tasks, "missing"), []);
  deepEqual(denoTasks("{}"), {});
});

Deno.test("runTask reads a role's flags and script (main.ts or the bundle's launcher); -A and other shapes are refused", () => {
  const tasks = {
    start: { command: "deno run --v8-flags=--x --allow-net build/start.js start", dependencies: ["cache"] },
    dev: "deno run --allow-read main.ts dev",
    all: "deno run -A main.ts all",
    other: "deno task x",
  };
  deepEqual(runTask(tasks, "start"), { flags: ["--v8-flags=--x", "--allow-net"], script: "build/start.js" });
  deepEqual(runTask(tasks, "dev"), { flags: ["--allow-read"], script: "main.ts" });
  throws(() => runTask(tasks, "all"), /grants all permissions/);
  throws(() => runTask(tasks, "other"), /is not "deno run <flags> <script> other"/);
  throws(() => runTask(tasks, "dev", "start"), /is not/);
});
