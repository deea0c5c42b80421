/**
 * Outbound requests of plugins (spec 3 §4.6, §8): `http-request` needs the
 * `http` capability; loopback, private, link-local (cloud metadata) and
 * local names are refused unless `allow_private_network`; the response is
 * capped at `max_http_response_bytes` and the request bounded by
 * `http_timeout_secs` — while the plugin waits on it, its own call budget
 * does not run out.
 */
import { deepEqual, equal, ok } from "node:assert/strict";
import { startPluginHarness } from "./support/plugins.ts";

async function fetchVia(p: Awaited<ReturnType<typeof startPluginHarness>>, id: string, url: string) {
  return (await p.run(`plugin call ${id} fetch ${JSON.stringify(url)}`)).lines;
}

Deno.test("plugins: http-request needs the capability and refuses internal addresses", async () => {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => new Response("hello"));
  const port = server.addr.port;
  const p = await startPluginHarness({
    plugins: [
      { id: "probe", source: "test/probe" },
      { id: "web", source: "test/probe", capabilities: ["http", "plugin.register"] },
    ],
  });
  try {
    deepEqual(await fetchVia(p, "probe", `http://127.0.0.1:${port}/`), [
      'error: plugin probe lacks the capability "http" needed by phira-host.httpRequest (grant it in probe.capabilities.json)',
    ]);
    for (
      const [url, reason] of [
        [`http://127.0.0.1:${port}/`, `127.0.0.1 is an internal address`],
        [`http://localhost:${port}/`, `localhost is the local machine`],
        [`http://[::1]:${port}/`, `::1 is an internal address`],
        [`http://[::ffff:127.0.0.1]:${port}/`, `::ffff:7f00:1 is an internal address`],
        ["http://169.254.169.254/latest/meta-data/", "169.254.169.254 is an internal address"],
        ["http://10.1.2.3/", "10.1.2.3 is an internal address"],
        ["http://metadata.google.internal/", "metadata.google.internal is a cloud metadata service"],
        ["file:///etc/passwd", "only http and https URLs are allowed, not file:"],
      ] as const
    ) {
      const lines = await fetchVia(p, "web", url);
      ok(lines.length === 1 && lines[0]!.includes(reason), `${url}: ${lines.join(" ")}`);
    }
    equal(p.system.host.info("web")!.state, "Enabled");
  } finally {
    await p.close();
    await server.shutdown();
  }
});

Deno.test("plugins: with allow_private_network a local request works, capped in size and bounded in time", async () => {
  const big = new Uint8Array(3 * 1024 * 1024);
  const hung: (() => void)[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
    const path = new URL(req.url).pathname;
    if (path === "/big") return new Response(big);
    if (path === "/hang") return new Promise<Response>((resolve) => hung.push(() => resolve(new Response("late"))));
    return new Response("hello", { status: 201 });
  });
  const port = server.addr.port;
  const p = await startPluginHarness({
    plugins: [{ id: "web", source: "test/probe", capabilities: ["http", "plugin.register"] }],
    limits: { allow_private_network: true },
  });
  try {
    deepEqual(await fetchVia(p, "web", `http://127.0.0.1:${port}/`), ["201"]);
    deepEqual(await fetchVia(p, "web", `http://127.0.0.1:${port}/big`), [
      "error: the response is larger than max_http_response_bytes (2097152)",
    ]);
    // The plugin waits on the host: 10 s of http_timeout_secs pass, its 2 s call budget does not.
    const pending = fetchVia(p, "web", `http://127.0.0.1:${port}/hang`);
    while (hung.length === 0) await new Promise((r) => setTimeout(r, 5));
    await p.ch.h.advance(10_000);
    deepEqual(await pending, ["error: no complete answer within http_timeout_secs (10 s)"]);
    equal(p.system.host.info("web")!.state, "Enabled");
  } finally {
    for (const release of hung) release();
    await p.close();
    await server.shutdown();
  }
});
