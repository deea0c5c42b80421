/**
 * Account backend test support: the service in process over SQLite in
 * memory (or a caller's database), cheap Argon2 parameters, a manual clock,
 * the development upstream for game accounts, a hand-driven room source, a
 * cookie-keeping HTTP client, and an SSE reader that keeps `data` as text
 * (the registration stream sends plain text tokens and messages).
 *
 * @module
 */

import { type Db, SqliteDb } from "../../src/db/mod.ts";
import {
  type AccountsOptions,
  type AccountsService,
  InlineHasher,
  type RoomSource,
  type RoomSourceEvent,
  startAccounts,
  TEST_ARGON2,
  upstreamDirectory,
} from "../../src/accounts/mod.ts";
import { createDevApi, type DevApi, Upstream } from "../../src/upstream/mod.ts";
import { ManualClock } from "../../src/util/clock.ts";
import { LogHub } from "../../src/util/log.ts";
import { SeededRandom } from "../../src/util/random.ts";

/** Password of `root` in these tests. */
export const ROOT_PASSWORD = "root-password-1";

/** A room source driven by the test. */
export class ManualRoomSource implements RoomSource {
  readonly description = "manual";
  connected = true;
  #sink: ((e: RoomSourceEvent) => void) | null = null;
  start(sink: (e: RoomSourceEvent) => void): void {
    this.#sink = sink;
    sink({ type: "snapshot", rooms: new Map() });
  }
  emit(e: RoomSourceEvent): void {
    this.#sink?.(e);
  }
  close(): Promise<void> {
    this.#sink = null;
    return Promise.resolve();
  }
}

/** A started test service. */
export interface TestAccounts {
  readonly service: AccountsService;
  readonly clock: ManualClock;
  readonly dev: DevApi;
  readonly logs: LogHub;
  readonly source: RoomSource;
  /** A new client with its own cookies. */
  client(ip?: string): AccountsClient;
  /** A client logged in as `username`. */
  login(username: string, password: string, remember?: boolean): Promise<AccountsClient>;
  close(): Promise<void>;
}

/** Options of {@link startTestAccounts}. */
export interface TestAccountsOptions extends Partial<Omit<AccountsOptions, "db" | "source">> {
  readonly db?: Db;
  readonly source?: RoomSource;
}

/** Starts the service in process. */
export async function startTestAccounts(o: TestAccountsOptions = {}): Promise<TestAccounts> {
  const clock = (o.clock as ManualClock | undefined) ?? new ManualClock();
  const logs = new LogHub({ level: "debug", sink: () => {} });
  const dev = createDevApi({ clock });
  const upstream = new Upstream({
    baseUrl: "http://dev.upstream",
    fetch: dev.fetch,
    clock,
    random: new SeededRandom(3),
  });
  const source = o.source ?? new ManualRoomSource();
  const service = await startAccounts({
    db: o.db ?? SqliteDb.open(":memory:"),
    ownsDb: o.db === undefined,
    source,
    games: upstreamDirectory(upstream),
    hasher: new InlineHasher(TEST_ARGON2),
    log: logs.logger(),
    rootPassword: ROOT_PASSWORD,
    listen: null,
    ...o,
    clock,
  });
  const t: TestAccounts = {
    service,
    clock,
    dev,
    logs,
    source,
    client: (ip = "127.0.0.1") => new AccountsClient((req) => service.fetch(req, ip)),
    async login(username, password, remember = false) {
      const c = t.client();
      const res = await c.post("/api/auth/login", { username, password, remember });
      if (res.status !== 200) throw new Error(`login as ${username} failed: ${res.status} ${JSON.stringify(res.body)}`);
      return c;
    },
    close: () => service.close(),
  };
  return t;
}

/** An HTTP answer. */
export interface Answer {
  readonly status: number;
  readonly body: unknown;
  readonly headers: Headers;
}

/** Extra request settings. */
export interface RequestExtras {
  /** Send the CSRF header (default true when a token is known). */
  readonly csrf?: boolean | string;
  readonly origin?: string;
  readonly headers?: Record<string, string>;
}

/** A client that keeps cookies and the CSRF token like a browser page would. */
export class AccountsClient {
  readonly cookies = new Map<string, string>();
  csrf: string | null = null;
  readonly #send: (req: Request) => Promise<Response>;
  readonly #base: string;

