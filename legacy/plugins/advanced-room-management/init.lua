-- Advanced Room Management (built-in plugin).
-- Virtual rooms are real rooms whose id starts with "_": empty at first,
-- hosted by the system, kept when empty, left out of GET /room.
--   POST /api/rooms/virtual/create  {name, settings = {max_players, locked, cycle}}   (admin token)
--   POST /api/rooms/virtual/delete  {roomId}                                         (admin token)
--   GET  /api/rooms/virtual/list
--   POST /api/rooms/cycle/enable    {roomId, enabled}                                (admin token)
--   POST /api/rooms/lock            {roomId, locked}                                 (admin token)
--   POST /api/rooms/settings        {roomId, maxUsers, locked, cycle, hidden}         (admin token)

local DEFAULT_SETTINGS = { max_players = 8, locked = false, cycle = false }

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

-- Applies the settings present in `s` to a room; returns nil or the first error.
local function apply(room, s)
  if s.max_players ~= nil or s.maxUsers ~= nil then
    local ok, err = phira.set_max_users(room, s.max_players or s.maxUsers)
    if not ok then return err end
  end
  if s.locked ~= nil then
    local ok, err = phira.set_room_lock(room, s.locked == true)
    if not ok then return err end
  end
  if s.cycle ~= nil then
    local ok, err = phira.set_room_cycle(room, s.cycle == true)
    if not ok then return err end
  end
  if s.hidden ~= nil then
    local ok, err = phira.set_room_hidden(room, s.hidden == true)
    if not ok then return err end
  end
  return nil
end

local create = admin_only(function(data)
  local name = data.name
  if type(name) ~= "string" or not name:match("^[%w_%-]+$") or #name > 19 then
    return reply(400, { ok = false, error = "bad-name", message = "1-19 letters, digits, - or _" })
  end
  local id = "_" .. name
  local room, err = phira.create_virtual_room(id)
  if not room then return reply(409, { ok = false, error = "cannot-create", message = err }) end
  local settings = {}
  for k, v in pairs(DEFAULT_SETTINGS) do settings[k] = v end
  if type(data.settings) == "table" then
    for k, v in pairs(data.settings) do settings[k] = v end
  end
  local problem = apply(id, settings)
  if problem then return reply(400, { ok = false, error = "bad-settings", message = problem }) end
  return reply(200, { ok = true, roomId = id, room = phira.get_room(id) })
end)

local delete = admin_only(function(data)
  local id = data.roomId
  if type(id) ~= "string" or id:sub(1, 1) ~= "_" then
    return reply(400, { ok = false, error = "not-a-virtual-room" })
  end
  local ok, err = phira.disband_room(id)
  if not ok then return reply(404, { ok = false, error = "room-not-found", message = err }) end
  return reply(200, { ok = true })
end)

local function list()
  local rooms = phira.array({})
  for _, id in ipairs(phira.get_room_list()) do
    if id:sub(1, 1) == "_" then rooms[#rooms + 1] = phira.get_room(id) end
  end
  return reply(200, { ok = true, rooms = rooms })
end

local function setter(field)
  return admin_only(function(data)
    if type(data.roomId) ~= "string" then return reply(400, { ok = false, error = "bad-room-id" }) end
    local value = data[field]
    if value == nil then value = true end
    local problem = apply(data.roomId, { [field == "enabled" and "cycle" or field] = value })
    if problem then return reply(409, { ok = false, error = "failed", message = problem }) end
    return reply(200, { ok = true, room = phira.get_room(data.roomId) })
  end)
end

local settings = admin_only(function(data)
  if type(data.roomId) ~= "string" then return reply(400, { ok = false, error = "bad-room-id" }) end
  local problem = apply(data.roomId, data)
  if problem then return reply(409, { ok = false, error = "failed", message = problem }) end
  return reply(200, { ok = true, room = phira.get_room(data.roomId) })
end)

function on_enable()
  phira.register_http_route("POST", "/api/rooms/virtual/create", create)
  phira.register_http_route("POST", "/api/rooms/virtual/delete", delete)
  phira.register_http_route("GET", "/api/rooms/virtual/list", list)
  phira.register_http_route("POST", "/api/rooms/cycle/enable", setter("enabled"))
  phira.register_http_route("POST", "/api/rooms/lock", setter("locked"))
  phira.register_http_route("POST", "/api/rooms/settings", settings)
end
