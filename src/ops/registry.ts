/**
 * The dispatcher of the operations layer: operations are registered by name
 * (built-in ones at start-up, plugin hosts' ones at run time) and called by
 * name with arguments and an actor. {@link Ops.call} resolves the name or an
 * alias, checks the actor's permission, validates the arguments (named or
 * positional form), runs the operation, audits calls that change state and
 * maps every failure to an {@link OpsError}.
 *
 * @module
 */

import * as z from "../util/zod.ts";
import type { Logger } from "../util/log.ts";
import { type Actor, actorLabel, describeActor, type Permission, permits } from "./actor.ts";
import { validateArgs } from "./args.ts";
import { AuditLog } from "./audit.ts";
import { OpsError, type OpsErrorCode, toOpsError } from "./errors.ts";
import type { Operation } from "./op.ts";

/** Options of {@link Ops}. */
export interface OpsOptions<C> {
  /** What the operations reach (`OpsServices` for the built-in ones). */
  readonly context: C;
  /** Unix milliseconds, for audit entries (the server clock). */
  readonly now: () => number;
  readonly log?: Logger;
  /** Audit entries kept (default 1000). */
  readonly auditCapacity?: number;
}

/** Options of one call. */
export interface CallOptions {
  /** Where the operation's deferred work goes (OpenUDS: after the response is written); default: right after. */
  readonly defer?: (fn: () => void) => void;
}

/** Outcome of {@link Ops.tryCall}. */
export type OpsOutcome =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly error: OpsError };

/** What `ops.list` shows of an operation. */
export interface OpInfo {
  readonly name: string;
  readonly aliases: readonly string[];
  readonly summary: string;
  readonly permission: Permission;
  readonly mutates: boolean;
  /** Parameter names in positional order. */
  readonly params: readonly string[];
  /** Who registered it: `builtin`, a plugin id, ... */
  readonly owner: string;
}

interface Entry<C> {
  readonly op: Operation<C>;
  readonly owner: string;
}

/** The registry and dispatcher of operations. */
export class Ops<C> {
  /** What the operations reach. */
  readonly context: C;
  /** Calls of operations that change state. */
  readonly audit: AuditLog;
  readonly #byName = new Map<string, Entry<C>>();
  readonly #now: () => number;
  readonly #log: Logger | undefined;

  constructor(options: OpsOptions<C>) {
    this.context = options.context;
    this.#now = options.now;
    this.#log = options.log;
    this.audit = new AuditLog(options.auditCapacity);
  }