  constructor(send: (req: Request) => Promise<Response>, base = "http://accounts.test") {
    this.#send = send;
    this.#base = base;
  }

  /** Sends a request and keeps the cookies it sets; the body stays unread. */
  async raw(method: string, path: string, body?: unknown, x: RequestExtras = {}): Promise<Response> {
    const headers = new Headers(x.headers);
    headers.set("host", new URL(this.#base).host);
    if (this.cookies.size) headers.set("cookie", [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; "));
    const csrf = typeof x.csrf === "string" ? x.csrf : x.csrf === false ? null : this.csrf;
    if (csrf) headers.set("x-csrf-token", csrf);
    if (x.origin) headers.set("origin", x.origin);
    if (body !== undefined && !headers.has("content-type")) headers.set("content-type", "application/json");
    const init: RequestInit = { method, headers };
    if (body !== undefined) init.body = typeof body === "string" ? body : JSON.stringify(body);
    const res = await this.#send(new Request(this.#base + path, init));
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const eq = pair!.indexOf("=");
      const name = pair!.slice(0, eq);
      const value = pair!.slice(eq + 1);
      if (/Max-Age=0/.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const token = res.headers.get("x-csrf-token");
    if (token) this.csrf = token;
    return res;
  }

  /** Sends a request and parses a JSON body. */
  async req(method: string, path: string, body?: unknown, x: RequestExtras = {}): Promise<Answer> {
    const res = await this.raw(method, path, body, x);
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // not JSON: keep the text
    }
    return { status: res.status, body: parsed, headers: res.headers };
  }

  get(path: string, x?: RequestExtras): Promise<Answer> {
    return this.req("GET", path, undefined, x);
  }
  post(path: string, body?: unknown, x?: RequestExtras): Promise<Answer> {
    return this.req("POST", path, body, x);
  }
  patch(path: string, body?: unknown, x?: RequestExtras): Promise<Answer> {
    return this.req("PATCH", path, body, x);
  }
  delete(path: string, x?: RequestExtras): Promise<Answer> {
    return this.req("DELETE", path, undefined, x);
  }
}

/** One SSE frame with its data as text. */
export type TextFrame = { event: string; data: string } | { comment: string };

/** Reads an SSE body frame by frame, data kept as text. */
export class TextSseReader {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #decoder = new TextDecoder();
  #buffer = "";

  constructor(body: ReadableStream<Uint8Array>) {
    this.#reader = body.getReader();
  }

  /** The next frame, or null at the end; rejects after `timeoutMs` of real time. */
  async next(timeoutMs = 3000): Promise<TextFrame | null> {
    const end = performance.now() + timeoutMs;
    for (;;) {
      const cut = this.#buffer.indexOf("\n\n");
      if (cut >= 0) {
        const block = this.#buffer.slice(0, cut);
        this.#buffer = this.#buffer.slice(cut + 2);
        if (block.startsWith(":")) return { comment: block.slice(1).trim() };
        let event = "message";
        const data: string[] = [];
        for (const line of block.split("\n")) {
          if (line.startsWith("event:")) event = line.slice(6).trim();
          else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
        }
        return { event, data: data.join("\n") };
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

  /** The next frame that is not a comment. */
  async event(timeoutMs = 3000): Promise<{ event: string; data: string } | null> {
    for (;;) {
      const f = await this.next(timeoutMs);
      if (f === null || "event" in f) return f;
    }
  }

  /** Cancels the body (the client goes away). */
  async cancel(): Promise<void> {
    await this.#reader.cancel().catch(() => {});
  }
}

/** Adds a user straight to the store (registration is tested on its own); returns its id. */
export async function addUser(
  t: TestAccounts,
  username: string,
  password: string,
  groupId = 3,
  gameId: number | null = null,
): Promise<number> {
  const ctx = t.service.ctx;
  const user = await ctx.store.createUser({
    username,
    passwordHash: await ctx.hasher.hash(password),
    groupId,
    game: gameId === null ? null : { gameId, name: `Player${gameId}`, rks: 1, avatar: null },
    now: t.clock.now(),
    nextSyncAt: gameId === null ? null : t.clock.now() + 3_600_000,
  });
  return user.id;
}
