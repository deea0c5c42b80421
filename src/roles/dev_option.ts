/**
 * The `dev` role's own option, `--dev-upstream-port <n>`: every game-server
 * role takes it out of the arguments (to refuse it outside `dev`), so it is
 * parsed here, apart from the development upstream (`src/upstream/dev_*`),
 * which only `dev` loads (issue 15 "Load on demand").
 *
 * @module
 */

/** The option choosing the development upstream's port (`dev` only; not a configuration key). */
export const DEV_UPSTREAM_PORT_OPTION = "--dev-upstream-port";

/** Port of the development upstream when the option is absent. */
export const DEFAULT_DEV_UPSTREAM_PORT = 12380;

/** Result of {@link takeDevUpstreamPort}. */
export type DevUpstreamPortOption =
  | { readonly ok: true; readonly port: number | null; readonly rest: string[] }
  | { readonly ok: false; readonly message: string };

/**
 * Removes `--dev-upstream-port <n>` / `--dev-upstream-port=<n>` from the leftover arguments. `port` is `null` when the
 * option is absent; 0 lets the OS choose. Everything after `--` is positional and left alone.
 */
export function takeDevUpstreamPort(args: readonly string[]): DevUpstreamPortOption {
  const rest: string[] = [];
  let port: number | null = null;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? "";
    if (arg === "--") {
      rest.push(...args.slice(i));
      break;
    }
    let text: string | undefined;
    if (arg === DEV_UPSTREAM_PORT_OPTION) {
      const next = args[i + 1];
      if (next !== undefined && !next.startsWith("-")) text = args[++i];
      else return { ok: false, message: `Cannot use ${DEV_UPSTREAM_PORT_OPTION}: it needs a port number (0-65535)` };
    } else if (arg.startsWith(DEV_UPSTREAM_PORT_OPTION + "=")) {
      text = arg.slice(DEV_UPSTREAM_PORT_OPTION.length + 1);
    } else {
      rest.push(arg);
      continue;
    }
    const value = Number(text);
    if (!/^\d+$/.test(text ?? "") || value > 65535) {
      return { ok: false, message: `Cannot use ${DEV_UPSTREAM_PORT_OPTION} "${text}": expected a port number 0-65535` };
    }
    port = value;
  }
  return { ok: true, port, rest };
}
