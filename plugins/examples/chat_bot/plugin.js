// chat_bot — welcomes players and answers `!rank` in room chat.
//
// * When a player connects, it sends them a welcome line. The text is the configuration key
//   `welcome` (set it with the phira-config functions, or edit data/plugins/chat_bot/config.json
//   and run `plugin call chat_bot reload`); `{name}` is replaced by the player's name.
// * It registers the handler `chat.rank`. A handler named `chat.<word>` answers the chat command
//   `!<word>` typed in any room: the host calls on-api("chat.rank", [user-id, room-id, rest of line])
//   and sends the text returned to that player. The same handler is the console command
//   `chat rank <user-id>` and the operation `chat.rank`.
// * The rank comes from the store: playtime of every player who ever played (persist.top_playtime).
//
// Build: deno task build-plugins plugins/examples/chat_bot   (componentize-js, about 13 MB)
// Install: copy dist/plugins/chat_bot.wasm into plugins_dir; the default capabilities suffice
// (state.read, send, config, plugin.register).

import { apiCall, log } from "phira:plugin/phira-host@0.3.0";
import { sendToUser } from "phira:plugin/phira-messaging@0.3.0";
import { getConfig, reloadConfig, setConfig } from "phira:plugin/phira-config@0.3.0";
import { registerHandler } from "phira:plugin/phira-handler@0.3.0";

const DEFAULT_WELCOME = "Welcome, {name}! Type !rank in a room to see where you stand.";

function json(value) {
  if (value === null || value === undefined) return { tag: "null" };
  if (typeof value === "boolean") return { tag: "flag", val: value };
  if (typeof value === "number") {
    return Number.isInteger(value) ? { tag: "integer", val: BigInt(value) } : { tag: "float", val: value };
  }
  if (typeof value === "string") return { tag: "text", val: value };
  return Array.isArray(value)
    ? { tag: "array", val: JSON.stringify(value) }
    : { tag: "object", val: JSON.stringify(value) };
}

function plain(value) {
  switch (value.tag) {
    case "null":
      return null;
    case "integer":
      return Number(value.val);
    case "array":
    case "object":
      return JSON.parse(value.val);
    default:
      return value.val;
  }
}

/** An api-result's value, or throws its error text. */
function unwrap(result) {
  if (result.tag === "error") throw result.val;
  return plain(result.val);
}

function call(method, ...args) {
  return unwrap(apiCall(method, args.map(json)));
}

function welcomeText() {
  const configured = unwrap(getConfig("welcome"));
  return typeof configured === "string" && configured ? configured : DEFAULT_WELCOME;
}

function duration(seconds) {
  const minutes = Math.floor(seconds / 60);
  return minutes >= 60 ? `${Math.floor(minutes / 60)} h ${minutes % 60} min` : `${minutes} min`;
}

/** `!rank`: the caller's place by playtime. */
function rank(userId) {
  const { entries } = call("persist.top_playtime", { limit: 100 });
  const place = entries.findIndex((e) => e.user_id === userId);
  if (place === -1) return "You are not in the top 100 by playtime yet. Keep playing!";
  const me = entries[place];
  return `#${place + 1} of ${entries.length} by playtime (${duration(me.seconds)}).`;
}

export function init() {
  if (unwrap(getConfig("welcome")) === null) unwrap(setConfig("welcome", JSON.stringify(DEFAULT_WELCOME)));
  registerHandler({ method: "chat.rank", description: "your rank by playtime: !rank" });
  log("info", "chat bot ready");
}

export function getInfo() {
  return { name: "chat_bot", version: "1.0.0", author: "Chorus", description: "welcome lines and !rank" };
}

export function cleanup() {}

export function onEvent(event) {
  if (event.tag !== "user-connect") return false;
  const { userId, userName } = event.val;
  const result = sendToUser(userId, welcomeText().replaceAll("{name}", userName));
  if (result.tag === "error") log("warn", `welcome not sent: ${result.val}`);
  return true;
}

export function onApi(method, args) {
  try {
    if (method === "chat.rank") return { tag: "ok", val: json(rank(Number(plain(args[0])))) };
    if (method === "reload") return { tag: "ok", val: json(unwrap(reloadConfig())) };
    return { tag: "error", val: `unknown method ${method}` };
  } catch (error) {
    return { tag: "error", val: String(error) };
  }
}
