/**
 * `chorus proxy` (`deno task proxy`): parses the options, refuses to start
 * with a one-line reason when they are wrong (exit 2) or unsafe (exit 3),
 * runs the proxy until SIGINT, SIGTERM or SIGHUP and shuts it down
 * gracefully.
 * Unattended: stdin is never read; logs go to stdout.
 *
 * @module
 */

import { type ParsedProxyArgs, parseProxyArgs, PROXY_USAGE } from "./options.ts";
import { type ProxyDeps, startProxy } from "./service.ts";

/** Reads an environment variable; undefined when unset or not permitted. */
function readEnv(name: string): string | undefined {
  try {
    return Deno.env.get(name);
  } catch {
    return undefined;
  }
}

/** Runs the proxy role with `args` (after `proxy`); resolves with the exit code. */
export async function runProxy(args: string[], deps: ProxyDeps = {}): Promise<number> {
  const parsed: ParsedProxyArgs = parseProxyArgs(args, readEnv);
  if (parsed.kind === "help") {
    console.log(PROXY_USAGE);
    return 0;
  }
  if (parsed.kind === "error") {
    console.error(parsed.message);
    return parsed.code;
  }
  // The secret stays in this process only: children (none today) do not inherit it.
  for (const name of ["SERVICE_SECRET_KEY", "HSN_SECRET_KEY"]) {
    try {
      Deno.env.delete(name);
    } catch {
      // Not permitted: nothing to hide then.
    }
  }
  let service;
  try {
    service = await startProxy(parsed.options, deps);
  } catch (error) {
    console.error(`Cannot start the monitor proxy: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
  const { promise: signalled, resolve } = Promise.withResolvers<void>();
  const signals: Deno.Signal[] = ["SIGINT", "SIGTERM", "SIGHUP"];
  const handlers = signals.map((signal) => {
    const handler = () => resolve();
    Deno.addSignalListener(signal, handler);
    return [signal, handler] as const;
  });
  await signalled;
  // A second signal ends the process at once.
  for (const s of signals) Deno.addSignalListener(s, () => Deno.exit(1));
  await service.close();
  for (const [signal, handler] of handlers) Deno.removeSignalListener(signal, handler);
  return 0;
}
