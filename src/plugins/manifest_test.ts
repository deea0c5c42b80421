import { deepEqual, equal, throws } from "node:assert/strict";
import { DEFAULT_MANIFEST, ManifestError, parseManifest, readManifest } from "./manifest.ts";

Deno.test("a capabilities file lists the plugin's whole set; an unknown capability refuses it, naming it", () => {
  deepEqual(parseManifest('{"capabilities": ["http", "state.read", "http"]}').capabilities, ["http", "state.read"]);
  throws(
    () => parseManifest('{"capabilities": ["state.read", "teleport"]}'),
    (e: Error) => e instanceof ManifestError && e.message.startsWith('unknown capability "teleport"'),
  );
  throws(() => parseManifest("{"), /not JSON/);
  throws(() => parseManifest("[]"), /must be an object/);
  throws(() => parseManifest('{"capabilities": "http"}'), /list of capability names/);
  deepEqual(parseManifest('{"capabilities": [], "events": ["game_end", "game_end"]}').events, ["game_end"]);
  throws(() => parseManifest('{"capabilities": [], "events": ["chat"]}'), /unknown event kind "chat"/);
});

Deno.test("without a capabilities file a plugin has the eight default ones", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const manifest = await readManifest(dir, "none");
    equal(manifest, DEFAULT_MANIFEST);
    deepEqual(manifest.capabilities, [
      "state.read",
      "send",
      "ext",
      "config",
      "file.read",
      "file.write",
      "plugin.call",
      "plugin.register",
    ]);
    await Deno.writeTextFile(`${dir}/p.capabilities.json`, '{"capabilities": ["tcp"]}');
    deepEqual((await readManifest(dir, "p")).capabilities, ["tcp"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
