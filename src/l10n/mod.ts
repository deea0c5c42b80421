/**
 * Localization: message tables for en-US, zh-CN and zh-TW with one key set,
 * and language resolution from the upstream `/me` `language` string.
 *
 * The official server panics on a well-formed tag it has no table for (e.g.
 * `ja-JP`, protocol.md §5.4); here anything unknown falls back to en-US.
 *
 * @module
 */

import { EN_US, type MessageKey } from "./en_us.ts";
import { ZH_CN } from "./zh_cn.ts";
import { ZH_TW } from "./zh_tw.ts";

export type { MessageKey } from "./en_us.ts";

/** Supported locales. */
export const LOCALES = ["en-US", "zh-CN", "zh-TW"] as const;
/** A supported locale. */
export type Locale = (typeof LOCALES)[number];

/** Message tables by locale. */
export const TABLES: Readonly<Record<Locale, Readonly<Record<MessageKey, string>>>> = {
  "en-US": EN_US,
  "zh-CN": ZH_CN,
  "zh-TW": ZH_TW,
};

const TRADITIONAL = new Set(["tw", "hk", "mo", "hant"]);

/** Maps a language tag (`zh_CN`, `zh-Hant-TW`, `ja-JP`, garbage) to a supported locale. */
export function resolveLocale(tag: string | null | undefined): Locale {
  const parts = (tag ?? "").trim().toLowerCase().replaceAll("_", "-").split("-");
  if (parts[0] !== "zh") return "en-US";
  return parts.slice(1).some((p) => TRADITIONAL.has(p)) ? "zh-TW" : "zh-CN";
}

/** Values substituted into `{name}` placeholders. */
export type MessageArgs = Readonly<Record<string, string | number>>;

/** Renders a message in a locale. Unknown placeholders are left as written. */
export function translate(locale: Locale, key: MessageKey, args?: MessageArgs): string {
  const template = TABLES[locale][key];
  if (!args) return template;
  return template.replace(/\{([a-z_]+)\}/g, (whole, name: string) => (name in args ? String(args[name]) : whole));
}

/** A localizable text: key plus arguments, rendered per recipient. */
export interface LocalText {
  readonly key: MessageKey;
  readonly args?: MessageArgs;
}

/** Message keys that come in plural forms: `<base>-one` and `<base>-other` (CLDR categories). */
export type PluralBase = MessageKey extends infer K ? K extends `${infer B}-other` ? B : never : never;

/**
 * Renders the form of `<base>-one` / `<base>-other` that `count` takes in `locale` (CLDR plural rules via
 * `Intl.PluralRules`: English says "1 player", "2 players"; Chinese has one form, so both keys hold the same text).
 * `count` is passed as the `{count}` placeholder.
 */
export function translatePlural(locale: Locale, base: PluralBase, count: number, args: MessageArgs = {}): string {
  const category = new Intl.PluralRules(locale).select(count);
  const key = (category === "one" ? `${base}-one` : `${base}-other`) as MessageKey;
  return translate(locale, key, { ...args, count });
}
