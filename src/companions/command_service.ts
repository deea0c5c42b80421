/**
 * `command` (spec 2 §4.4, §5.5; port 7878): `POST /execute` with the
 * original's form fields `pwd1`, `pwd2`, `pwd3`, `cmd` (an alias, or
 * `custom` with `custom_cmd`). The three fragments are checked together
 * against one Argon2id hash from the configuration (the original's page
 * carried them in its JavaScript). Aliases map to argument vectors from the
 * configuration; custom commands are off unless `allow_custom`, and when on
 * are split into arguments, refused for shell syntax or danger
 * ({@link customCommand}) and run without a shell. Every request is
 * audited; `max_failures` wrong passwords lock the address out; at most
 * `max_concurrent` commands run at once. Bodies follow peers §5.4.
 *
 * @module
 */

import { Hono } from "hono";
import type { Clock, TimerHandle } from "../util/clock.ts";
import type { Logger } from "../util/log.ts";
import type { AuditEntry, AuditStore } from "./audit_store.ts";
import { CommandRefused, customCommand } from "./command_policy.ts";
import { RunError, runProgram } from "./command_runner.ts";
import { clientIp, type CompanionEnv, failure, json, withFields } from "./http_util.ts";
import { lockedMessage, Lockout, type LockoutPolicy } from "./lockout.ts";
import { joinFragments, type PasswordHasher } from "./passwords.ts";

/** Settings (the configuration's `command` section). */
export interface CommandSettings {
  readonly password_hash: string;
  readonly commands: Readonly<Record<string, readonly string[]>>;
  readonly allow_custom: boolean;
  readonly cwd: string;
  readonly timeout_secs: number;
  readonly max_output_bytes: number;
  readonly max_concurrent: number;
  readonly audit_retention_days: number;
  readonly lockout: LockoutPolicy;
}

/** Dependencies of {@link CommandService}. */
export interface CommandDeps {
  readonly settings: CommandSettings;
  readonly hasher: PasswordHasher;
  readonly audit: AuditStore;
  readonly clock: Clock;
  readonly log: Logger;
}

const DAY_MS = 86_400_000;

/** The service. */
export class CommandService {
  readonly app: Hono<CompanionEnv>;
  readonly #d: CommandDeps;
  readonly #lockout: Lockout;
  #running = 0;
  #pruneTimer: TimerHandle | undefined;

  constructor(d: CommandDeps) {
    this.#d = d;
    this.#lockout = new Lockout(d.settings.lockout);
    this.app = new Hono<CompanionEnv>();
    this.app.post("/execute", (c) => withFields(c, (f) => this.execute(clientIp(c), f)));
  }

  /** Prunes old audit entries now and daily. */
  async start(): Promise<void> {
    await this.#prune();
  }

  /** Stops the daily prune. */
  stop(): void {
    this.#d.clock.clearTimeout(this.#pruneTimer);
  }

