/**
 * Account backend benchmarks: the cost of Argon2id with the production
 * parameters (m = 19 MiB, t = 2, p = 1), inline and in the worker, and a
 * whole `POST /api/auth/login` through the HTTP app (SQLite file, session
 * insert included). Run with `deno task bench`; figures in BENCHMARKS.md.
 */
import { SqliteDb } from "../db/mod.ts";
import { ManualClock } from "../util/clock.ts";
import { LogHub } from "../util/log.ts";
import type { GameDirectory } from "./game_accounts.ts";
import { WorkerHasher } from "./password_pool.ts";
import { argon2Check, argon2Hash, DEFAULT_ARGON2 } from "./passwords.ts";
import type { RoomSource } from "./room_source.ts";
import { startAccounts } from "./service.ts";

const PASSWORD = "correct horse battery staple";
const encoded = await argon2Hash(PASSWORD, DEFAULT_ARGON2);

Deno.bench({ name: "argon2id hash (m=19456, t=2, p=1), main thread", n: 20, warmup: 2 }, async () => {
  await argon2Hash(PASSWORD, DEFAULT_ARGON2);
});

Deno.bench({ name: "argon2id verify, main thread", n: 20, warmup: 2 }, async () => {
  await argon2Check(PASSWORD, encoded);
});

const worker = new WorkerHasher();
Deno.bench({ name: "argon2id verify in the worker (round trip)", n: 20, warmup: 2 }, async () => {
  await worker.verify(PASSWORD, encoded);
});

const dir = await Deno.makeTempDir({ prefix: "chorus-accounts-bench-" });
const idle: RoomSource = { description: "none", connected: false, start() {}, close: () => Promise.resolve() };
const none: GameDirectory = { byId: () => Promise.resolve(null), search: () => Promise.resolve([]) };
const service = await startAccounts({
  db: SqliteDb.open(`${dir}/accounts.sqlite`),
  ownsDb: true,
  source: idle,
  games: none,
  hasher: new WorkerHasher(),
  clock: new ManualClock(),
  log: new LogHub({ level: "error", sink: () => {} }).logger(),
  rootPassword: PASSWORD,
  listen: null,
});
const body = JSON.stringify({ username: "root", password: PASSWORD });

Deno.bench(
  { name: "POST /api/auth/login (app in process, SQLite file, worker hasher)", n: 20, warmup: 2 },
  async () => {
    const res = await service.fetch(
      new Request("http://bench/api/auth/login", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
      }),
    );
    if (res.status !== 200) throw new Error(`login failed: ${res.status}`);
    await res.body?.cancel();
  },
);

Deno.bench({ name: "GET /api/auth/me with a session (one indexed lookup)", n: 200, warmup: 20 }, async () => {
  const res = await service.fetch(new Request("http://bench/api/auth/me", { headers: { cookie } }));
  await res.body?.cancel();
});
const login = await service.fetch(
  new Request("http://bench/api/auth/login", { method: "POST", headers: { "content-type": "application/json" }, body }),
);
await login.body?.cancel();
const cookie = login.headers.getSetCookie()[0]!.split(";")[0]!;

globalThis.addEventListener("unload", () => {
  worker.close();
  void service.close();
  Deno.removeSync(dir, { recursive: true });
});
