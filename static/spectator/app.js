// Chorus spectator: log in, follow the room list live, watch a room's round
// over `/ws/live` — a panel per player with touches on a canvas, judgement
// counters, combo and accuracy, the round's state changes, the results at
// the end. Served by the monitor proxy and by the game server's HTTP port.
// All text from the server goes through textContent.

import * as api from "./api.js";
import { decodeLiveEvent, encodeJoin, encodeLeave, encodeReady } from "./live_codec.js";
import { LiveView } from "./live_view.js";
import { formatAccuracy, formatScore } from "./player_stats.js";
import { RoomList, RoomStream } from "./room_list.js";

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
  if (watch && room === watch.room) {
    if (name === "new_round" && data.round) showOfficialResults(data.round);
  }
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

// ---- watching a room ----

/** One watched room over `/ws/live`, reconnecting while it is wanted. */
class Watch {
  constructor(room) {
    this.room = room;
    this.socket = null;
    this.stopped = false;
    this.backoff = 1000;
    this.timer = null;
    this.joined = false;
    this.names = new Map();
    this.results = new Map();
    this.connect();
  }

  connect() {
    const url = api.wsUrl(base, `/ws/live?token=${encodeURIComponent(session.token)}`);
    const socket = new WebSocket(url);
    socket.binaryType = "arraybuffer";
    this.socket = socket;
    this.opened = false;
    setWatchStatus("Connecting…");
    socket.onopen = () => (this.opened = true);
    socket.onmessage = (e) => {
      let event;
      try {
        event = decodeLiveEvent(new Uint8Array(e.data));
      } catch (error) {
        console.warn("spectator: undecodable message", error);
        return;
      }
      this.handle(event);
    };
    socket.onclose = (e) => this.closed(e);
  }

  async closed(e) {
    if (this.stopped) return;
    this.joined = false;
    if (!this.opened && session?.kind === "password" && !(await checkSession())) return;
    if (this.stopped) return;
    setWatchStatus(`Disconnected${e.reason ? `: ${e.reason}` : ""}; reconnecting…`, true);
    this.timer = setTimeout(() => this.connect(), this.backoff);
    this.backoff = Math.min(15000, this.backoff * 2);
  }

  send(bytes) {
    if (this.socket?.readyState === WebSocket.OPEN) this.socket.send(bytes);
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    this.send(encodeLeave());
    this.socket?.close(1000, "leaving");
  }

  handle(event) {
    switch (event.type) {
      case "Authenticate":
        if (!event.result.ok) {
          const reason = event.result.error;
          // The game server is away: the close that follows reconnects. Anything else is about the account.
          if (/unavailable/.test(reason)) return setWatchStatus(`Cannot spectate now: ${reason}`, true);
          this.stopped = true;
          return logout(`The server refused to let this account spectate: ${reason}`);
        }
        this.send(encodeJoin(this.room));
        return;
      case "Join":
        if (!event.result.ok) {
          setWatchStatus(`Cannot watch room ${this.room}: ${event.result.error}`, true);
          this.stopped = true;
          return;
        }
        this.joined = true;
        this.backoff = 1000;
        setWatchStatus("Watching live.");
        for (const user of event.result.value.users) this.addUser(user);
        this.state(event.result.value.state, false);
        return;
      case "UserJoin":
        this.addUser(event.user);
        return;
      case "UserLeave":
        view.remove(event.user);
        return;
      case "Touches":
        view.get(event.player)?.addTouches(event.frames);
        return;
      case "Judges":
        view.get(event.player)?.addJudges(event.judges);
        return;
      case "StateChange":
        this.state(event.state, true);
        return;
      case "Message":
        this.message(event.message);
        return;
      default:
        return;
    }
  }

  addUser(user) {
    if (user.monitor || user.id < 0) return;
    this.names.set(user.id, user.name);
    view.add(user);
  }

  name(id) {
    // User 0 speaks for the server itself (its chat lines: welcome, round summaries).
    return this.names.get(id) ?? (id === 0 ? "Server" : `#${id}`);
  }

  async state(state, changed) {
    const text = state.type === "SelectChart"
      ? "choosing a chart"
      : state.type === "WaitingForReady"
      ? "getting ready"
      : "playing";
    $("round-state").textContent = text;
    $("round-state").dataset.state = state.type;
    if (changed) logLine(`Room is ${text}.`);
    if (state.type === "WaitingForReady") {
      // Spectators must be ready too or the round cannot start; a chart layer may first load the chart.
      await Promise.race([
        Promise.allSettled(globalThis.chorusSpectator.readyGates.map((gate) => gate(this.room))),
        new Promise((resolve) => setTimeout(resolve, 5000)),
      ]);
      this.send(encodeReady());
    }
    if (state.type === "Playing") {
      this.results.clear();
      $("results").hidden = true;
      for (const panel of view.panels.values()) {
        panel.reset();
        panel.setState("playing");
      }
    }
  }