  async #prune(): Promise<void> {
    await this.#d.audit.prune(this.#d.clock.now() - this.#d.settings.audit_retention_days * DAY_MS).catch((e) =>
      this.#d.log.error("cannot prune the command audit log", { error: String(e) })
    );
    this.#pruneTimer = this.#d.clock.setTimeout(() => void this.#prune(), DAY_MS);
  }

  async #audit(e: Omit<AuditEntry, "at">): Promise<void> {
    const entry = { ...e, at: this.#d.clock.now() };
    const fields = { ip: e.ip, outcome: e.outcome, alias: e.alias ?? undefined, command: e.command ?? undefined };
    if (e.outcome === "ok") this.#d.log.info("command run", { ...fields, exit_code: e.exitCode });
    else this.#d.log.warn("command request refused or failed", { ...fields, detail: e.detail });
    // The request is answered even when the audit write fails; the failure is logged loudly.
    await this.#d.audit.record(entry).catch((error) =>
      this.#d.log.error("cannot write the command audit log", { error: String(error) })
    );
  }

  /** Handles one request's fields from address `ip`. */
  async execute(ip: string, f: Record<string, unknown>): Promise<Response> {
    const s = this.#d.settings;
    const alias = typeof f.cmd === "string" ? f.cmd.slice(0, 100) : null;
    const text = alias === "custom" && typeof f.custom_cmd === "string" ? f.custom_cmd : null;
    const base = { ip, alias, command: text, exitCode: null, durationMs: null };
    const locked = this.#lockout.lockedFor(ip, this.#d.clock.now());
    if (locked) {
      await this.#audit({ ...base, outcome: "refused_locked", detail: "address locked out" });
      return failure(429, lockedMessage(locked), { "retry-after": String(Math.ceil(locked / 1000)) });
    }
    if (!s.password_hash) {
      await this.#audit({ ...base, outcome: "refused_unconfigured", detail: "no password hash configured" });
      return failure(503, "Command service is not configured: set command.password_hash");
    }
    const secret = joinFragments([f.pwd1, f.pwd2, f.pwd3].map((v) => typeof v === "string" ? v : null));
    if (secret === null || !(await this.#d.hasher.verify(s.password_hash, secret))) {
      const lock = this.#lockout.fail(ip, this.#d.clock.now());
      await this.#audit({
        ...base,
        outcome: "refused_auth",
        detail: secret === null ? "password fragments missing" : "wrong password",
      });
      return lock
        ? failure(429, lockedMessage(lock), { "retry-after": String(Math.ceil(lock / 1000)) })
        : failure(403, "Authentication failed");
    }
    this.#lockout.succeed(ip);

    let argv: readonly string[];
    if (alias === "custom") {
      if (!s.allow_custom) {
        await this.#audit({ ...base, outcome: "refused_command", detail: "custom commands are disabled" });
        return failure(403, "Custom commands are disabled");
      }
      if (text === null || text.trim() === "") {
        await this.#audit({ ...base, outcome: "refused_command", detail: "no custom command" });
        return failure(400, "Custom command required");
      }
      try {
        argv = customCommand(text);
      } catch (error) {
        if (!(error instanceof CommandRefused)) throw error;
        await this.#audit({ ...base, outcome: "refused_command", detail: error.message });
        return failure(400, error.message);
      }
    } else {
      const mapped = alias === null ? undefined : Object.hasOwn(s.commands, alias) ? s.commands[alias] : undefined;
      if (!mapped) {
        await this.#audit({ ...base, outcome: "refused_command", detail: "unknown alias" });
        return failure(400, "Invalid command alias");
      }
      argv = mapped;
    }
    if (this.#running >= s.max_concurrent) {
      await this.#audit({ ...base, outcome: "refused_busy", detail: "another command is running" });
      return failure(429, "Another command is running; try again later");
    }
    this.#running++;
    try {
      return await this.#run(base, alias === "custom" ? text! : alias!, argv);
    } finally {
      this.#running--;
    }
  }

  async #run(base: Omit<AuditEntry, "at" | "outcome" | "detail">, shown: string, argv: readonly string[]) {
    const s = this.#d.settings;
    let result;
    try {
      result = await runProgram(argv, {
        cwd: s.cwd,
        timeoutMs: s.timeout_secs * 1000,
        maxOutputBytes: s.max_output_bytes,
        clock: this.#d.clock,
      });
    } catch (error) {
      if (!(error instanceof RunError)) throw error;
      await this.#audit({ ...base, outcome: "error", detail: error.message });
      return failure(400, `Command failed: ${error.message}`);
    }
    const done = { ...base, exitCode: result.code, durationMs: result.durationMs };
    const extra = { command: shown, result: result.stdout, truncated: result.truncated };
    if (result.timedOut) {
      await this.#audit({ ...done, outcome: "timeout", detail: `timed out after ${s.timeout_secs} s` });
      return json({ status: "error", message: `Command timed out after ${s.timeout_secs} s`, ...extra }, 504);
    }
    if (result.code !== 0) {
      const why = result.code === null ? "killed by a signal" : `exit ${result.code}`;
      await this.#audit({ ...done, outcome: "failed", detail: result.stderr.slice(0, 500) });
      return json({ status: "error", message: `Command failed (${why}): ${result.stderr}`, ...extra }, 400);
    }
    await this.#audit({ ...done, outcome: "ok", detail: result.truncated ? "output truncated" : "" });
    return json({ status: "success", ...extra, exit_code: 0 });
  }
}
