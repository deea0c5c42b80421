/**
 * English (en-US) texts. This table defines the key set; every other locale
 * must provide exactly these keys (checked by the type system and a test).
 * Official error strings are kept verbatim (protocol.md §5.4).
 *
 * @module
 */

/** en-US message templates; `{name}` marks a placeholder. */
export const EN_US = {
  // Official localized errors (phira-mp locales/en-US.ftl).
  "create-id-occupied": "Room ID is occupied",
  "join-game-ongoing": "Game is ongoing",
  "join-room-full": "Room is full",
  "join-room-locked": "Room is locked",
  "join-cant-monitor": "Permission denied. You can't monitor this room.",
  "start-no-chart-selected": "No chart selected",
  // Official fixed English errors, localized here (spec 3 §7 rule 2).
  "no-room": "no room",
  "invalid-state": "invalid state",
  "only-host": "only host can do this",
  "already-in-room": "already in room",
  "room-not-found": "room not found",
  "already-ready": "already ready",
  "not-ready": "not ready",
  "invalid-record": "invalid record",
  "aborted": "aborted",
  "already-uploaded": "already uploaded",
  "repeated-authenticate": "repeated authenticate",
  "auth-failed": "failed to fetch info",
  // Server extensions.
  "not-authenticated": "not authenticated",
  "invalid-session-command": "invalid command for this session",
  "chat-disabled": "Chat is disabled on this server",
  "chat-too-long": "Message is too long (at most {max} characters)",
  "record-fetch-failed": "Cannot fetch record {id}: {reason}",
  "server-busy": "Server is busy, please try again later",
  "server-full": "Server is full",
  "login-storage-full": "The server cannot save logins: its disk is full. Please tell the server's operator",
  "login-storage-failed": "The server cannot save logins: its storage failed. Please tell the server's operator",
  "server-shutting-down": "The server is shutting down. See you soon!",
  "connection-replaced": "You logged in from another connection",
  "auth-timeout": "authentication timed out",
  "monitor-key-mismatch": "secret key mismatch",
  "monitor-already-connected": "more than one room monitor",
  "game-monitor-must-monitor": "monitor = false, but you are in game monitor session",
  "chart-fallback-name": "#{id}",
  "room-creation-disabled": "Room creation is disabled on this server",
  "server-room-limit": "The server has reached its room limit",
  "kicked-by-admin": "You were removed by an administrator{reason}",
  "removed-from-room": "You were removed from room {room} by an administrator",
  "room-closed-by-admin": "Room {room} was closed by an administrator",
  "auth-banned": "You have been banned from this server. Reason: {reason}",
  "auth-banned-default": "You have been banned from this server. Reason: violation of server rules",
  "broadcast-prefix": "[Broadcast] {message}",
  "room-empty": "The room has no players",
  "user-not-in-room": "The user is not in this room",
  "user-not-found": "User not found",
  "invalid-argument": "Invalid argument",
  "room-ban-notice": "You have been banned from room {room}",
  "join-room-banned": "You are banned from this room",
  // Legacy mode (Lua plugins, contest rooms, replay recording).
  "plugin-refused": "This action was refused by a server plugin",
  "contest-not-whitelisted": "This contest room is open to its participants only",
  "replay-recorder-name": "Replay recorder",
  "room-degraded": "This room is temporarily not accepting players",
  "join-game-ongoing-confirm": "This room is in a game. Join again to confirm and watch the round finish.",
  "room-progress": "Progress: [{bar}] {percent}%  {remaining} min left",
  "room-progress-unknown": "A round is in progress; you will play from the next one.",
  "result-title": "\u25b8 {chart} results",
  "result-line": "#{rank}. {name}  {score}  {accuracy}%  P{perfect} G{good} B{bad} M{miss}  x{combo}",
  "result-line-fc": "#{rank}. {name}  {score}  {accuracy}%  P{perfect} G{good} B{bad} M{miss}  x{combo}  FC",
  "result-line-dnf": "\u2013. {name}  DNF",
  "result-summary": "Results: {passed}/{total} completed",
  "rate-limited": "Too many requests, slow down a little",
  "welcome-default":
    "Welcome to [server_name], [user_name]! [players-online].\nYour playtime here: [playtime]\nMost played: [top_playtime]\nRooms you can join: [active_rooms]\nRooms whose name starts with - are hidden from lists.",
  "players-online-one": "{count} player online",
  "players-online-other": "{count} players online",
  "welcome-hours": "{hours}h",
  "welcome-no-rooms": "none yet, create one!",
  "welcome-no-playtime": "nobody yet",
  "welcome-room": "{room} (host {host}, {players}/{max})",
  "user-moved-to-room": "An administrator moved you to room {room}; reconnecting\u2026",
} as const;

/** A message key. */
export type MessageKey = keyof typeof EN_US;
