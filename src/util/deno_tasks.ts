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
