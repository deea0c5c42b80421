import { deepEqual, equal } from "node:assert/strict";
import { LOCALES, resolveLocale, TABLES, translate, translatePlural } from "./mod.ts";

Deno.test("every locale has exactly the key set of en-US", () => {
  const keys = Object.keys(TABLES["en-US"]).sort();
  for (const locale of LOCALES) {
    deepEqual(Object.keys(TABLES[locale]).sort(), keys, locale);
    for (const key of keys) equal(typeof TABLES[locale][key as keyof (typeof TABLES)["en-US"]], "string");
  }
});

Deno.test("placeholders in every locale match en-US", () => {
  const names = (s: string) => [...s.matchAll(/\{([a-z_]+)\}/g)].map((m) => m[1]).sort();
  for (const locale of LOCALES) {
    for (const [key, text] of Object.entries(TABLES["en-US"])) {
      deepEqual(names(TABLES[locale][key as keyof (typeof TABLES)["en-US"]]), names(text), `${locale} ${key}`);
    }
  }
});

Deno.test("resolveLocale maps tags and falls back to en-US", () => {
  equal(resolveLocale("zh-CN"), "zh-CN");
  equal(resolveLocale("zh_CN"), "zh-CN");
  equal(resolveLocale("zh-Hans"), "zh-CN");
  equal(resolveLocale("zh-TW"), "zh-TW");
  equal(resolveLocale("zh-Hant-HK"), "zh-TW");
  equal(resolveLocale("en-US"), "en-US");
  equal(resolveLocale("ja-JP"), "en-US");
  equal(resolveLocale("!!"), "en-US");
  equal(resolveLocale(undefined), "en-US");
});

Deno.test("translate fills placeholders and keeps official strings", () => {
  equal(translate("en-US", "create-id-occupied"), "Room ID is occupied");
  equal(translate("zh-TW", "join-room-full"), "房間已滿");
  equal(translate("en-US", "chat-too-long", { max: 200 }), "Message is too long (at most 200 characters)");
  equal(translate("en-US", "chart-fallback-name", { id: 42 }), "#42");
});

Deno.test("translatePlural picks the form the count takes: English 1 player, 2 players; Chinese one form", () => {
  equal(translatePlural("en-US", "players-online", 0), "0 players online");
  equal(translatePlural("en-US", "players-online", 1), "1 player online");
  equal(translatePlural("en-US", "players-online", 2), "2 players online");
  equal(translatePlural("en-US", "players-online", 21), "21 players online");
  equal(translatePlural("zh-CN", "players-online", 1), "当前在线 1 人");
  equal(translatePlural("zh-TW", "players-online", 3), "目前在線 3 人");
});
