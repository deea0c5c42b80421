import { deepEqual, equal, ok } from "node:assert/strict";
import { DEFAULT_GAME_API_ENDPOINT } from "../upstream/mod.ts";
import { parseOrigin, parseProxyArgs, parseServerAddress } from "./options.ts";

const SECRET = "a-long-random-secret-0123456789";
const env = (vars: Record<string, string>) => (name: string) => vars[name];

Deno.test("parseProxyArgs: defaults of spec 1 §2.4 with an allowed origin and the secret", () => {
  const parsed = parseProxyArgs(
    ["--allowed-origin", "https://monitor.example.org"],
    env({
      SERVICE_SECRET_KEY: SECRET,
      HOME: "/home/op",
    }),
  );
  equal(parsed.kind, "run");
  if (parsed.kind !== "run") return;
  deepEqual(parsed.options, {
    debug: false,
    host: "0.0.0.0",
    port: 3080,
    mpServer: { hostname: "127.0.0.1", port: 12346 },
    apiBase: DEFAULT_GAME_API_ENDPOINT,
    allowedOrigins: ["https://monitor.example.org"],
    cacheDir: "/home/op/.cache/chorus",
    dataDir: "data/proxy",
    databaseUrl: undefined,
    logLevel: "info",
    secret: SECRET,
  });
});

Deno.test("parseProxyArgs: every option, HSN_SECRET_KEY as the alias, PROXY_DATABASE_URL", () => {
  const parsed = parseProxyArgs([
    "--debug",
    "--port=4000",
    "--host",
    "127.0.0.1",
    "--mp-server",
    "[::1]:7000",
    "--api-base",
    "http://127.0.0.1:12380",
    "--allowed-origin",
    "http://localhost:5173/",
    "--allowed-origin",
    "https://A.example",
    "--cache-dir",
    "/tmp/c",
    "--data-dir",
    "/tmp/d",
    "--log-level",
    "debug",
  ], env({ HSN_SECRET_KEY: "short", PROXY_DATABASE_URL: "postgres://u@h/db", XDG_CACHE_HOME: "/x" }));
  equal(parsed.kind, "run");
  if (parsed.kind !== "run") return;
  const o = parsed.options;
  deepEqual([o.debug, o.port, o.host, o.mpServer, o.apiBase], [
    true,
    4000,
    "127.0.0.1",
    { hostname: "::1", port: 7000 },
    "http://127.0.0.1:12380",
  ]);
  deepEqual(o.allowedOrigins, ["http://localhost:5173", "https://a.example"]);
  deepEqual([o.cacheDir, o.dataDir, o.databaseUrl, o.logLevel, o.secret], [
    "/tmp/c",
    "/tmp/d",
    "postgres://u@h/db",
    "debug",
    "short",
  ]);
});

Deno.test("parseProxyArgs refuses to start with a one-line reason (exit 3)", async (t) => {
  const cases: [string, string[], Record<string, string>, RegExp][] = [
    ["no --allowed-origin outside --debug", [], { SERVICE_SECRET_KEY: SECRET }, /--allowed-origin is required/],
    ["no secret", ["--debug"], {}, /SERVICE_SECRET_KEY is not set \(nor HSN_SECRET_KEY\)/],
    ["an empty secret", ["--debug"], { SERVICE_SECRET_KEY: "", HSN_SECRET_KEY: "" }, /is not set/],
    [
      "a publicly known secret in production",
      ["--allowed-origin", "https://m.example"],
      { SERVICE_SECRET_KEY: "some_random_secret_key_for_debugging" },
      /publicly known/,
    ],
    [
      "a short secret in production",
      ["--allowed-origin", "https://m.example"],
      { SERVICE_SECRET_KEY: "short" },
      /shorter than 16/,
    ],
  ];
  for (const [name, args, vars, message] of cases) {
    await t.step(name, () => {
      const parsed = parseProxyArgs(args, env(vars));
      equal(parsed.kind, "error");
      if (parsed.kind !== "error") return;
      equal(parsed.code, 3);
      ok(message.test(parsed.message), parsed.message);
      equal(parsed.message.includes("\n"), false);
      equal(parsed.message.startsWith("Refusing to start: "), true);
    });
  }
  await t.step("the debug secret is fine with --debug", () => {
    equal(parseProxyArgs(["--debug"], env({ SERVICE_SECRET_KEY: "dev_secret_local" })).kind, "run");
  });
});

Deno.test("parseProxyArgs: usage errors (exit 2) name the option", async (t) => {
  const cases: [string[], RegExp][] = [
    [["--bogus"], /^Unknown option '--bogus' \(see chorus proxy --help\)$/],
    [["--allowed-orgin=x"], /^Unknown option '--allowed-orgin'; did you mean --allowed-origin\?/],
    [["--port", "70000"], /--port: expected a port number/],
    [["--port", "abc"], /--port/],
    [["--mp-server", "a:b:c"], /--mp-server: expected host or host:port/],
    [["--mp-server", "host:0"], /--mp-server: port out of range/],
    [["--api-base", "ftp://x"], /--api-base/],
    [["--allowed-origin", "https://m.example/path"], /--allowed-origin: expected an origin/],
    [["--allowed-origin", "*"], /--allowed-origin/],
    [["--database-url", "mysql://x"], /--database-url/],
    [["--log-level", "loud"], /--log-level/],
    [["stray"], /positional/],
  ];
  for (const [args, message] of cases) {
    await t.step(args.join(" "), () => {
      const parsed = parseProxyArgs(["--debug", ...args], env({ SERVICE_SECRET_KEY: SECRET }));
      equal(parsed.kind, "error");
      if (parsed.kind !== "error") return;
      equal(parsed.code, 2);
      ok(message.test(parsed.message), parsed.message);
    });
  }
  deepEqual(parseProxyArgs(["-h"], env({})), { kind: "help" });
  deepEqual(parseProxyArgs(["--", "--help"], env({})), { kind: "help" }, "deno task passes a leading --");
});

Deno.test("parseServerAddress and parseOrigin", () => {
  deepEqual(parseServerAddress("game.example"), { hostname: "game.example", port: 12346 });
  deepEqual(parseServerAddress("10.0.0.2:9000"), { hostname: "10.0.0.2", port: 9000 });
  deepEqual(parseServerAddress("[2001:db8::1]"), { hostname: "2001:db8::1", port: 12346 });
  equal(typeof parseServerAddress(""), "string");
  equal(parseOrigin("https://monitor.example.org"), "https://monitor.example.org");
  equal(parseOrigin("http://localhost:3000/"), "http://localhost:3000");
  equal(parseOrigin("https://monitor.example.org/?x"), null);
  equal(parseOrigin("https://user@monitor.example.org"), null);
  equal(parseOrigin("file:///x"), null);
});
