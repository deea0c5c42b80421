import { deepEqual, equal, rejects, throws } from "node:assert/strict";
import { FileError, PluginFiles, safeParts } from "./files.ts";

Deno.test("plugin files stay in the plugin's directory and under max_file_bytes", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const files = new PluginFiles(`${dir}/p/files`, 16);
    equal(await files.write("rounds/r1.json", "{}", "utf8"), 2);
    equal(await files.read("rounds/r1.json", "utf8"), "{}");
    equal(await files.write("b.bin", "AAEC", "base64"), 3);
    equal(await files.read("b.bin", "base64"), "AAEC");
    deepEqual(await files.list(), [{ path: "b.bin", size: 3 }, { path: "rounds/r1.json", size: 2 }]);
    await rejects(files.write("big", "x".repeat(17), "utf8"), /max_file_bytes/);
    await rejects(files.read("missing", "utf8"), /no file "missing"/);
    for (const bad of ["../x", "/etc/passwd", "a/../../b", ".hidden", "", "a//..", "x".repeat(200)]) {
      throws(() => safeParts(bad), FileError, bad);
    }
    await Deno.symlink("/etc", `${dir}/p/files/link`);
    await rejects(files.read("link/passwd", "utf8"), /is not a directory/);
    equal(await files.delete("b.bin"), true);
    equal(await files.delete("b.bin"), false);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
