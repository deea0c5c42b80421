/**
 * A local release server for self-update tests: serves a manifest and
 * artifacts on 127.0.0.1 (port 0) with `Range` support, records what it was
 * asked, and can misbehave on purpose — cut a response short, hold one open
 * until released, or publish a wrong SHA-256.
 *
 * @module
 */

import { createSHA256 } from "hash-wasm";

/** One request as the server saw it. */
export interface SeenRequest {
  readonly path: string;
  readonly range: string | null;
}

/** What the next artifact response does. */
export type Fault =
  | { readonly kind: "cut"; readonly after: number }
  | { readonly kind: "hold"; readonly after: number; readonly release: Promise<void> };

/** The server. */
export interface ReleaseServer {
  readonly url: string;
  readonly manifestUrl: string;
  readonly seen: SeenRequest[];
  /** Publishes `bytes` as `version` for `platform`; `sha256` overrides the real digest (a bad manifest). */
  publish(version: string, bytes: Uint8Array, options?: { sha256?: string; platform?: string }): Promise<void>;
  /** Makes the next artifact response misbehave. */
  fault(fault: Fault): void;
  close(): Promise<void>;
}

/** SHA-256 in hex. */
export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const h = await createSHA256();
  h.init();
  h.update(bytes);
  return h.digest("hex");
}

/** Starts a release server. */
export function startReleaseServer(platform = Deno.build.target): ReleaseServer {
  const artifacts = new Map<string, Uint8Array<ArrayBuffer>>();
  let manifest: unknown = { version: "0.0.0", artifacts: {} };
  const seen: SeenRequest[] = [];
  let fault: Fault | null = null;
  // Held responses end when the server closes, whatever the test did.
  const { promise: closing, resolve: close } = Promise.withResolvers<void>();
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    const path = new URL(req.url).pathname;
    seen.push({ path, range: req.headers.get("range") });
    if (path === "/manifest.json") return Response.json(manifest);
    const bytes = artifacts.get(path);
    if (!bytes) return new Response("not found", { status: 404 });
    let start = 0;
    const range = /^bytes=(\d+)-$/.exec(req.headers.get("range") ?? "");
    if (range) {
      start = Number(range[1]);
      if (start >= bytes.length) return new Response(null, { status: 416 });
    }
    const body = bytes.subarray(start);
    const headers = new Headers({ "content-type": "application/octet-stream" });
    if (range) headers.set("content-range", `bytes ${start}-${bytes.length - 1}/${bytes.length}`);
    const status = range ? 206 : 200;
    const now = fault;
    fault = null;
    if (!now) {
      headers.set("content-length", String(body.length));
      return new Response(body, { status, headers });
    }
    // A misbehaving response: the first bytes, then an error (cut) or a wait (hold, then an error).
    // Pulled chunk by chunk, so the first bytes are on the wire before the connection fails.
    let pulls = 0;
    const stream = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (pulls++ === 0) return controller.enqueue(body.slice(0, now.after));
        if (now.kind === "hold") await Promise.race([now.release, closing]);
        controller.error(new Error("connection lost (test fault)"));
      },
    });
    return new Response(stream, { status, headers });
  });
  const url = `http://127.0.0.1:${server.addr.port}`;
  return {
    url,
    manifestUrl: `${url}/manifest.json`,
    seen,
    async publish(version, bytes, options = {}) {
      const path = `/chorus-${version}`;
      artifacts.set(path, new Uint8Array(bytes));
      manifest = {
        version,
        artifacts: {
          [options.platform ?? platform]: {
            url: path.slice(1), // relative to the manifest
            sha256: options.sha256 ?? await sha256Hex(bytes),
            size: bytes.length,
          },
        },
      };
    },
    fault(f) {
      fault = f;
    },
    close: () => {
      close();
      return server.shutdown();
    },
  };
}