  message(m) {
    switch (m.type) {
      case "JoinRoom":
        this.addUser({ id: m.user, name: m.name, monitor: false });
        return logLine(`${m.name} joined.`);
      case "LeaveRoom":
        view.remove(m.user);
        return logLine(`${m.name} left.`);
      case "SelectChart":
        return logLine(`${this.name(m.user)} chose chart ${m.name} (#${m.id}).`);
      case "GameStart":
        return logLine(`${this.name(m.user)} started the game.`);
      case "Ready":
        // Spectators (negative ids, this page included) get ready by themselves: not news.
        if (m.user < 0) return;
        view.get(m.user)?.setState("ready");
        return logLine(`${this.name(m.user)} is ready.`);
      case "CancelReady":
        view.get(m.user)?.setState("waiting");
        return logLine(`${this.name(m.user)} is not ready.`);
      case "CancelGame":
        return logLine(`${this.name(m.user)} cancelled the game.`);
      case "StartPlaying":
        return logLine("The round started.");
      case "Played": {
        const panel = view.get(m.user);
        panel?.setScore(m.score);
        panel?.setState("finished");
        const s = panel?.stats;
        const stats = s ? { perfect: s.perfect, good: s.good, bad: s.bad, miss: s.miss, maxCombo: s.maxCombo } : null;
        this.results.set(m.user, { ...m, stats });
        renderResults(this);
        return logLine(`${this.name(m.user)} finished: ${formatScore(m.score)} (${formatAccuracy(m.accuracy)}).`);
      }
      case "Abort":
        view.get(m.user)?.setState("aborted");
        return logLine(`${this.name(m.user)} gave up.`);
      case "GameEnd":
        $("results").hidden = false;
        return logLine("The round is over.");
      case "NewHost":
        return logLine(`${this.name(m.user)} is the host now.`);
      case "Chat":
        return logLine(`${this.name(m.user)}: ${m.content}`);
      default:
        return;
    }
  }
}

function setWatchStatus(text, isError = false) {
  $("watch-status").textContent = text;
  $("watch-status").className = isError ? "error" : "";
}

function logLine(text) {
  const log = $("event-log");
  const now = new Date();
  const item = el("li");
  const time = el("time", now.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" }));
  time.dateTime = now.toISOString();
  item.append(time, el("span", text, "text"));
  log.prepend(item);
  while (log.children.length > 50) log.lastChild.remove();
}

function renderResults(w) {
  const body = $("results-table").tBodies[0];
  body.replaceChildren();
  const rows = [...w.results.values()].sort((a, b) => b.score - a.score);
  rows.forEach((r, i) => {
    const tr = document.createElement("tr");
    tr.dataset.player = String(r.user);
    const s = r.official ?? r.stats;
    tr.append(
      el("td", i + 1),
      el("td", w.name(r.user), "result-name"),
      el("td", formatScore(r.score), "result-score"),
      el("td", formatAccuracy(r.accuracy), "result-accuracy"),
      el("td", s ? s.perfect : "—", "result-perfect"),
      el("td", s ? s.good : "—", "result-good"),
      el("td", s ? s.bad : "—", "result-bad"),
      el("td", s ? s.miss : "—", "result-miss"),
      el("td", s ? s.maxCombo : "—", "result-max-combo"),
      el("td", r.full_combo ? "yes" : "", "result-fc"),
    );
    body.append(tr);
  });
}

/** The room's `new_round` carries the uploaded records: their counts replace the page's own tallies. */
function showOfficialResults(round) {
  if (!watch || !Array.isArray(round.records)) return;
  for (const rec of round.records) {
    const row = watch.results.get(rec.player) ??
      { user: rec.player, score: rec.score, accuracy: rec.accuracy, full_combo: rec.full_combo };
    row.official = { perfect: rec.perfect, good: rec.good, bad: rec.bad, miss: rec.miss, maxCombo: rec.max_combo };
    watch.results.set(rec.player, row);
  }
  renderResults(watch);
  $("results").hidden = false;
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
  watch = new Watch(room);
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
