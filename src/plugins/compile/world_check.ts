/**
 * Checks what a component imports and exports against the plugin world
 * (spec 3 §4.6, extended.md §2.17), from the world text `wasm-tools
 * component wit` prints for it. jco drops versions from its import keys, so
 * a component built for `phira:plugin@0.2.0` would otherwise be linked to
 * this host's functions silently; here every import must be an interface of
 * `phira:plugin@0.3.x` (or the `game:plugin` / `game-...` spelling of the
 * specification), and the five exports must have the world's signatures.
 *
 * @module
 */

/** The world's interfaces, without prefix. */
export const INTERFACE_NAMES = [
  "types",
  "host",
  "events",
  "query",
  "room-mgmt",
  "user-mgmt",
  "messaging",
  "persistence",
  "admin",
  "config",
  "crypto",
  "tcp",
  "timer",
  "runtime",
  "room-state",
  "handler",
] as const;

/** Written into every cache manifest; entries of another transpiler are compiled again. */
export const TRANSPILER = "jco-transpile@0.15.0";

/** The version this host implements. */
export const WORLD_VERSION = "0.3.0";

/** The exports every plugin has, as `component wit` prints them. */
export const WORLD_EXPORTS = [
  "export init: func() -> result<_, string>;",
  "export get-info: func() -> plugin-info;",
  "export cleanup: func();",
  "export on-event: func(event: plugin-event) -> result<bool, string>;",
  "export on-api: func(method: string, args: list<json-value>) -> api-result;",
] as const;

/** One imported interface, as the component names it. */
export interface WorldImport {
  /** `phira:plugin/phira-host@0.3.0` */
  readonly name: string;
  /** `phira-host` (the spelling this host uses). */
  readonly iface: string;
}

/** What the check finds. */
export type WorldCheck =
  | { readonly ok: true; readonly imports: readonly WorldImport[] }
  | { readonly ok: false; readonly problem: string };

const IMPORT = /^import\s+([a-z0-9-]+):([a-z0-9-]+)\/([a-z0-9-]+)(?:@([0-9A-Za-z.+-]+))?;$/;

function normalize(line: string): string {
  return line.trim().replace(/\s+/g, " ").replace(/\(\s+/g, "(").replace(/\s+\)/g, ")");
}

/** Checks the world text of a component. */
export function checkWorld(worldText: string): WorldCheck {
  const lines = worldText.split("\n").map(normalize).filter((l) => l !== "");
  const imports: WorldImport[] = [];
  const exports = new Set<string>();
  for (const line of lines) {
    if (line.startsWith("export ")) {
      exports.add(line);
      continue;
    }
    if (!line.startsWith("import ")) continue;
    const m = IMPORT.exec(line);
    if (!m) {
      return {
        ok: false,
        problem: `it imports "${line.slice(7).replace(/;$/, "")}", which the plugin host does not provide`,
      };
    }
    const [, ns, pkg, name, version] = m as unknown as [string, string, string, string, string | undefined];
    const full = `${ns}:${pkg}/${name}${version ? `@${version}` : ""}`;
    const bare = name.replace(/^(phira|game)-/, "");
    const known = (ns === "phira" || ns === "game") && pkg === "plugin" && name !== bare &&
      (INTERFACE_NAMES as readonly string[]).includes(bare);
    if (!known) return { ok: false, problem: `it imports "${full}", which the plugin host does not provide` };
    if (!version || !version.startsWith("0.3.")) {
      const world = version?.match(/^0\.(\d+)\./)?.[1];
      return {
        ok: false,
        problem:
          `it was built for ${ns}:${pkg}@${version ?? "(no version)"}${
            world ? ` (world ${ns}-plugin-v${world})` : ""
          }; ` +
          `this server runs ${ns}:${pkg}@${WORLD_VERSION} (world phira-plugin-v3): rebuild it against wit/phira-plugin.wit`,
      };
    }
    imports.push({ name: full, iface: `phira-${bare}` });
  }
  for (const expected of WORLD_EXPORTS) {
    if (!exports.has(expected)) {
      const name = expected.split(":")[0]!.slice(7);
      const found = [...exports].find((e) => e.startsWith(`export ${name}:`));
      return {
        ok: false,
        problem: found
          ? `its export ${name} has the wrong signature: "${found}" (expected "${expected}")`
          : `it does not export ${name} (the world phira-plugin-v3 needs init, get-info, cleanup, on-event and on-api)`,
      };
    }
  }
  return { ok: true, imports };
}
