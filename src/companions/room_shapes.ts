/**
 * The room lists the `api` service polls, in every shape servers send: the
 * profile R list `[{name, data: {host, users, state, chart, ...}}]`
 * (docs/http.md, HSN's servers), the flat list `[{name, host, users,
 * state, ...}]` the original poller read (peers §5.3: it read only this one,
 * so it skipped every room of the first shape), and the profile S object
 * `{rooms: [...]}`. Users and hosts may be ids or `{id, ...}` objects; states
 * strings (`PLAYING`, `Playing`, `playing`) or `{type}` objects.
 *
 * @module
 */

import { stateOf, type TrackedState } from "./log_lines.ts";

/** A room as the poller records it. */
export interface PolledRoom {
  readonly name: string;
  readonly host: number | null;
  /** Players in list order, without duplicates. */
  readonly users: number[];
  readonly state: TrackedState;
  readonly chart: number | null;
  /** Players still playing when the server says (`playing_users`), else null. */
  readonly playing: number[] | null;
}

function id(v: unknown): number | null {
  if (typeof v === "object" && v !== null && "id" in v) v = (v as { id: unknown }).id;
  const n = typeof v === "number" ? v : typeof v === "string" && /^-?\d{1,10}$/.test(v) ? Number(v) : NaN;
  return Number.isSafeInteger(n) ? n : null;
}

function ids(v: unknown): number[] | null {
  if (!Array.isArray(v)) return null;
  const out: number[] = [];
  for (const item of v) {
    const n = id(item);
    if (n !== null && !out.includes(n)) out.push(n);
  }
  return out;
}

function state(v: unknown): TrackedState {
  if (typeof v === "object" && v !== null && "type" in v) v = (v as { type: unknown }).type;
  return typeof v === "string" ? stateOf(v) : "unknown";
}

function room(item: unknown): PolledRoom | null {
  if (typeof item !== "object" || item === null) return null;
  const outer = item as Record<string, unknown>;
  const data = typeof outer.data === "object" && outer.data !== null && !Array.isArray(outer.data)
    ? outer.data as Record<string, unknown>
    : outer;
  const name = outer.name ?? outer.id ?? data.name;
  if (typeof name !== "string" || name === "" || name.length > 64) return null;
  const users = ids(data.users) ?? [];
  const chart = data.chart === null || data.chart === undefined ? null : id(data.chart);
  return {
    name,
    host: data.host === undefined ? null : id(data.host),
    users,
    state: state(data.state),
    chart: chart !== null && chart >= 0 ? chart : null,
    playing: ids(data.playing_users),
  };
}

/**
 * The rooms of a polled body, or null when the body is no room list at all
 * (so the poller reports a bad answer instead of every room having gone).
 * Items that are not rooms are skipped.
 */
export function normalizeRooms(body: unknown): PolledRoom[] | null {
  const list = Array.isArray(body)
    ? body
    : typeof body === "object" && body !== null && Array.isArray((body as { rooms?: unknown }).rooms)
    ? (body as { rooms: unknown[] }).rooms
    : null;
  if (!list) return null;
  const out: PolledRoom[] = [];
  const seen = new Set<string>();
  for (const item of list) {
    const r = room(item);
    if (r && !seen.has(r.name)) {
      seen.add(r.name);
      out.push(r);
    }
  }
  return out;
}
