import assert from "node:assert/strict";
import { type StartupFacts, startupSummary } from "./app_summary.ts";
import { defaultConfig } from "./config/mod.ts";

const base: StartupFacts = {
  config: defaultConfig(),
  version: "1.2.3",
  pid: 4242,
  gamePort: 12346,
  httpPort: 12347,
  adminProblem: "admin_password is not set",
  adminPasswordSet: false,
  dataDir: "/srv/chorus/data",
  configFile: "/srv/chorus/server_config.yml",
  addresses: ["192.168.1.20", "10.0.0.5", "2001:db8::1"],
};

Deno.test("start-up summary: where to connect, HTTP, the admin panel off with the line that enables it, data", () => {
  assert.deepEqual(startupSummary(base), [
    "Chorus 1.2.3 is ready (profile Development, pid 4242)",
    "  Phira clients connect to 192.168.1.20:12346 or 10.0.0.5:12346 (127.0.0.1:12346 on this machine)",
    "  HTTP API and pages: http://192.168.1.20:12347/",
    '  admin panel: off, admin_password is not set. To turn it on, write admin_password: "<a long password>" in ' +
    "/srv/chorus/server_config.yml (or set PM_ADMIN_PASSWORD)",
    "  data directory: /srv/chorus/data (the embedded database and the journal)",
    "  configuration: /srv/chorus/server_config.yml; stop with Ctrl-C or SIGTERM",
  ]);
});

Deno.test("start-up summary: the admin panel URL when a password is set, flagged when it is weak", () => {
  const on = startupSummary({ ...base, adminProblem: null, adminPasswordSet: true });
  assert.ok(on.includes("  admin panel: http://192.168.1.20:12347/admin"), on.join("\n"));
  const weak = startupSummary({
    ...base,
    adminProblem: "admin_password is a well-known password",
    adminPasswordSet: true,
  });
  assert.ok(
    weak.includes(
      "  admin panel: http://192.168.1.20:12347/admin (unsafe: admin_password is a well-known password; change it)",
    ),
  );
});

Deno.test("start-up summary: specific bind addresses, IPv6, HTTP off, PostgreSQL, no file, no addresses known", () => {
  const lines = startupSummary({
    ...base,
    config: { ...defaultConfig(), bind_address: "::1", http_bind_address: "127.0.0.1", database_url: "postgres://x/y" },
    httpPort: null,
    configFile: null,
    addresses: [],
  });
  assert.deepEqual(lines.slice(1), [
    "  Phira clients connect to [::1]:12346",
    "  HTTP is off (http_port: 0): no room API, spectator or admin panel",
    "  data directory: /srv/chorus/data (the journal; the database is PostgreSQL (database_url))",
    "  configuration: defaults (no server_config.yml found); stop with Ctrl-C or SIGTERM",
  ]);
  const anywhere = startupSummary({ ...base, addresses: [] });
  assert.equal(anywhere[1], "  Phira clients connect to 127.0.0.1:12346");
  const v4only = startupSummary({
    ...base,
    config: { ...defaultConfig(), bind_address: "0.0.0.0" },
    addresses: ["2001:db8::1"],
  });
  assert.equal(
    v4only[1],
    "  Phira clients connect to 127.0.0.1:12346",
    "an IPv4-only listener is not reachable over IPv6",
  );
});
