/**
 * The admin panel's words (`static/admin/messages.js`): every key the page
 * uses — in `admin.js` calls, in `index.html` attributes, and the room
 * states the API sends — has an English text, plural keys have their
 * `one` and `other` forms, and every `{name}` a text uses is one the page
 * passes. A language added later is checked the same way against English.
 */
import { deepEqual, ok } from "node:assert/strict";
import { STATE_JSON } from "../src/http/json.ts";

const dir = new URL("../static/admin/", import.meta.url);
const read = (name: string) => Deno.readTextFileSync(new URL(name, dir));

type Tables = Record<string, Record<string, string>>;

function tables(): Tables {
  const scope: { CHORUS_ADMIN_MESSAGES?: Tables } = {};
  new Function("globalThis", read("messages.js"))(scope);
  ok(scope.CHORUS_ADMIN_MESSAGES, "messages.js defines CHORUS_ADMIN_MESSAGES");
  return scope.CHORUS_ADMIN_MESSAGES;
}

const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!).sort();

Deno.test("admin panel messages: every key the page uses has English text", () => {
  const en = tables().en!;
  const script = read("admin.js");
  const page = read("index.html");
  // Every key-like string literal of the script (`t("…")`, `tn("…")`, `badge("…")`, toggle texts, ternaries), every
  // key of the page's attributes, and the keys built at run time: the room states and the room flags.
  const literals = [...script.matchAll(/"([a-z_]+\.[A-Za-z_.]+)"/g)].map((m) => m[1]!);
  const used = new Set<string>([
    ...literals,
    ...[...page.matchAll(/data-i18n(?:-placeholder)?="([\w.]+)"/g)].map((m) => m[1]!),
    ...Object.values(STATE_JSON).map((s) => `state.${s}`),
    ...["hidden", "persistent", "tournament", "live"].map((f) => `rooms.${f}`),
  ]);
  ok(used.size > 80, `found the keys (${used.size})`);
  // A plural key is used bare (`tn("store.pending", n)`) and needs its `one` and `other` forms.
  const missing = [...used].filter((k) => !(k in en) && !(`${k}.one` in en && `${k}.other` in en));
  deepEqual(missing, []);
  // The readable states are words, not the API's constants.
  for (const s of Object.values(STATE_JSON)) ok(!en[`state.${s}`]!.includes("_"), s);
});

Deno.test("admin panel messages: every language has the same placeholders as English", () => {
  const all = tables();
  const en = all.en!;
  for (const [lang, table] of Object.entries(all)) {
    for (const [key, text] of Object.entries(table)) {
      const base = en[key] ?? en[key.replace(/\.(zero|one|two|few|many|other)$/, ".other")];
      ok(base !== undefined, `${lang}: ${key} is not an English key`);
      deepEqual(placeholders(text), placeholders(base), `${lang}: ${key}`);
    }
  }
});
