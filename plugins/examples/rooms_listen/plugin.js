// rooms_listen — serves the basic room stream `/api/rooms/listen` (spec: profile R) as a plugin.
//
// The host answers that path itself until a plugin registers it; this plugin takes it over and sends
// the profile R events — create_room, update_room, join_room, leave_room, player_score, start_round —
// with no `ready` event and `keepalive` events, as profile R clients expect. Each player_score record
// also carries the player's name (`player_name`), looked up through api-call.
//
// Build: deno task build-plugins plugins/examples/rooms_listen   (componentize-js, about 13 MB)
// Install: copy dist/plugins/rooms_listen.wasm into plugins_dir (no capabilities file needed: the
// default capabilities include state.read and plugin.register).

import { apiCall, log } from "phira:plugin/phira-host@0.3.0";

const PATH = "/api/rooms/listen";
const EVENTS = ["create_room", "update_room", "join_room", "leave_room", "player_score", "start_round"];

/** A plain value as a json-value. */
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

/** A json-value as a plain value. */
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

/** Calls a server operation; returns its value or throws its error text. */
function call(method, ...args) {
  const result = apiCall(method, args.map(json));
  if (result.tag === "error") throw result.val;
  return plain(result.val);
}

export function init() {
  call("sse.register_stream", { path: PATH, event_types: EVENTS, ready: false, keepalive: "event" });
  log("info", `serving ${PATH}`);
}

export function getInfo() {
  return {
    name: "rooms_listen",
    version: "1.0.0",
    author: "Chorus",
    description: "the profile R room stream /api/rooms/listen, served by a plugin",
  };
}

export function cleanup() {}

export function onEvent(_event) {
  return false;
}

/** `sse:translate`: one hub event in, the SSE event out (its name is the `type` field). */
function translate(input) {
  const data = JSON.parse(input.data);
  if (input.event_type === "player_score" && data.record) {
    try {
      const name = call("user_name", data.record.player);
      data.player_name = typeof name === "string" ? name : name?.name ?? null;
    } catch {
      data.player_name = null;
    }
  }
  return { type: input.event_type, ...data };
}

export function onApi(method, args) {
  try {
    if (method === "sse:translate") return { tag: "ok", val: json(translate(plain(args[0]))) };
    return { tag: "error", val: `unknown method ${method}` };
  } catch (error) {
    return { tag: "error", val: String(error) };
  }
}
