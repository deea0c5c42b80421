/**
 * The legacy console's help text (spec 3 §4.3; the lua-cpp server's, peers
 * note §2.9, with the commands added here).
 *
 * @module
 */

/** The help text. */
export const LEGACY_HELP: readonly string[] = [
  "=== Phira MP Server CLI Help ===",
  "General Commands:",
  "  help, ?                          Show this help",
  "  status, info                     Show server status",
  "  stop, shutdown, exit, quit       Stop the server",
  "Room Management:",
  "  list, rooms                      List active rooms",
  "  disband <roomId>                 Disband a room",
  "  maxusers <roomId> <count>        Set a room's max users (1-64)",
  "  roomcreation <on|off|status>     Allow players to create rooms",
  "  banroom <userId> <roomId>        Ban a user from a room",
  "  unbanroom <userId> <roomId>      Lift a room ban",
  "User Management:",
  "  users                            List online users",
  "  user <userId>                    Show one user",
  "  kick <userId>                    Disconnect a user",
  "  ban <userId> [reason]            Ban a user",
  "  unban <userId>                   Lift a ban",
  "  banlist                          List banned users",
  "Communication:",
  "  broadcast <msg>, say <msg>       Message everyone",
  "  roomsay <roomId> <msg>           Message one room",
  "Contest Management:",
  "  contest <roomId> enable [ids]    Make a contest room (whitelist, manual start, disband after)",
  "  contest <roomId> disable         Make it a normal room again",
  "  contest <roomId> whitelist <ids> Set the whitelist",
  "  contest <roomId> start [force]   Start the round (force: not ready = aborted)",
  "Server Management:",
  "  reload                           Reload plugins",
  "  replay <on|off|status>           Record replays of new rooms",
  "  ipblacklist list                 List banned addresses",
  "  ipblacklist remove <ip>          Lift an address ban",
  "  ipblacklist clear [game|all]     Clear admin-API lockouts (or the game port's bans)",
  "  plugins                          List plugins",
  "  plugin <enable|disable|info> <id>",
  "  op <operation> [args], ops       Any server operation",
];
