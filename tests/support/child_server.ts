/**
 * The server as a child process, for the tests that need a real process
 * (signals, SIGKILL, stdin at end of file): loopback only, a fresh port
 * below the ephemeral range, the caller's data_dir and upstream. The
 * server runs exactly as users run it: the script and permission flags of
 * the deno task (read from `deno.json`, so they cannot drift), never `-A`,
 * or through `deno task start` itself.
 */
export { freePort } from "../../src/load/target.ts";
import { denoTasks, runTask } from "../../src/util/deno_tasks.ts";

const ROOT = new URL("../..", import.meta.url).pathname;

/** The tasks of `deno.json` that run a role of the program. */
export type MainTask = "start" | "dev" | "check-config" | "legacy";

/**
 * `deno run` arguments that run `<script> <task> <args>` as `deno task
 * <task>` does: the task's permission flags (read from `deno.json`, so they
 * cannot drift; never `-A`) and its script: `main.ts`, or for `start` the
 * bundle `deno task cache` built (`build/start.js`; the test task runs the
 * cache task first).
 */
export function mainArgs(task: MainTask, ...args: string[]): string[] {
  const { flags, script } = runTask(denoTasks(Deno.readTextFileSync(`${ROOT}deno.json`)), task);
  return ["run", ...flags, `${ROOT}${script}`, task, ...args];
}

/** {@link mainArgs} with another script in the task's place (a bundle built elsewhere with `deno task cache --out`). */
function scriptArgs(task: MainTask, script: string): string[] {
  const { flags } = runTask(denoTasks(Deno.readTextFileSync(`${ROOT}deno.json`)), task);
  return ["run", ...flags, script, task];
}

/** Options of {@link spawnServer}. */
export interface ChildServerOptions {
  readonly port: number;
  readonly dataDir: string;
  readonly upstream: string;
  /** Further flags, after the defaults (a later flag wins). */
  readonly flags?: readonly string[];
  /** Subcommand of `main.ts` (default `start`). */
  readonly command?: "start" | "dev" | "legacy";
  /** Environment variables added to the child's (`PM_ADMIN_TOKEN`, …). */
  readonly env?: Readonly<Record<string, string>>;
  /** Run it as `deno task <command> -- <flags>` instead of `deno run <task flags> main.ts <command> <flags>`. */
  readonly viaTask?: boolean;
  /** Another launcher run with the task's flags (default: the task's own script). */
  readonly script?: string;
  /** Working directory (default: the repository root). */
  readonly cwd?: string;
}

/** A running child server and its output. */
export interface ChildServer {
  readonly child: Deno.ChildProcess;
  /** Every line it printed so far (stdout and stderr). */
  readonly lines: string[];
  /** Resolves when it logs that the game server listens; rejects if it exits first. */
  readonly ready: Promise<void>;
  /** Resolves when a line matching `re` has been printed. */
  waitFor(re: RegExp): Promise<void>;
  /** Resolves when both output streams have ended. */
  readonly done: Promise<void>;
}

/** Starts `main.ts start` with stdin at end of file, as under a service manager. */
export function spawnServer(o: ChildServerOptions): ChildServer {
  const command = o.command ?? "start";
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      ...(o.viaTask ? ["task", command, "--"] : o.script ? scriptArgs(command, o.script) : mainArgs(command)),
      "--port",
      String(o.port),
      "--http-port",
      "0",
      "--bind-address",
      "127.0.0.1",
      "--data-dir",
      o.dataDir,
      "--game-api-endpoint",
      o.upstream,
      "--log-level",
      "info",
      ...(o.flags ?? []),
    ],
    cwd: o.cwd ?? ROOT,
    env: { NO_COLOR: "1", ...o.env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const { lines, waitFor, done } = watchOutput(child);
  // The start-up summary's last line comes once start-up is complete (after HTTP and OpenUDS are up).
  const ready = Promise.race([
    waitFor(/ configuration: .*; stop with /),
    done.then(() => {
      if (!lines.some((l) => /game server listening/.test(l))) {
        throw new Error(`server did not start:\n${lines.join("\n")}`);
      }
    }),
  ]);
  return { child, lines, ready, waitFor, done };
}

/** A child's output lines (stdout and stderr), drained to the end so it never blocks on a full pipe. */
export interface ChildOutput {
  readonly lines: string[];
  /** Resolves when a line matching `re` has been printed. */
  waitFor(re: RegExp): Promise<void>;
  /** Resolves when both streams have ended. */
  readonly done: Promise<void>;
}

/** Collects the lines of a child spawned with piped stdout and stderr. */
export function watchOutput(child: Deno.ChildProcess): ChildOutput {
  const lines: string[] = [];
  const waiters: { re: RegExp; resolve: () => void }[] = [];
  const pump = async (stream: ReadableStream<Uint8Array>) => {
    let buf = "";
    try {
      for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
        buf += chunk;
        const parts = buf.split("\n");
        buf = parts.pop()!;
        for (const line of parts) {
          lines.push(line);
          for (const w of [...waiters]) {
            if (w.re.test(line)) {
              waiters.splice(waiters.indexOf(w), 1);
              w.resolve();
            }
          }
        }
      }
    } catch {
      // Killed mid-read.
    }
    if (buf) lines.push(buf);
  };
  const done = Promise.all([pump(child.stdout), pump(child.stderr)]).then(() => {});
  const waitFor = (re: RegExp): Promise<void> => {
    if (lines.some((l) => re.test(l))) return Promise.resolve();
    return new Promise((resolve) => waiters.push({ re, resolve }));
  };
  return { lines, waitFor, done };
}
