import { deepEqual, equal } from "node:assert/strict";
import { defaultConfig } from "../config/mod.ts";
import { EventBus } from "../events/mod.ts";
import { decodeServerCommand, encodeClientCommand, FrameDecoder } from "../protocol/mod.ts";
import type { Transport } from "../session/session.ts";
import { createDevApi, devToken, Upstream } from "../upstream/mod.ts";
import { ManualClock } from "../util/clock.ts";
import { LogHub } from "../util/log.ts";
import { SeededRandom } from "../util/random.ts";
import type { LoginJournal, LoginRecord } from "./context.ts";
import { GameServer } from "./server.ts";

/** A virtual connection that sends one login; its writes complete, or never (`stuck`). */
class LoginConnection implements Transport {
  #input: Uint8Array | null;
  #wake: (() => void) | null = null;
  #ended = false;
  written: number[] = [];

  constructor(
    token: string,
    readonly stuck = false,
    type: "ConsoleAuthenticate" | "Authenticate" = "ConsoleAuthenticate",
  ) {
    this.#input = new Uint8Array([1, ...encodeClientCommand({ type, token })]);
  }

  async read(p: Uint8Array): Promise<number | null> {
    const input = this.#input;
    if (input) {
      this.#input = null;
      p.set(input);
      return input.length;
    }
    if (!this.#ended) await new Promise<void>((resolve) => (this.#wake = resolve));
    return null;
  }

  write(p: Uint8Array): Promise<number> {
    if (this.stuck) return new Promise(() => {});
    this.written.push(...p);
    return Promise.resolve(p.length);
  }

  close(): void {
    this.#ended = true;
    this.#wake?.();
  }

  /** The server's replies, rendered as `Type(Ok|Err)`. */
  replies(): string[] {
    const decoder = new FrameDecoder(1024);
    decoder.push(new Uint8Array(this.written));
    const out: string[] = [];
    for (let p = decoder.next(); p; p = decoder.next()) {
      const cmd = decodeServerCommand(p) as { type: string; result?: { ok: boolean } };
      out.push(`${cmd.type}(${cmd.result?.ok ? "Ok" : "Err"})`);
    }
    return out;
  }
}

/** A journal whose `recordLogin` does what a test says, recording revocations. */
class FakeJournal implements LoginJournal {
  revoked: [LoginRecord, string][] = [];
  constructor(readonly record: () => Promise<void>) {}
  recordLogin(): Promise<void> {
    return this.record();
  }
  revokeLogin(login: LoginRecord, reason: string): void {
    this.revoked.push([login, reason]);
  }
}

function server(loginJournal: LoginJournal) {
  const clock = new ManualClock();
  const dev = createDevApi({ clock });
  const upstream = new Upstream({
    baseUrl: "http://dev.upstream",
    fetch: dev.fetch,
    clock,
    random: new SeededRandom(7),
  });
  return new GameServer({
    config: defaultConfig(),
    clock,
    random: new SeededRandom(1),
    log: new LogHub({ level: "error", sink: () => {} }).logger(),
    upstream,
    bus: new EventBus(() => clock.now()),
    loginJournal,
  });
}

Deno.test("login: a journal record written but not flushed is refused, compensated and counts commit_without_response", async () => {
  const journal = new FakeJournal(() =>
    Promise.reject(Object.assign(new Error("Cannot flush the journal: EIO"), { committed: true }))
  );
  const s = server(journal);
  const conn = new LoginConnection(devToken(100));
  const session = s.attach(conn, "127.0.0.1")!;
  equal(await session.done, "rejected");
  deepEqual(conn.replies(), ["Authenticate(Err)"]);
  equal(s.core.counters.values.commit_without_response, 1);
  deepEqual(journal.revoked.map(([r, why]) => [r.user_id, r.session_id, why]), [[100, 1, "journal flush failed"]]);
  await s.shutdown();
});

Deno.test("login: a journal write that failed outright needs no compensation", async () => {
  const journal = new FakeJournal(() => Promise.reject(new Error("Cannot append to the journal: ENOSPC")));
  const s = server(journal);
  const conn = new LoginConnection(devToken(100));
  equal(await s.attach(conn, "127.0.0.1")!.done, "rejected");
  deepEqual(conn.replies(), ["Authenticate(Err)"]);
  deepEqual(s.core.counters.violations(), {});
  deepEqual(journal.revoked, []);
  await s.shutdown();
});

Deno.test("login: a journaled login whose reply is never flushed is compensated when the connection dies", async () => {
  const journal = new FakeJournal(() => Promise.resolve());
  const s = server(journal);
  const conn = new LoginConnection(devToken(100), true);
  const session = s.attach(conn, "127.0.0.1")!;
  while (session.state !== "durable-accepted") await new Promise((resolve) => setTimeout(resolve, 0));
  equal(journal.revoked.length, 0);
  conn.close();
  equal(await session.done, "eof");
  await new Promise((resolve) => setTimeout(resolve, 0));
  deepEqual(s.core.counters.violations(), { commit_without_response: 1 });
  deepEqual(journal.revoked.map(([r]) => [r.user_id, r.category]), [[100, "console"]]);
  await s.shutdown();
});

Deno.test("login: a gate that overflows after the reply is flushed but before activation fails the login", async () => {
  const journal = new FakeJournal(() => Promise.resolve());
  const s = server(journal);
  const conn = new LoginConnection(devToken(100), false, "Authenticate");
  const session = s.attach(conn, "127.0.0.1")!;
  const chat = { type: "Message", message: { type: "Chat", user: 0, content: "x" } } as const;
  // The overflow lands in the microtasks between the reply's flush winning the race and the login going on:
  // one job queued on the flush, run after the race has settled on "flushed".
  const flushed = session.outbound.flushed.bind(session.outbound);
  session.outbound.flushed = (seq: number) => {
    const done = flushed(seq);
    void done.then(() =>
      queueMicrotask(() => {
        for (let i = 0; i <= 256; i++) s.core.sendTo([100], chat);
      })
    );
    return done;
  };
  for (let i = 0; i < 100 && session.open && session.state !== "active"; i++) {
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
  equal(session.closeReason, "slow-client", "the frames the gate lost are never silently skipped");
  equal(s.core.users.get(100), undefined, "the user is not left bound to a failed session");
  deepEqual(s.core.counters.violations(), { compat_queue_drop: 1, commit_without_response: 1 });
  deepEqual(journal.revoked.map(([r]) => r.user_id), [100]);
  await s.shutdown();
});
