/**
 * A Lua plugin that calls any host function on request and records every
 * hook it receives, for the tests of the host table and the hooks: the JS
 * side calls `call(name, ...)` through `plugin.call`'s path
 * (`host.callFunction`) and reads `hooks()`.
 */

/** The probe plugin's files. */
export const PROBE_PLUGIN: Record<string, string> = {
  "plugin.json": JSON.stringify({ id: "probe", name: "Probe", version: "1.0.0" }),
  "init.lua": `
local seen = {}

-- Calls phira[name](...) and returns {ok, results...}; nil results become the string "nil".
function call(name, ...)
  local r = table.pack(pcall(phira[name], ...))
  local out = phira.array({})
  for i = 1, r.n do
    if r[i] == nil then out[i] = "nil" else out[i] = r[i] end
  end
  return out
end

function same_table() return game == phira end
function kind(name) return type(phira[name]) end

local function record(name, ...)
  local args = table.pack(...)
  local entry = { hook = name, args = phira.array({}) }
  for i = 1, args.n do
    if args[i] == nil then entry.args[i] = "nil" else entry.args[i] = args[i] end
  end
  seen[#seen + 1] = entry
end

function hooks()
  local out = phira.array({})
  for i, e in ipairs(seen) do out[i] = e end
  return out
end

function clear() seen = {} end

function on_enable() record("on_enable") end
function on_disable() record("on_disable") end
function on_user_join(user, room) record("on_user_join", user.id, room.id, user.monitor) end
function on_user_leave(user, room, reason) record("on_user_leave", user.id, room.id, reason) end
function on_user_kick(user, room, reason) record("on_user_kick", user.id, room and room.id or "nil", reason) end
function on_user_ban(user, reason, duration) record("on_user_ban", user.id, reason, duration) end
function on_user_unban(user_id) record("on_user_unban", user_id) end
function on_room_create(room) record("on_room_create", room.id, room.host_id) end
function on_room_destroy(room) record("on_room_destroy", room.id) end

refuse = {}
function on_before_command(user, kind, data)
  if kind ~= "touches" and kind ~= "judges" then record("on_before_command", user.id, kind, data) end
  if refuse[kind] then return false, refuse[kind] end
end
function set_refuse(kind, reason) refuse[kind] = reason end
`,
};
