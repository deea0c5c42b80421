/**
 * Child processes of a load run (the spawned server, the development
 * upstream): started with the current `deno`, output kept as a short tail for
 * error messages, ready once their port accepts connections, stopped with
 * SIGTERM and, if they linger, SIGKILL.
 *
 * @module
 */

/** A started child process. */
export interface Child {
  readonly pid: number;
  /** The last lines it printed (stdout and stderr). */
  readonly tail: string[];
  /** Resolves with its exit status. */
  readonly status: Promise<Deno.CommandStatus>;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once it exited and its output is read. */
  stop(graceMs?: number): Promise<Deno.CommandStatus>;
  /** SIGKILL now. */
  kill(): void;
}

const TAIL_LINES = 40;

/** Starts `deno <args>` in `cwd`, with `env` added to the environment. */
export function spawnDeno(args: string[], cwd: string, env: Record<string, string> = {}): Child {
  return spawnProgram(Deno.execPath(), args, cwd, env);
}

/** Starts `program <args>` in `cwd`, with `env` added to the environment. */
export function spawnProgram(program: string, args: string[], cwd: string, env: Record<string, string> = {}): Child {
  const child = new Deno.Command(program, {
    args,
    cwd,
    env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const tail: string[] = [];
  const collect = async (stream: ReadableStream<Uint8Array>) => {
    for await (const line of stream.pipeThrough(new TextDecoderStream()).pipeThrough(lineSplitter())) {
      tail.push(line);
      if (tail.length > TAIL_LINES) tail.shift();
    }
  };
  const output = Promise.all([collect(child.stdout), collect(child.stderr)]);
  let exited = false;
  const status = child.status.then((s) => {
    exited = true;
    return s;
  });
  const signal = (sig: Deno.Signal) => {
    try {
      if (!exited) child.kill(sig);
    } catch {
      // Already gone.
    }
  };
  return {
    pid: child.pid,
    tail,
    status,
    async stop(graceMs = 15_000) {
      signal("SIGTERM");
      const timer = setTimeout(() => signal("SIGKILL"), graceMs);
      const s = await status;
      clearTimeout(timer);
      await output;
      return s;
    },
    kill: () => signal("SIGKILL"),
  };
}

/** Resolves once 127.0.0.1:`port` accepts a connection; rejects if the child exits or after `limitMs`. */
export async function waitListening(child: Child, port: number, limitMs = 30_000): Promise<void> {
  let exited = false;
  void child.status.then(() => (exited = true));
  const until = performance.now() + limitMs;
  while (performance.now() < until) {
    if (exited) throw new Error(`the process exited:\n${child.tail.join("\n")}`);
    try {
      const conn = await Deno.connect({ hostname: "127.0.0.1", port });
      conn.close();
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  throw new Error(`nothing listens on port ${port} after ${limitMs} ms:\n${child.tail.join("\n")}`);
}

function lineSplitter(): TransformStream<string, string> {
  let rest = "";
  return new TransformStream({
    transform(chunk, controller) {
      const parts = (rest + chunk).split("\n");
      rest = parts.pop()!;
      for (const p of parts) controller.enqueue(p);
    },
    flush(controller) {
      if (rest) controller.enqueue(rest);
    },
  });
}
