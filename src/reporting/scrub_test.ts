import assert from "node:assert/strict";
import { defaultConfig } from "../config/mod.ts";
import { configSecrets, REDACTED, Scrubber } from "./scrub.ts";

Deno.test("Scrubber redacts configured secrets, credential fields and credential-shaped text", () => {
  const config = {
    ...defaultConfig(),
    admin_password: "correct horse battery",
    database_url: "postgres://chorus:p%40ss-w0rd@db.internal/chorus",
    openuds: { ...defaultConfig().openuds, auth_token: "uds-token-123456" },
  };
  const secrets = configSecrets(config);
  assert.ok(secrets.includes("p@ss-w0rd") && secrets.includes("p%40ss-w0rd"));
  const s = new Scrubber(secrets);
  const cases: [string, string][] = [
    ["login failed for correct horse battery", `login failed for ${REDACTED}`],
    // The whole configured URL is a secret; its password alone is one too (a driver may print it decoded).
    ["cannot connect to postgres://chorus:p%40ss-w0rd@db.internal/chorus", `cannot connect to ${REDACTED}`],
    ["auth failed (password p@ss-w0rd)", `auth failed (password ${REDACTED})`],
    ["fetch https://user:pa55word@example.org/x failed", `fetch https://user:${REDACTED}@example.org/x failed`],
    ["GET /me Authorization: Bearer abcdef0123456789", `GET /me Authorization: Bearer ${REDACTED}`],
    ["url /api?token=zzzzzzzz&room=1", `url /api?token=${REDACTED}&room=1`],
    ['{"token":"abc123def456","room":"x"}', `{"token":"${REDACTED}","room":"x"}`],
    ["admin_password: hunter22 set", `admin_password: ${REDACTED} set`],
    ["room abc has 3 players", "room abc has 3 players"],
  ];
  for (const [input, expected] of cases) assert.equal(s.text(input), expected, input);
  const event = {
    message: "uds-token-123456 was refused",
    extra: { token: "t0k3n-of-a-user", Authorization: "x", count: 3, ok: true, nested: [{ session_key: "zz" }] },
  };
  assert.deepEqual(s.value(event), {
    message: `${REDACTED} was refused`,
    extra: { token: REDACTED, Authorization: REDACTED, count: 3, ok: true, nested: [{ session_key: "zz" }] },
  });
});
