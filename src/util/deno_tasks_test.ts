import { deepEqual, equal } from "node:assert/strict";
import { denoTasks, taskCommand, taskDependencies } from "./deno_tasks.ts";

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
