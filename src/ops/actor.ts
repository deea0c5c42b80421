/**
 * Who calls an operation, and what they may do. Operators (the terminal
 * console, an in-game administrator, an OpenUDS client, the HTTP admin
 * panel) may call every operation; a plugin only those its capabilities
 * grant (spec 3 §4.6; extended.md §2.18 "capability -> function map"), and
 * never an operator-only one; in-process tools (`system`) act on their own
 * virtual rooms and users.
 *
 * @module
 */

/** The plugin capabilities of spec 3 §4.6 (unknown ones make loading fail). */
export const CAPABILITIES = [
  "state.read",
  "send",
  "ext",
  "config",
  "file.read",
  "file.write",
  "plugin.call",
  "plugin.register",
  "http",
  "room.manage",
  "admin",
  "crypto",
  "timer",
  "tcp",
] as const;

/** A plugin capability. */
export type Capability = (typeof CAPABILITIES)[number];

/** Capabilities every plugin has unless its manifest says otherwise (spec 3 §4.6). */
export const DEFAULT_CAPABILITIES: readonly Capability[] = [
  "state.read",
  "send",
  "ext",
  "config",
  "file.read",
  "file.write",
  "plugin.call",
  "plugin.register",
];

/** What an operation requires: a plugin capability, or `operator` (people and in-process tools only). */
export type Permission = Capability | "operator";

/** Who calls. */
export type Actor =
  /** The terminal console or terminal UI of the process. */
  | { readonly kind: "console" }
  /** An administrator through the in-game console (spec 3 §4.2). */
  | { readonly kind: "in-game"; readonly userId: number; readonly name: string }
  /** An authenticated OpenUDS client (spec 3 §4.5). */
  | { readonly kind: "openuds"; readonly session: string }
  /** The logged-in HTTP admin panel, by client address. */
  | { readonly kind: "http-admin"; readonly ip: string }
  /** A plugin (`api-call`, Lua `game.*`): `capabilities` is its whole set (defaults plus granted), absent = {@link DEFAULT_CAPABILITIES}. */
  | { readonly kind: "plugin"; readonly id: string; readonly capabilities?: readonly Capability[] }
  /** In-process tooling (the benchmark); not audited. */
  | { readonly kind: "system"; readonly component: string };

/** True when `actor` may call an operation needing `permission`. */
export function permits(actor: Actor, permission: Permission): boolean {
  if (actor.kind !== "plugin") return true;
  if (permission === "operator") return false;
  return (actor.capabilities ?? DEFAULT_CAPABILITIES).includes(permission);
}

/** The actor as a source and an id, for the input log and the audit log. */
export function actorLabel(actor: Actor): { readonly source: string; readonly actor: string } {
  switch (actor.kind) {
    case "console":
      return { source: "console", actor: "console" };
    case "in-game":
      return { source: "in-game", actor: String(actor.userId) };
    case "openuds":
      return { source: "openuds", actor: actor.session };
    case "http-admin":
      return { source: "http-admin", actor: actor.ip };
    case "plugin":
      return { source: "plugin", actor: actor.id };
    case "system":
      return { source: "system", actor: actor.component };
  }
}

/** The actor in words: `console`, `in-game console (100)`, `openuds <session>`, `plugin <id>`, ... */
export function describeActor(actor: Actor): string {
  switch (actor.kind) {
    case "console":
      return "console";
    case "in-game":
      return `in-game console (${actor.userId})`;
    case "openuds":
      return `openuds ${actor.session}`;
    case "http-admin":
      return `http admin ${actor.ip}`;
    case "plugin":
      return `plugin ${actor.id}`;
    case "system":
      return `system ${actor.component}`;
  }
}

/**
 * True when `actor` may see network addresses of users: people, and plugins
 * granted `admin`. Operations readable with `state.read` leave them out for
 * other plugins.
 */
export function seesAddresses(actor: Actor): boolean {
  return permits(actor, "admin");
}
