/**
 * The development upstream as a process of its own, for load runs: the
 * server's `/me`, `/chart` and `/record` calls then never wait behind the
 * load generator's event loop (which runs thousands of clients).
 *
 * `deno run -A src/load/upstream_child.ts <port>` prints `listening <url>`
 * on stdout once it serves, and stops on SIGTERM or SIGINT.
 *
 * @module
 */

import { serveDevApi } from "../upstream/mod.ts";

if (import.meta.main) {
  const port = Number(Deno.args[0] ?? "0");
  const server = serveDevApi({ port, hostname: "127.0.0.1" });
  console.log(`listening ${server.url}`);
  const stop = async () => {
    await server.close();
    Deno.exit(0);
  };
  Deno.addSignalListener("SIGTERM", stop);
  Deno.addSignalListener("SIGINT", stop);
}
