// Chorus spectator: log in, follow the room list live, watch a room's round
// over `/ws/live` — a panel per player with touches on a canvas, judgement
// counters, combo and accuracy, the round's state changes, the results at
// the end. Served by the monitor proxy and by the game server's HTTP port.
// All text from the server goes through textContent.

import * as api from "./api.js";
import { LiveView } from "./live_view.js";
import { RoomList, RoomStream } from "./room_list.js";
import { Watch } from "./watch.js";

const $ = (id) => document.getElementById(id);
const base = api.apiBase();
const rooms = new RoomList();
const view = new LiveView($("players"));
let mode = null;
let session = null;
let stream = null;
let watch = null;

/** Exposed for extensions (a chart layer registers itself with `chorusSpectator.view.addLayer`). */
globalThis.chorusSpectator = { view, rooms, readyGates: [] };

function el(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = String(text);
  if (className) node.className = className;
  return node;
}

function status(text, isError = false) {
  $("status").textContent = text;
  $("status").className = isError ? "error" : "";
}

function show(section) {
  for (const id of ["login", "lobby", "watch"]) $(id).hidden = id !== section;
  $("account").hidden = session === null;
}

// ---- login ----

async function start() {
  status("Connecting…");
  try {
    mode = await api.detectLogin(base);
  } catch (error) {
    status(`Cannot reach the server: ${error.message}. Retrying…`, true);
    setTimeout(start, 3000);
    return;
  }
  status("");
  const saved = api.loadSession();
  if (saved && saved.kind === mode) {
    session = saved;
    if (mode === "password" && !(await checkSession())) return;
    return showLobby();
  }
  showLogin();
}

/** True while the proxy accepts the stored session; otherwise back to the login form. */
async function checkSession() {
  try {
    const me = await api.profile(base, session.token);
    $("who").textContent = `${me.game_username} (${me.game_id})`;
    return true;
  } catch (error) {
    if (error.status === 401) {
      logout(`Please log in again: ${error.message}`);
      return false;
    }
    // The game API may be down: keep the session, show no name.
    $("who").textContent = "";
    return true;
  }
}

function showLogin(message = "") {
  show("login");
  $("password-form").hidden = mode !== "password";
  $("token-form").hidden = mode !== "token";
  $("login-error").textContent = message;
  (mode === "password" ? $("email") : $("game-token")).focus();
}

function logout(message = "") {
  stopWatching();
  stream?.stop();
  stream = null;
  session = null;
  api.saveSession(null);
  $("who").textContent = "";
  showLogin(message);
}

$("password-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  $("login-error").textContent = "";
  $("login-button").disabled = true;
  try {
    const token = await api.login(base, $("email").value.trim(), $("password").value);
    $("password").value = "";
    session = { kind: "password", token };
    api.saveSession(session);
    if (await checkSession()) showLobby();
  } catch (error) {
    $("login-error").textContent = error.message;
  } finally {
    $("login-button").disabled = false;
  }
});

$("token-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const token = $("game-token").value.trim();
  if (!token) return;
  $("game-token").value = "";
  session = { kind: "token", token };
  api.saveSession(session);
  $("who").textContent = "access token";
  showLobby();
});

$("logout-button").addEventListener("click", () => logout());

// ---- lobby ----

const STATE_TEXT = { SELECTING_CHART: "choosing a chart", WAITING_FOR_READY: "getting ready", PLAYING: "playing" };

function showLobby() {
  show("lobby");
  if (!stream) {
    stream = new RoomStream(api.apiUrl(base, "/rooms/listen"), rooms, {
      onChange: onRoomChange,
      onState: (state) => {
        $("stream-state").textContent = state === "live"
          ? "live"
          : state === "connecting"
          ? "connecting…"
          : "reconnecting…";
        $("stream-state").dataset.state = state;
        if (state === "live") status("");
        if (state === "retrying") explainOutage();
      },
    });
    stream.start();
  }
  renderRooms();
}

/** Says why the room stream is down (the server's 503 names the reason). */
async function explainOutage() {
  try {
    await fetch(api.apiUrl(base, "/rooms/info")).then(async (res) => {
      if (!res.ok) status((await res.json()).error ?? `HTTP ${res.status}`, true);
    });
  } catch {
    status("Cannot reach the server; retrying…", true);
  }
}

function onRoomChange(room, name, data) {
  renderRooms();
  if (watch && room === watch.room && name === "new_round" && data.round) watch.officialResults(data.round);
}

function renderRooms() {
  const body = $("rooms").tBodies[0];
  body.replaceChildren();
  const list = rooms.sorted();
  $("no-rooms").hidden = list.length > 0;
  for (const room of list) {
    const row = document.createElement("tr");
    row.dataset.room = room.name;
    const name = el("td", room.name, "room-name");
    if (room.lock) name.append(el("span", "locked", "badge"));
    const action = el("td");
    const button = el("button", "Watch");
    button.type = "button";
    button.addEventListener("click", () => startWatching(room.name));
    action.append(button);
    row.append(
      name,
      el("td", STATE_TEXT[room.state] ?? room.state, "room-state"),
      el("td", room.users.length, "room-count"),
      el("td", room.chart === null ? "—" : `#${room.chart}`, "room-chart"),
      action,
    );
    body.append(row);
  }
}

function startWatching(room) {
  stopWatching();
  show("watch");
  $("watch-room").textContent = room;
  $("round-state").textContent = "";
  $("event-log").replaceChildren();
  $("results").hidden = true;
  $("results-table").tBodies[0].replaceChildren();
  view.clear();
  view.start();
  watch = new Watch(room, {
    url: () => api.wsUrl(base, `/ws/live?token=${encodeURIComponent(session.token)}`),
    view,
    readyGates: globalThis.chorusSpectator.readyGates,
    sessionValid: () => (session?.kind === "password" ? checkSession() : Promise.resolve(session !== null)),
    refused: (reason) => logout(`The server refused to let this account spectate: ${reason}`),
  });
}

function stopWatching() {
  watch?.stop();
  watch = null;
  view.clear();
}

$("back-button").addEventListener("click", () => {
  stopWatching();
  showLobby();
});

start();
