import assert from "node:assert/strict";
import { compareVersions, parseVersion } from "./version.ts";

Deno.test("compareVersions orders releases, prereleases before their release", () => {
  const sorted = [
    "0.9.0",
    "1.0.0-alpha",
    "1.0.0-alpha.1",
    "1.0.0-alpha.beta",
    "1.0.0-beta.2",
    "1.0.0-beta.11",
    "1.0.0",
  ];
  for (let i = 0; i + 1 < sorted.length; i++) {
    assert.ok(compareVersions(sorted[i]!, sorted[i + 1]!) < 0, `${sorted[i]} < ${sorted[i + 1]}`);
    assert.ok(compareVersions(sorted[i + 1]!, sorted[i]!) > 0);
  }
  assert.equal(compareVersions("1.10.0", "1.9.9") > 0, true);
  assert.equal(compareVersions("2.0.0", "2.0.0"), 0);
});

Deno.test("parseVersion refuses what is not MAJOR.MINOR.PATCH[-pre]", () => {
  for (const bad of ["1.0", "v1.0.0", "01.0.0", "1.0.0-", "1.0.0+build", "", "1.0.0 "]) {
    assert.equal(parseVersion(bad), null, bad);
  }
  assert.throws(() => compareVersions("1.0", "1.0.0"), /"1\.0" is not MAJOR/);
});
