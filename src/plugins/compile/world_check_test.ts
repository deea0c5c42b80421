import { deepEqual, equal, match } from "node:assert/strict";
import { checkWorld, WORLD_EXPORTS } from "./world_check.ts";

function world(imports: string[], exports: readonly string[] = WORLD_EXPORTS): string {
  return [
    "package root:component;",
    "",
    "world root {",
    ...imports.map((i) => `  import ${i};`),
    "  use phira:plugin/phira-types@0.3.0.{plugin-info, json-value, api-result};",
    ...exports.map((e) => `  ${e}`),
    "}",
  ].join("\n");
}

Deno.test("checkWorld accepts the world and the specification's game- spelling", () => {
  const ok = checkWorld(
    world(["phira:plugin/phira-types@0.3.0", "phira:plugin/phira-host@0.3.0", "phira:plugin/phira-room-state@0.3.1"]),
  );
  deepEqual(ok, {
    ok: true,
    imports: [
      { name: "phira:plugin/phira-types@0.3.0", iface: "phira-types" },
      { name: "phira:plugin/phira-host@0.3.0", iface: "phira-host" },
      { name: "phira:plugin/phira-room-state@0.3.1", iface: "phira-room-state" },
    ],
  });
  const game = checkWorld(world(["game:plugin/game-host@0.3.0", "game:plugin/game-room-mgmt@0.3.0"]));
  equal(game.ok, true);
});

Deno.test("checkWorld refuses the older world naming its version, and imports the host lacks", () => {
  const v2 = checkWorld(world(["phira:plugin/phira-host@0.2.0"]));
  equal(v2.ok, false);
  match(
    !v2.ok ? v2.problem : "",
    /built for phira:plugin@0\.2\.0 \(world phira-plugin-v2\); this server runs phira:plugin@0\.3\.0/,
  );
  const wasi = checkWorld(world(["wasi:cli/stdout@0.2.0"]));
  match(!wasi.ok ? wasi.problem : "", /imports "wasi:cli\/stdout@0\.2\.0", which the plugin host does not provide/);
  const unknown = checkWorld(world(["phira:plugin/phira-teleport@0.3.0"]));
  equal(unknown.ok, false);
  const fn = checkWorld(world(["foo: func()"]));
  equal(fn.ok, false);
});

Deno.test("checkWorld refuses missing exports and exports of another shape", () => {
  const missing = checkWorld(world([], WORLD_EXPORTS.filter((e) => !e.includes("cleanup"))));
  match(!missing.ok ? missing.problem : "", /does not export cleanup/);
  const other = checkWorld(
    world([], [
      ...WORLD_EXPORTS.filter((e) => !e.includes("on-api")),
      "export on-api: func(method: string) -> api-result;",
    ]),
  );
  match(!other.ok ? other.problem : "", /export on-api has the wrong signature/);
});
