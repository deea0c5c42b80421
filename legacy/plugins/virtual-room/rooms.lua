-- Virtual rooms to keep open: ids starting with "_" (left out of GET /room),
-- at most 20 characters. Example: return { "_lobby", "_practice" }
return {}
