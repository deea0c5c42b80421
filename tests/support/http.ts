/**
 * HTTP test support: the game-server harness plus the HTTP app built on it
 * (in process), an optional real listener, and a reader that parses SSE
 * bodies frame by frame.
 *
 * @module
 */

import { type Config, defaultConfig } from "../../src/config/mod.ts";
import {
  createHttpApp,
  type HttpApp,
  type HttpDeps,
  type HttpOptions,
  type HttpService,
  startHttp,
} from "../../src/http/mod.ts";
import type { HealthStatus } from "../../src/http/mod.ts";
import { type Harness, type HarnessOptions, settle, startHarness } from "./harness.ts";

/** Test password of the admin panel. */
export const ADMIN_PASSWORD = "correct horse battery staple";

/** A harness with the HTTP app. */
export interface HttpHarness extends Harness {
  readonly http: HttpApp;
  /** Listening service when `listen` was asked for. */
  readonly service: HttpService | null;
  /** `http://127.0.0.1:<port>` of the service. */
  readonly url: string;
  /** GET (or `init`) in process and parse the JSON body. */
  json(path: string, init?: RequestInit): Promise<{ status: number; body: unknown; headers: Headers }>;
}

/** Options of {@link startHttpHarness}. */
export interface HttpHarnessOptions extends HarnessOptions {
  http?: HttpOptions;
  /** Serve on 127.0.0.1:0 (and a trusted port when `trusted`). */
  listen?: boolean;
  trusted?: boolean;
  health?: () => HealthStatus;
  httpConfig?: Partial<Config>;
  /** The `/chart/*` handler, built on the harness (none by default). */
  chart?: (h: Harness) => HttpDeps["chart"];
}

/** Starts the game-server harness and the HTTP app on it. */
export async function startHttpHarness(o: HttpHarnessOptions = {}): Promise<HttpHarness> {
  const h = await startHarness(o);
  const config = { ...defaultConfig(), monitors: [9, 10], admin_password: ADMIN_PASSWORD, ...o.httpConfig };
  const deps = {
    server: h.server,
    config,
    options: o.http ?? {},
    ...(o.health ? { health: o.health } : {}),
    ...(o.chart ? { chart: o.chart(h) } : {}),
  };
  let service: HttpService | null = null;
  let http: HttpApp;
  if (o.listen) {
    service = await startHttp(deps, { hostname: "127.0.0.1", port: 0, trustedPort: o.trusted ? 0 : null });
    http = service.http;
  } else http = createHttpApp(deps);
  const close = h.close;
  return {
    ...h,
    http,
    service,
    url: service ? `http://127.0.0.1:${service.port}` : "",
    async json(path, init) {
      const res = await http.request(path, init);
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers };
    },
    async close(options) {
      await http.closeStreams();
      await service?.close();
      await settle();
      await close(options);
    },
  };
}

/** One parsed SSE frame. */
export type SseFrame = { event: string; data: unknown } | { comment: string };

/** Reads an SSE body frame by frame. */
export class SseReader {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #decoder = new TextDecoder();
  #buffer = "";

  constructor(body: ReadableStream<Uint8Array>) {
    this.#reader = body.getReader();
  }

  /** The next frame; null at end of stream. Rejects after `timeoutMs` of real time. */
  async next(timeoutMs = 3000): Promise<SseFrame | null> {
    const end = performance.now() + timeoutMs;
    for (;;) {
      const cut = this.#buffer.indexOf("\n\n");
      if (cut >= 0) {
        const block = this.#buffer.slice(0, cut);
        this.#buffer = this.#buffer.slice(cut + 2);
        return parseFrame(block);
      }
      const left = end - performance.now();
      if (left <= 0) throw new Error("Timed out waiting for an SSE frame");
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error("Timed out waiting for an SSE frame")), left);
      });
      try {
        const { value, done } = await Promise.race([this.#reader.read(), timeout]);
        if (done) return null;
        this.#buffer += this.#decoder.decode(value, { stream: true });
      } finally {
        clearTimeout(timer);
      }
    }
  }

  /** The next `n` frames. */
  async take(n: number): Promise<SseFrame[]> {
    const out: SseFrame[] = [];
    for (let i = 0; i < n; i++) {
      const frame = await this.next();
      if (!frame) break;
      out.push(frame);
    }
    return out;
  }

  /** Cancels the body (the client goes away). */
  async cancel(): Promise<void> {
    await this.#reader.cancel().catch(() => {});
  }
}

function parseFrame(block: string): SseFrame {
  if (block.startsWith(": ")) return { comment: block.slice(2) };
  let event = "message";
  let data = "";
  for (const line of block.split("\n")) {
    if (line.startsWith("event: ")) event = line.slice(7);
    else if (line.startsWith("data: ")) data += line.slice(6);
  }
  return { event, data: data === "" ? null : JSON.parse(data) };
}
