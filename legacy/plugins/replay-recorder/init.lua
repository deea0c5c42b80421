-- Replay Recorder (built-in plugin).
-- The server records .phirarec replays itself while replay recording is on
-- (console: replay on|off; admin API: /admin/replay/config). This plugin
-- adds routes over the real files:
--   GET  /api/replays/status                       {enabled}
--   POST /api/replays/config  {enabled}            (admin token)
--   GET  /api/replays/list?user=<id>               a user's replays (admin token)
--   POST /api/replays/delete  {userId, chartId, timestamp}   (admin token)
-- Players list and download their own replays with POST /replay/auth and
-- GET /replay/download.

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

local function status()
  return reply(200, { ok = true, enabled = phira.get_replay_status() })
end

local config = admin_only(function(data)
  if type(data.enabled) ~= "boolean" then return reply(400, { ok = false, error = "bad-enabled" }) end
  phira.set_replay_status(data.enabled)
  return reply(200, { ok = true, enabled = phira.get_replay_status() })
end)

local list = admin_only(function(_, request)
  local user = tonumber(request.query.user or request.query.userId or "")
  if not user or user ~= math.floor(user) then return reply(400, { ok = false, error = "bad-user-id" }) end
  return reply(200, { ok = true, userId = user, charts = phira.list_replays(user) })
end)

local delete = admin_only(function(data)
  local user, chart, timestamp = tonumber(data.userId), tonumber(data.chartId), tonumber(data.timestamp)
  if not (user and chart and timestamp) then return reply(400, { ok = false, error = "bad-request" }) end
  if not phira.delete_replay(user, chart, timestamp) then return reply(404, { ok = false, error = "not-found" }) end
  phira.log_info(string.format("replay %d/%d/%d deleted", user, chart, timestamp))
  return reply(200, { ok = true })
end)

function on_enable()
  phira.register_http_route("GET", "/api/replays/status", status)
  phira.register_http_route("POST", "/api/replays/config", config)
  phira.register_http_route("GET", "/api/replays/list", list)
  phira.register_http_route("POST", "/api/replays/delete", delete)
end

function on_room_create(room)
  if phira.get_replay_status() then
    phira.log_info("room " .. room.id .. " will be recorded")
  end
end
