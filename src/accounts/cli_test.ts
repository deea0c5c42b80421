import { deepEqual, equal, match } from "node:assert/strict";
import { parseAccountsArgs, parseHostPort } from "./cli.ts";

const noEnv = () => undefined;

Deno.test("parseHostPort: host, host:port, [v6]:port; bad ports refused", () => {
  deepEqual(parseHostPort("127.0.0.1:12346"), { host: "127.0.0.1", port: 12346 });
  deepEqual(parseHostPort("game.example"), { host: "game.example", port: 12346 });
  deepEqual(parseHostPort("[::1]:7000"), { host: "::1", port: 7000 });
  equal(parseHostPort("host:0"), null);
  equal(parseHostPort("host:70000"), null);
  equal(parseHostPort("a b:1"), null);
  equal(parseHostPort("::1:5"), null);
});

Deno.test("parseAccountsArgs: defaults, every option, and clear usage errors", () => {
  deepEqual(parseAccountsArgs([], noEnv), {
    port: 5000,
    host: "0.0.0.0",
    mpServer: { host: "127.0.0.1", port: 12346 },
    apiBase: "https://phira.5wyxi.com",
    dataDir: "data",
    databaseUrl: undefined,
    allowedOrigins: [],
    cookieSecure: "auto",
    trustProxy: false,
    logLevel: "info",
    logFormat: "text",
  });
  const full = parseAccountsArgs([
    "--port=0",
    "--host",
    "127.0.0.1",
    "--mp-server",
    "10.0.0.5:9000",
    "--api-base",
    "http://127.0.0.1:12380",
    "--data-dir",
    "/srv/acc",
    "--allowed-origin",
    "https://a.example",
    "--allowed-origin",
    "https://b.example:8443",
    "--cookie-secure",
    "always",
    "--trust-proxy",
    "--log-level",
    "debug",
    "--log-format",
    "json",
  ], (n) => n === "ACCOUNTS_DATABASE_URL" ? "postgres://db/acc" : undefined);
  equal(typeof full, "object");
  const o = full as Exclude<typeof full, string | null>;
  deepEqual([o.port, o.mpServer.port, o.allowedOrigins.length, o.cookieSecure, o.trustProxy, o.databaseUrl], [
    0,
    9000,
    2,
    "always",
    true,
    "postgres://db/acc",
  ]);
  equal(parseAccountsArgs(["--help"], noEnv), null);
  equal(parseAccountsArgs(["-h"], noEnv), null);
  for (
    const [args, re] of [
      [["--port", "x"], /--port/],
      [["--port", "65536"], /--port/],
      [["--mp-server", "a:b"], /--mp-server/],
      [["--api-base", "ftp://x"], /--api-base/],
      [["--allowed-origin", "https://a.example/"], /--allowed-origin/],
      [["--cookie-secure", "maybe"], /--cookie-secure/],
      [["--log-level", "loud"], /--log-level/],
      [["--frobnicate"], /frobnicate/],
      [["stray"], /stray|positional/i],
    ] as const
  ) {
    const out = parseAccountsArgs([...args], noEnv);
    equal(typeof out, "string", args.join(" "));
    match(out as string, re);
  }
});
