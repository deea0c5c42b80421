-- HTTP Admin API (built-in plugin).
-- Real figures and real actions where the original answered placeholders:
--   GET  /api/rooms            every room with its fields
--   GET  /api/users            online users
--   GET  /api/stats            users, rooms, sessions, uptime, version, plugins
--   GET  /api/health           {status = "healthy", timestamp}
--   POST /api/admin/broadcast  {message}            (admin token)
--   POST /api/admin/shutdown                        (admin token)
--   GET  /                     a page listing these routes
-- Admin routes take the admin token like the server's own admin API
-- (X-Admin-Token, Authorization: Bearer, ?token= or a "token" body field).

local ROUTES = {
  { "GET", "/api/rooms", "every room" },
  { "GET", "/api/users", "online users" },
  { "GET", "/api/stats", "server figures" },
  { "GET", "/api/health", "health check" },
  { "POST", "/api/admin/broadcast", "system message to everyone (admin)" },
  { "POST", "/api/admin/shutdown", "stop the server (admin)" },
}

local function reply(status, body)
  return phira.json_encode(body), "application/json", status
end

local function decode(body)
  if body == nil or body == "" then return {} end
  local data = phira.json_decode(body)
  if type(data) ~= "table" then return {} end
  return data
end

-- Wraps a handler that needs the admin token.
local function admin_only(handler)
  return function(method, path, query, body, content_type, request)
    local ok, err, status = phira.is_admin(request)
    if not ok then return reply(status or 401, { ok = false, error = err or "unauthorized" }) end
    return handler(decode(body), request)
  end
end

local function rooms()
  local list = phira.array({})
  for _, id in ipairs(phira.get_room_list()) do
    local room = phira.get_room(id)
    if room then list[#list + 1] = room end
  end
  return reply(200, { rooms = list, count = #list })
end

local function users()
  local list = phira.array({})
  for _, id in ipairs(phira.get_connected_user_ids()) do
    local user = phira.get_user(id)
    if user then list[#list + 1] = user end
  end
  return reply(200, { users = list, count = #list })
end

local function stats()
  return reply(200, phira.get_server_stats())
end

local function health()
  return reply(200, { status = "healthy", timestamp = os.time() })
end

local broadcast = admin_only(function(data)
  local message = data.message
  if type(message) ~= "string" or message == "" then
    return reply(400, { ok = false, error = "bad-message" })
  end
  if utf8.len(message) == nil or utf8.len(message) > 200 then
    return reply(400, { ok = false, error = "message-too-long" })
  end
  local sent = phira.broadcast_message(message)
  return reply(200, { ok = true, sent = sent == true })
end)

local shutdown = admin_only(function()
  phira.log_info("shutdown requested through the HTTP admin API")
  phira.shutdown_server()
  return reply(200, { ok = true, message = "shutting down" })
end)

local function index()
  local rows = {}
  for _, r in ipairs(ROUTES) do
    rows[#rows + 1] = string.format("<li><code>%s %s</code> %s</li>", r[1], r[2], r[3])
  end
  local page = "<!doctype html><meta charset=utf-8><title>Admin API</title><h1>Admin API</h1><ul>"
    .. table.concat(rows) .. "</ul>"
  return page, "text/html; charset=utf-8", 200
end

function on_enable()
  phira.register_http_route("GET", "/api/rooms", rooms)
  phira.register_http_route("GET", "/api/users", users)
  phira.register_http_route("GET", "/api/stats", stats)
  phira.register_http_route("GET", "/api/health", health)
  phira.register_http_route("POST", "/api/admin/broadcast", broadcast)
  phira.register_http_route("POST", "/api/admin/shutdown", shutdown)
  phira.register_http_route("GET", "/", index)
  phira.log_info("HTTP admin API ready")
end

function on_disable()
  phira.log_info("HTTP admin API stopped")
end
