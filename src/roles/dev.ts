/**
 * `chorus dev`: the development upstream on 127.0.0.1 (test accounts and
 * charts) and a game server that uses it. Its own option is
 * `--dev-upstream-port <n>` (default 12380, 0 = any free port); it
 * overrides `game_api_endpoint`, and says so when the user set one.
 *
 * @module
 */

import { DEFAULT_DEV_UPSTREAM_PORT, DEV_UPSTREAM_PORT_OPTION, takeDevUpstreamPort } from "./dev_option.ts";
import { EXIT, print } from "./role.ts";
import type { OwnOptions, ServerRole } from "./server_role.ts";

/** The `dev` role; its option value is the upstream port (null = default). */
export const dev: ServerRole<number | null> = {
  name: "dev",
  summary: "run the development upstream on 127.0.0.1 and a server that uses it (overrides\n" +
    "                 game_api_endpoint); --dev-upstream-port <n> picks its port (default 12380, 0 = any free)",
  usage: [
    "Runs the development upstream (test accounts and charts) on 127.0.0.1 and a game server that uses it;",
    "game_api_endpoint is overridden (a warning says so when you set one). Tokens are printed at start.",
    "",
    "Options:",
    `  ${DEV_UPSTREAM_PORT_OPTION} <n>   port of the development upstream (default ${DEFAULT_DEV_UPSTREAM_PORT}, 0 = any free)`,
    "  --tui, --no-cli            as for start",
  ],
  takeOptions(rest): OwnOptions<number | null> {
    const taken = takeDevUpstreamPort(rest);
    if (!taken.ok) return taken;
    return {
      ok: true,
      rest: taken.rest,
      given: taken.port === null ? null : DEV_UPSTREAM_PORT_OPTION,
      value: taken.port,
    };
  },
  async run(run, port) {
    // Loaded on demand: the other roles never need the development upstream.
    const [{ serveDevApi }, { devEndpointNotice, devGuide, withDevUpstream }] = await Promise.all([
      import("../upstream/dev_serve.ts"),
      import("../upstream/dev_command.ts"),
    ]);
    let upstream;
    const upstreamPort = port ?? DEFAULT_DEV_UPSTREAM_PORT;
    try {
      upstream = serveDevApi({ port: upstreamPort, hostname: "127.0.0.1" });
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      console.error(`Cannot start the development upstream on 127.0.0.1:${upstreamPort}: ${reason}`);
      return EXIT.runtime;
    }
    print(devGuide(upstream.url));
    // dev always plays against the development upstream; a game_api_endpoint the user set is overridden, loudly.
    // startApp applies the override to every re-read too, so `config reload` does not report it as a change.
    const notice = devEndpointNotice(run.loaded, upstream.url);
    try {
      const { serve } = await import("./serve.ts");
      return await serve(run, {
        announce: (log) => {
          log.info(notice.info);
          if (notice.warning) log.warn(notice.warning);
        },
        adjust: (l) => withDevUpstream(l, upstream.url),
      });
    } finally {
      await upstream.close();
    }
  },
};