  /**
   * Adds an operation under its name and aliases; throws a TypeError when one
   * of them is taken. Returns a function that removes it again.
   */
  register(op: Operation<C>, owner = "builtin"): () => void {
    for (const name of [op.name, ...op.aliases]) {
      if (this.#byName.has(name)) throw new TypeError(`Cannot register operation "${name}": the name is taken`);
    }
    const entry = { op, owner };
    for (const name of [op.name, ...op.aliases]) this.#byName.set(name, entry);
    return () => {
      if (this.#byName.get(op.name) === entry) this.unregister(op.name);
    };
  }

  /**
   * Adds an operation, first removing whatever is registered under its names
   * (a plugin host taking over the built-in `plugin.*` placeholders).
   */
  replace(op: Operation<C>, owner = "builtin"): () => void {
    for (const name of [op.name, ...op.aliases]) this.unregister(name);
    return this.register(op, owner);
  }

  /** Removes the operation registered under `name` (with all its names); false when there is none. */
  unregister(name: string): boolean {
    const entry = this.#byName.get(name);
    if (!entry) return false;
    for (const n of [entry.op.name, ...entry.op.aliases]) {
      if (this.#byName.get(n) === entry) this.#byName.delete(n);
    }
    return true;
  }

  /** Removes every operation of `owner` (a plugin being unloaded); returns how many. */
  unregisterOwner(owner: string): number {
    const ops = new Set([...this.#byName.values()].filter((e) => e.owner === owner).map((e) => e.op.name));
    for (const name of ops) this.unregister(name);
    return ops.size;
  }

  /** The operation called `name` (or aliased so). */
  get(name: string): Operation<C> | undefined {
    return this.#byName.get(name)?.op;
  }

  /** True when `name` names an operation. */
  has(name: string): boolean {
    return this.#byName.has(name);
  }

  /** Every operation once, by name. */
  list(): OpInfo[] {
    const seen = new Set<Entry<C>>(this.#byName.values());
    return [...seen].map(({ op, owner }) => ({
      name: op.name,
      aliases: op.aliases,
      summary: op.summary,
      permission: op.permission,
      mutates: op.mutates,
      params: op.positional,
      owner,
    })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /** JSON Schema of an operation's named arguments (for `ops.describe` and plugin handler descriptors). */
  schemaOf(name: string): unknown {
    const op = this.get(name);
    if (!op) return null;
    return z.toJSONSchema(op.schema, { unrepresentable: "any", io: "input" });
  }

  /** Calls `name`; resolves with its JSON result, rejects with an {@link OpsError} only. */
  async call(name: string, args: unknown, actor: Actor, options: CallOptions = {}): Promise<unknown> {
    const outcome = await this.tryCall(name, args, actor, options);
    if (!outcome.ok) throw outcome.error;
    return outcome.value;
  }

  /** Calls `name`; never rejects. */
  async tryCall(name: string, args: unknown, actor: Actor, options: CallOptions = {}): Promise<OpsOutcome> {
    return await this.tryCallNow(name, args, actor, options);
  }

  /**
   * Calls `name` and, when the operation runs synchronously (most changes
   * do), returns its outcome at once; an operation that waits (a lookup in
   * the durable store, an upstream call) gives a promise of it. For callers
   * that cannot wait: a Lua host function runs inside one synchronous Lua
   * call. Permission, validation and audit are those of {@link tryCall}.
   */
  tryCallNow(
    name: string,
    args: unknown,
    actor: Actor,
    options: CallOptions = {},
  ): OpsOutcome | Promise<OpsOutcome> {
    const op = this.get(name);
    if (!op) return { ok: false, error: new OpsError("UNKNOWN_COMMAND", `unknown command: ${name}`) };
    let validated: unknown = args;
    const deferred: (() => void)[] = [];
    const succeed = (value: unknown): OpsOutcome => {
      this.#audit(op, actor, validated, null);
      for (const fn of deferred) (options.defer ?? ((f: () => void) => f()))(fn);
      return { ok: true, value: value ?? null };
    };
    const fail = (thrown: unknown): OpsOutcome => {
      const error = toOpsError(thrown);
      if (error.code === "INTERNAL") {
        this.#log?.error("operation failed", { op: op.name, ...actorLabel(actor), error: String(thrown) });
      }
      this.#audit(op, actor, validated, error);
      return { ok: false, error };
    };
    try {
      if (!permits(actor, op.permission)) {
        throw new OpsError(
          "FORBIDDEN",
          `${describeActor(actor)} may not call ${op.name}: it needs the ${op.permission} permission`,
        );
      }
      validated = validateArgs(op as Operation<never>, args);
      const value = op.run(validated as never, {
        actor,
        calledAs: name,
        context: this.context,
        call: (next, nextArgs) => this.call(next, nextArgs ?? {}, actor),
        defer: (fn) => deferred.push(fn),
      });
      if (value instanceof Promise) return value.then(succeed, fail);
      return succeed(value);
    } catch (thrown) {
      return fail(thrown);
    }
  }

  #audit(op: Operation<C>, actor: Actor, args: unknown, error: OpsError | null): void {
    // In-process tools act on their own virtual rooms (thousands of calls per benchmark): not audited.
    if (!op.mutates || actor.kind === "system") return;
    const label = actorLabel(actor);
    const code: OpsErrorCode | null = error?.code ?? null;
    this.audit.record({
      time: this.#now(),
      ...label,
      op: op.name,
      args,
      ok: error === null,
      code,
      message: error?.message ?? null,
    });
    this.#log?.info("operation", { op: op.name, ...label, ok: error === null, ...(code ? { code } : {}) });
  }
}
