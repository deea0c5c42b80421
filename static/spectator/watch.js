// Watching one room over `/ws/live`: the binary spectator protocol turned
// into the page — player panels (via the LiveView), the round's state, a log
// of room events and the results table. Reconnects while the room is wanted.
// All text from the server goes through textContent.

import { decodeLiveEvent, encodeJoin, encodeLeave, encodeReady } from "./live_codec.js";
import { formatAccuracy, formatScore } from "./player_stats.js";

const $ = (id) => document.getElementById(id);

function el(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = String(text);
  if (className) node.className = className;
  return node;
}

/**
 * One watched room over `/ws/live`, reconnecting while it is wanted.
 * `ctx`: `url()` of the WebSocket, the `view`, `readyGates`, `sessionValid()`
 * (false ends watching: the page is back at the login) and `refused(reason)`.
 */
export class Watch {
  constructor(room, ctx) {
    this.ctx = ctx;
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
    const socket = new WebSocket(this.ctx.url());
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
    // Refused before the upgrade (an expired session, say): ask the server whether the session still stands.
    if (!this.opened && !(await this.ctx.sessionValid())) return;
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
          return this.ctx.refused(reason);
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
        this.ctx.view.remove(event.user);
        return;
      case "Touches":
        this.ctx.view.get(event.player)?.addTouches(event.frames);
        return;
      case "Judges":
        this.ctx.view.get(event.player)?.addJudges(event.judges);
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
    this.ctx.view.add(user);
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
        Promise.allSettled(this.ctx.readyGates.map((gate) => gate(this.room))),
        new Promise((resolve) => setTimeout(resolve, 5000)),
      ]);
      this.send(encodeReady());
    }
    if (state.type === "Playing") {
      this.results.clear();
      $("results").hidden = true;
      for (const panel of this.ctx.view.panels.values()) {
        panel.reset();
        panel.setState("playing");
      }
    }
  }

  renderResults() {
    renderResults(this);
  }

  /** The room's `new_round` carries the uploaded records: their counts replace the page's own tallies. */
  officialResults(round) {
    if (!Array.isArray(round.records)) return;
    for (const rec of round.records) {
      const row = this.results.get(rec.player) ??
        { user: rec.player, score: rec.score, accuracy: rec.accuracy, full_combo: rec.full_combo };
      row.official = { perfect: rec.perfect, good: rec.good, bad: rec.bad, miss: rec.miss, maxCombo: rec.max_combo };
      this.results.set(rec.player, row);
    }
    renderResults(this);
    $("results").hidden = false;
  }

  message(m) {
    switch (m.type) {
      case "JoinRoom":
        this.addUser({ id: m.user, name: m.name, monitor: false });
        return logLine(`${m.name} joined.`);
      case "LeaveRoom":
        this.ctx.view.remove(m.user);
        return logLine(`${m.name} left.`);
      case "SelectChart":
        return logLine(`${this.name(m.user)} chose chart ${m.name} (#${m.id}).`);
      case "GameStart":
        return logLine(`${this.name(m.user)} started the game.`);
      case "Ready":
        // Spectators (negative ids, this page included) get ready by themselves: not news.
        if (m.user < 0) return;
        this.ctx.view.get(m.user)?.setState("ready");
        return logLine(`${this.name(m.user)} is ready.`);
      case "CancelReady":
        this.ctx.view.get(m.user)?.setState("waiting");
        return logLine(`${this.name(m.user)} is not ready.`);
      case "CancelGame":
        return logLine(`${this.name(m.user)} cancelled the game.`);
      case "StartPlaying":
        return logLine("The round started.");
      case "Played": {
        const panel = this.ctx.view.get(m.user);
        panel?.setScore(m.score);
        panel?.setState("finished");
        const s = panel?.stats;
        const stats = s ? { perfect: s.perfect, good: s.good, bad: s.bad, miss: s.miss, maxCombo: s.maxCombo } : null;
        this.results.set(m.user, { ...m, stats });
        this.renderResults();
        return logLine(`${this.name(m.user)} finished: ${formatScore(m.score)} (${formatAccuracy(m.accuracy)}).`);
      }
      case "Abort":
        this.ctx.view.get(m.user)?.setState("aborted");
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
