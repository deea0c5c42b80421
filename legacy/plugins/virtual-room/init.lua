-- Virtual Room (built-in plugin).
-- Opens the rooms listed in rooms.lua (real, empty, system-hosted rooms kept
-- when empty), opens them again when they are disbanded, and greets players
-- who join a virtual room.

local rooms = require("rooms")
local wanted = {}
for _, id in ipairs(rooms) do wanted[id] = true end

local function open(id)
  if phira.get_room(id) then return end
  local room, err = phira.create_virtual_room(id)
  if room then
    phira.log_info("virtual room " .. id .. " open")
  else
    phira.log_error("cannot open virtual room " .. id .. ": " .. tostring(err))
  end
end

function on_enable()
  for _, id in ipairs(rooms) do open(id) end
end

function on_disable()
  phira.log_info("virtual room plugin stopped; its rooms stay open until disbanded")
end

function on_user_join(user, room)
  if room.id:sub(1, 1) ~= "_" then return end
  phira.log_info(string.format("user %d (%s) joined virtual room %s", user.id, user.name, room.id))
  if not user.monitor then
    phira.send_to_user(user.id, "chat", { message = "Welcome to " .. room.id .. "!" })
  end
end

function on_user_leave(user, room)
  if room.id:sub(1, 1) == "_" then
    phira.log_info(string.format("user %d left virtual room %s", user.id, room.id))
  end
end

function on_room_destroy(room)
  if wanted[room.id] then open(room.id) end
end
