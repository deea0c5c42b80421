import assert from "node:assert/strict";
import { sha256Hex, startReleaseServer } from "../../tests/support/release_server.ts";
import { downloadRelease } from "./download.ts";
import { UpdateError } from "./errors.ts";
import type { Release } from "./manifest.ts";

const bytes = new Uint8Array(200_000).map((_, i) => (i * 31) & 0xff);

async function releaseOf(url: string, sha256?: string): Promise<Release> {
  return { version: "2.0.0", url: `${url}/chorus-2.0.0`, sha256: sha256 ?? await sha256Hex(bytes), size: bytes.length };
}

Deno.test("downloadRelease resumes a cut download with Range and verifies the whole file", async () => {
  const server = startReleaseServer();
  const dir = await Deno.makeTempDir();
  try {
    await server.publish("2.0.0", bytes);
    const release = await releaseOf(server.url);
    const path = `${dir}/chorus.download`;
    server.fault({ kind: "cut", after: 70_000 });
    const cut = await downloadRelease(release, path).catch((e) => e);
    assert.ok(cut instanceof UpdateError);
    assert.equal(cut.code, "TRUNCATED");
    assert.match(cut.message, /stopped at 70000 of 200000 bytes/);
    assert.equal((await Deno.stat(path)).size, 70_000, "the partial file stays");

    const report = await downloadRelease(release, path);
    assert.deepEqual(report, { resumedFrom: 70_000, transferred: 130_000 });
    assert.deepEqual(server.seen.map((s) => s.range), [null, "bytes=70000-"]);
    assert.deepEqual(await Deno.readFile(path), bytes);

    // Already complete: verified without a request.
    await downloadRelease(release, path);
    assert.equal(server.seen.length, 2);
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("downloadRelease deletes a file with the wrong SHA-256 and refuses an oversized one", async () => {
  const server = startReleaseServer();
  const dir = await Deno.makeTempDir();
  try {
    await server.publish("2.0.0", bytes);
    const path = `${dir}/chorus.download`;
    const wrong = await downloadRelease(await releaseOf(server.url, "ab".repeat(32)), path).catch((e) => e);
    assert.equal(wrong.code, "CHECKSUM");
    assert.match(wrong.message, /the manifest says abab.*; the download was discarded/);
    await assert.rejects(Deno.stat(path), Deno.errors.NotFound);

    const small = { ...(await releaseOf(server.url)), size: 1000 };
    const big = await downloadRelease(small, path).catch((e) => e);
    assert.equal(big.code, "SIZE");

    const missing = await downloadRelease({ ...small, url: `${server.url}/nothing` }, path).catch((e) => e);
    assert.equal(missing.code, "DOWNLOAD");
    assert.match(missing.message, /answered HTTP 404/);

    // A partial file longer than the artifact (another release's) is discarded, not trusted.
    await Deno.writeFile(path, new Uint8Array(300_000));
    await downloadRelease(await releaseOf(server.url), path);
    assert.deepEqual(await Deno.readFile(path), bytes);
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("downloadRelease stops on abort and keeps what it has", async () => {
  const server = startReleaseServer();
  const dir = await Deno.makeTempDir();
  try {
    await server.publish("2.0.0", bytes);
    const path = `${dir}/chorus.download`;
    const { promise: release, resolve } = Promise.withResolvers<void>();
    server.fault({ kind: "hold", after: 50_000, release });
    const controller = new AbortController();
    const running = downloadRelease(await releaseOf(server.url), path, { signal: controller.signal });
    // Abort once the first bytes arrived.
    // Each stat is a real file-system call, so the download makes progress between them.
    while (((await Deno.stat(path).catch(() => null))?.size ?? 0) < 50_000);
    controller.abort();
    const error = await running.catch((e) => e);
    resolve();
    assert.equal(error.code, "CANCELLED");
    assert.equal((await Deno.stat(path)).size, 50_000);

    // An abort with a reason (the updater's time-out) fails with that reason; the bytes stay for a resume.
    const { promise: again, resolve: free } = Promise.withResolvers<void>();
    server.fault({ kind: "hold", after: 10_000, release: again });
    const timedOut = new AbortController();
    const second = downloadRelease(await releaseOf(server.url), path, { signal: timedOut.signal });
    while (((await Deno.stat(path).catch(() => null))?.size ?? 0) < 60_000);
    timedOut.abort(new UpdateError("DOWNLOAD", "the download took over 30 minutes; the next attempt resumes"));
    const late = await second.catch((e) => e);
    free();
    assert.equal(late.code, "DOWNLOAD");
    assert.match(late.message, /took over 30 minutes/);
    assert.equal((await Deno.stat(path)).size, 60_000);
    assert.equal(server.seen.at(-1)?.range, "bytes=50000-");
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});
