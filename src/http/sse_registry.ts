/**
 * SSE streams registered at run time (spec 1 §4.3 rule 2): a path, a list
 * of event types (empty = all), and a translate callback whose null result
 * skips the event. The host filters by type before calling the callback,
 * sends `ready` first and a keep-alive every 15 s. A stream registered while
 * the server runs is served at once; registering a path again replaces it.
 *
 * The profile R stream `/api/rooms/listen` is itself an entry here (rule 3),
 * registered by the host with `ready: false` and `keepalive` events, so a
 * plugin can replace it. Any other path a built-in route answers
 * (`/api/events`, `/api/rooms/<name>`, ...) is refused: the built-in would be
 * served instead.
 *
 * @module
 */

import { type BuiltinRoutes, NO_BUILTINS } from "./builtin_routes.ts";
import { canonicalEventName, HUB_EVENT_NAMES, type HubEventName } from "./hub.ts";
import { normalizeRoutePath } from "./route_registry.ts";

/** What translate receives: the hub event type and its JSON payload. */
export interface SseInput {
  readonly event_type: HubEventName;
  readonly data: Readonly<Record<string, unknown>>;
}

/** What translate returns: the SSE event name and the JSON data to send. */
export interface SseOutput {
  readonly event: string;
  readonly data: unknown;
}

/**
 * A translate callback; null skips the event. Throwing (or rejecting) skips
 * it too, and is logged. It may answer asynchronously (a plugin in another
 * thread or process): each connection then translates one event at a time,
 * in order, and an answer that takes longer than {@link TRANSLATE_TIMEOUT_MS}
 * skips that event, so one stuck call cannot stall a stream for good.
 */
export type SseTranslate = (input: SseInput) => SseOutput | null | Promise<SseOutput | null>;

/** Longest wait for an asynchronous translation (spec 3 §8 plugin call timeout, 2 s). */
export const TRANSLATE_TIMEOUT_MS = 2000;

/** How a stream keeps the connection open. */
export type KeepAliveStyle = "comment" | "event";

/** Registration of a stream. */
export interface SseStreamSpec {
  readonly path: string;
  /** Event types to deliver; empty = all. Case and punctuation are ignored (`CreateRoom` = `create_room`). */
  readonly events: readonly string[];
  readonly translate: SseTranslate;
  /** Who registered it (plugin id); default `plugin`. */
  readonly owner?: string;
  /** Send `ready` first (default true; spec 1 §4.3 rule 2). */
  readonly ready?: boolean;
  /** `comment` (`: keep-alive`, default) or `event` (`event: keepalive`, profile R §6). */
  readonly keepAlive?: KeepAliveStyle;
}

/** A registered stream. */
export interface RegisteredStream {
  readonly path: string;
  readonly owner: string;
  /** Wanted hub events; null = all. */
  readonly events: ReadonlySet<HubEventName> | null;
  readonly translate: SseTranslate;
  readonly ready: boolean;
  readonly keepAlive: KeepAliveStyle;
}

/** Filter names by canonical spelling, with the legacy plugin-event aliases (extended.md §2.18). */
const CANONICAL: ReadonlyMap<string, HubEventName> = new Map<string, HubEventName>([
  ...HUB_EVENT_NAMES.map((n) => [canonicalEventName(n), n] as const),
  ["roomcreate", "create_room"],
  ["roommodify", "update_room"],
  ["roomupdate", "update_room"],
  ["roomjoin", "join_room"],
  ["roomleave", "leave_room"],
  ["roomdelete", "delete_room"],
  ["roundcomplete", "new_round"],
  ["gamestart", "start_round"],
]);

/** The hub event a filter name means; throws a RangeError for an unknown name. */
export function resolveEventName(name: string): HubEventName {
  const found = CANONICAL.get(canonicalEventName(name));
  if (!found) {
    throw new RangeError(`Cannot filter on event type "${name}": expected one of ${HUB_EVENT_NAMES.join(", ")}`);
  }
  return found;
}

/** The registry of SSE streams. */
export class SseRegistry {
  readonly #streams = new Map<string, RegisteredStream>();
  readonly #limit: number;
  #builtins: BuiltinRoutes;

  /**
   * At most `limit` streams (default 256); `builtins` are the host's routes a
   * stream may not shadow (the HTTP app sets them from its own routes, the
   * profile R stream left out).
   */
  constructor(limit = 256, builtins: BuiltinRoutes = NO_BUILTINS) {
    this.#limit = limit;
    this.#builtins = builtins;
  }

  /** Sets the host's routes; streams registered earlier that they shadow are removed and returned. */
  setBuiltins(builtins: BuiltinRoutes): string[] {
    this.#builtins = builtins;
    const dropped = [...this.#streams.keys()].filter((path) => builtins.shadowing(path) !== null);
    for (const path of dropped) this.#streams.delete(path);
    return dropped;
  }

  /** Registers (or replaces) a stream; returns its normalized path. */
  register(spec: SseStreamSpec): string {
    const path = normalizeRoutePath(spec.path);
    if (path.includes("/:")) throw new RangeError(`Cannot register stream "${path}": streams take no path parameters`);
    const builtin = this.#builtins.shadowing(path);
    if (builtin) {
      throw new RangeError(`Cannot register stream "${path}": the built-in route "${builtin}" answers that path first`);
    }
    if (!this.#streams.has(path) && this.#streams.size >= this.#limit) {
      throw new RangeError(`Cannot register stream "${path}": the limit of ${this.#limit} streams is reached`);
    }
    const events = spec.events.length ? new Set(spec.events.map(resolveEventName)) : null;
    this.#streams.set(path, {
      path,
      owner: spec.owner ?? "plugin",
      events,
      translate: spec.translate,
      ready: spec.ready ?? true,
      keepAlive: spec.keepAlive ?? "comment",
    });
    return path;
  }

  /** Removes a stream (open connections keep running until they close); false when unknown. */
  unregister(path: string): boolean {
    return this.#streams.delete(normalizeRoutePath(path));
  }

  /** Removes every stream of `owner`; returns how many. */
  unregisterOwner(owner: string): number {
    let n = 0;
    for (const [path, s] of this.#streams) {
      if (s.owner === owner) {
        this.#streams.delete(path);
        n++;
      }
    }
    return n;
  }

  /** The stream at exactly `path`. */
  get(path: string): RegisteredStream | undefined {
    return this.#streams.get(path);
  }

  /** Registered streams. */
  list(): RegisteredStream[] {
    return [...this.#streams.values()];
  }
}
