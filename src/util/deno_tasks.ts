/**
 * The tasks of `deno.json` as `deno task` reads them: a task is a command
 * line, or an object whose `command` runs after its `dependencies`. The
 * server roles run `deno task cache` first (issue 15: a process that parses
 * its own module graph keeps the parsers' memory, ~50 MiB, for its whole
 * life), so every reader of a task's flags goes through here.
 *
 * @module
 */

/** One entry of `tasks` in `deno.json`. */
export type DenoTask = string | {
  readonly command?: string;
  readonly dependencies?: readonly string[];
  readonly description?: string;
};

/** The `tasks` of `deno.json` text (empty when there are none). */
export function denoTasks(denoJson: string): Record<string, DenoTask> {
  const tasks = (JSON.parse(denoJson) as { tasks?: Record<string, DenoTask> }).tasks;
  return tasks ?? {};
}

/** The command line `deno task <name>` runs last: the string, or the object's `command` ("" when absent). */
export function taskCommand(tasks: Record<string, DenoTask>, name: string): string {
  const task = tasks[name];
  if (task === undefined) return "";
  return (typeof task === "string" ? task : task.command ?? "").trim();
}

/** The tasks `deno task <name>` runs before its command. */
export function taskDependencies(tasks: Record<string, DenoTask>, name: string): readonly string[] {
  const task = tasks[name];
  return typeof task === "object" ? task.dependencies ?? [] : [];
}

/** What a task of the form `deno run <flags> <script> <role>` runs. */
export interface RunTask {
  /** The flags between `run` and the script. */
  readonly flags: string[];
  /** The script, relative to `deno.json` (`main.ts`, or the bundle's `build/start.js` for `start`). */
  readonly script: string;
}

/**
 * Reads a task that runs a role of the program (`deno run <flags> <script>
 * <role>`); throws when it has another shape or grants every permission,
 * since its readers exist to run the program as users do.
 */
export function runTask(tasks: Record<string, DenoTask>, name: string, role = name): RunTask {
  const command = taskCommand(tasks, name);
  const words = command.split(/\s+/);
  const at = words.findIndex((w, i) => i >= 2 && !w.startsWith("-"));
  if (words[0] !== "deno" || words[1] !== "run" || at < 0 || !/\.(ts|js)$/.test(words[at]!) || words[at + 1] !== role) {
    throw new Error(`deno.json task "${name}" is not "deno run <flags> <script> ${role}": ${command}`);
  }
  const flags = words.slice(2, at);
  if (flags.some((f) => f === "-A" || f === "--allow-all")) {
    throw new Error(`deno.json task "${name}" grants all permissions; it would not run as users run it`);
  }
  return { flags, script: words[at]! };
}
