/**
 * The welcome message sent as system chat lines after a player logs in
 * (spec 3 §2.3 `welcome`, spec 2 §4.2). Lines come from
 * `welcome.messages[<language>]` in the configuration, else from the built-in
 * localized default; placeholders in square brackets are filled in. Unknown
 * bracketed text is left as written.
 *
 * @module
 */

import { type Locale, translate, translatePlural } from "../l10n/mod.ts";
import type { Room } from "../room/mod.ts";
import type { PlaytimeEntry, PlaytimeSource } from "./playtime.ts";

/** What the welcome message can show. */
export interface WelcomeContext {
  readonly userId: number;
  readonly userName: string;
  readonly language: string;
  readonly locale: Locale;
  readonly serverName: string;
  readonly playersOnline: number;
  /** Unix milliseconds. */
  readonly now: number;
  readonly showTime: boolean;
  readonly rooms: Iterable<Room>;
  /** Playtime figures the lines need, fetched beforehand by {@link renderWelcome}. */
  readonly playtime: PlaytimeFigures;
  readonly nameOf: (id: number) => string | undefined;
}

/** Playtime values resolved ahead of rendering (the durable source is asynchronous). */
export interface PlaytimeFigures {
  /** Seconds per user id that a line asks for. */
  readonly seconds: ReadonlyMap<number, number>;
  readonly top: readonly PlaytimeEntry[];
}

/** The built-in lines per locale (spec: "default built-in and localized"). */
export function defaultWelcome(locale: Locale): string[] {
  return translate(locale, "welcome-default").split("\n");
}

/** The configured lines for a language tag, trying the tag, its resolved locale, then `default`. */
export function configuredWelcome(
  messages: Readonly<Record<string, readonly string[]>>,
  language: string,
  locale: Locale,
): readonly string[] | null {
  const byLower = new Map(Object.entries(messages).map(([k, v]) => [k.toLowerCase(), v]));
  return byLower.get(language.toLowerCase()) ?? byLower.get(locale.toLowerCase()) ?? byLower.get("default") ?? null;
}

function hours(seconds: number, locale: Locale): string {
  return translate(locale, "welcome-hours", { hours: (seconds / 3600).toFixed(1) });
}

/** Joinable rooms: selecting a chart, not locked, not hidden (at most 10). */
export function joinableRooms(rooms: Iterable<Room>): Room[] {
  const out: Room[] = [];
  for (const r of rooms) {
    if (r.phase.kind === "select" && !r.locked && !r.hidden && !r.degraded) out.push(r);
    if (out.length === 10) break;
  }
  return out;
}

/** Fills the placeholders of one line. */
export function renderWelcomeLine(line: string, w: WelcomeContext): string {
  return line.replace(/\[([a-z_-]+)(?: (-?\d+))?\]/g, (whole, name: string, arg?: string) => {
    switch (name) {
      case "user_name":
        return w.userName;
      case "user_id":
        return String(w.userId);
      case "player-count":
      case "players":
        return String(w.playersOnline);
      case "players-online":
        // "1 player online" / "2 players online" (spec 3 §2.3 default text, in the reader's plural rules).
        return translatePlural(w.locale, "players-online", w.playersOnline);
      case "server_name":
        return w.serverName;
      case "time":
        return w.showTime ? String(Math.floor(w.now / 1000)) : whole;
      case "playtime":
        return hours(w.playtime.seconds.get(arg === undefined ? w.userId : Number(arg)) ?? 0, w.locale);
      case "top_playtime": {
        const top = w.playtime.top;
        if (!top.length) return translate(w.locale, "welcome-no-playtime");
        return top.map((e, i) => `#${i + 1} ${w.nameOf(e.user_id) ?? e.name} ${hours(e.seconds, w.locale)}`).join(
          " | ",
        );
      }
      case "active_rooms": {
        const rooms = joinableRooms(w.rooms);
        if (!rooms.length) return translate(w.locale, "welcome-no-rooms");
        return rooms.map((r) => {
          const host = r.hostId !== null && r.hostId > 0 ? (w.nameOf(r.hostId) ?? `#${r.hostId}`) : "-";
          return translate(w.locale, "welcome-room", {
            room: r.id,
            host,
            players: r.players.length,
            max: r.maxPlayers,
          });
        }).join("; ");
      }
      default:
        return whole;
    }
  });
}

/** The welcome lines for one login; playtime figures are fetched first. */
export async function renderWelcome(
  messages: Readonly<Record<string, readonly string[]>>,
  w: Omit<WelcomeContext, "playtime">,
  source: PlaytimeSource,
): Promise<string[]> {
  const lines = configuredWelcome(messages, w.language, w.locale) ?? defaultWelcome(w.locale);
  const text = lines.join("\n");
  const ids = new Set<number>();
  for (const m of text.matchAll(/\[playtime(?: (-?\d+))?\]/g)) ids.add(m[1] === undefined ? w.userId : Number(m[1]));
  const seconds = new Map<number, number>();
  for (const id of ids) seconds.set(id, await source.seconds(id));
  const top = text.includes("[top_playtime]") ? await source.top(10) : [];
  const ctx: WelcomeContext = { ...w, playtime: { seconds, top } };
  return lines.map((line) => renderWelcomeLine(line, ctx));
}
