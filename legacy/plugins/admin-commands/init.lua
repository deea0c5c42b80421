-- Admin Commands (built-in plugin).
-- HTTP (admin token required):
--   POST /api/admin/kick           {userId, reason}
--   POST /api/admin/ban            {userId, reason}
--   POST /api/admin/unban          {userId}
--   GET  /api/admin/banned
--   POST /api/admin/room/disband   {roomId}
--   POST /api/admin/room/move      {userId, targetRoomId, monitor}
--   POST /api/admin/contest/start  {roomId, force}
-- In-game chat, for users in admin_game_ids: !kick <id> [reason],
-- !ban <id> [reason], !unban <id>, !disband <room>, !broadcast <message>.
-- The command is not shown to the room; its result comes back to the
-- administrator as the chat's error text.

local function reply(status, body)
  return phira.json_encode(body), "application/json", status
end

local function decode(body)
  if body == nil or body == "" then return {} end
  local data = phira.json_decode(body)
  if type(data) ~= "table" then return {} end
  return data
end

local function admin_only(handler)
  return function(method, path, query, body, content_type, request)
    local ok, err, status = phira.is_admin(request)
    if not ok then return reply(status or 401, { ok = false, error = err or "unauthorized" }) end
    return handler(decode(body), request)
  end
end

local function id_of(value)
  local n = tonumber(value)
  if n and n == math.floor(n) then return n end
  return nil
end

local kick = admin_only(function(data)
  local user = id_of(data.userId)
  if not user then return reply(400, { ok = false, error = "bad-user-id" }) end
  if not phira.kick_user(user, false, data.reason) then
    return reply(404, { ok = false, error = "user-not-connected" })
  end
  return reply(200, { ok = true })
end)

local ban = admin_only(function(data)
  local user = id_of(data.userId)
  if not user then return reply(400, { ok = false, error = "bad-user-id" }) end
  phira.ban_user(user, data.reason)
  return reply(200, { ok = true })
end)

local unban = admin_only(function(data)
  local user = id_of(data.userId)
  if not user then return reply(400, { ok = false, error = "bad-user-id" }) end
  if not phira.unban_user(user) then return reply(404, { ok = false, error = "not-banned" }) end
  return reply(200, { ok = true })
end)

local banned = admin_only(function()
  return reply(200, { ok = true, users = phira.get_banned_users() })
end)

local disband = admin_only(function(data)
  local room = data.roomId
  if type(room) ~= "string" then return reply(400, { ok = false, error = "bad-room-id" }) end
  local ok, err = phira.disband_room(room)
  if not ok then return reply(404, { ok = false, error = "room-not-found", message = err }) end
  return reply(200, { ok = true })
end)

local move = admin_only(function(data)
  local user, room = id_of(data.userId), data.targetRoomId or data.roomId
  if not user or type(room) ~= "string" then return reply(400, { ok = false, error = "bad-request" }) end
  local ok, err = phira.move_user(user, room, data.monitor == true)
  if not ok then return reply(409, { ok = false, error = "move-failed", message = err }) end
  return reply(200, { ok = true })
end)

local contest_start = admin_only(function(data)
  local room = data.roomId or data.contestId
  if type(room) ~= "string" then return reply(400, { ok = false, error = "bad-room-id" }) end
  local ok, err = phira.start_contest(room, data.force == true)
  if not ok then return reply(409, { ok = false, error = "cannot-start", message = err }) end
  return reply(200, { ok = true })
end)

-- !commands of administrators in chat.
local commands = {}

function commands.kick(args)
  local user = id_of(args[1])
  if not user then return "usage: !kick <id> [reason]" end
  local reason = table.concat(args, " ", 2)
  if phira.kick_user(user, false, reason ~= "" and reason or nil) then return "kicked " .. user end
  return "user " .. user .. " is not connected"
end

function commands.ban(args)
  local user = id_of(args[1])
  if not user then return "usage: !ban <id> [reason]" end
  local reason = table.concat(args, " ", 2)
  phira.ban_user(user, reason ~= "" and reason or nil)
  return "banned " .. user
end

function commands.unban(args)
  local user = id_of(args[1])
  if not user then return "usage: !unban <id>" end
  if phira.unban_user(user) then return "unbanned " .. user end
  return "user " .. user .. " is not banned"
end

function commands.disband(args)
  if not args[1] then return "usage: !disband <room>" end
  local ok, err = phira.disband_room(args[1])
  if ok then return "disbanded " .. args[1] end
  return err or "no such room"
end

function commands.broadcast(args)
  local message = table.concat(args, " ")
  if message == "" then return "usage: !broadcast <message>" end
  phira.broadcast_message(message)
  return "broadcast sent"
end

function on_before_command(user, kind, data)
  if kind ~= "chat" or type(data.message) ~= "string" then return nil end
  local name, rest = data.message:match("^!(%a+)%s*(.*)$")
  if not name or not commands[name] or not phira.is_admin_user(user.id) then return nil end
  local args = {}
  for word in rest:gmatch("%S+") do args[#args + 1] = word end
  local result = commands[name](args)
  phira.log_info(string.format("admin %d ran !%s: %s", user.id, name, result))
  return false, result
end

function on_enable()
  phira.register_http_route("POST", "/api/admin/kick", kick)
  phira.register_http_route("POST", "/api/admin/ban", ban)
  phira.register_http_route("POST", "/api/admin/unban", unban)
  phira.register_http_route("GET", "/api/admin/banned", banned)
  phira.register_http_route("POST", "/api/admin/room/disband", disband)
  phira.register_http_route("POST", "/api/admin/room/move", move)
  phira.register_http_route("POST", "/api/admin/contest/start", contest_start)
end
