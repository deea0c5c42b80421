// Chorus admin panel (spec 2 §4.2): log in; see the server's status, the online players (kick, ban), the rooms with
// readable state, chart, lock and cycle (toggle them, remove a member, disband) and the bans (ban, unban). Everything
// comes from one request, GET /admin/api/state, every 5 seconds while the tab is visible (never two at once) and
// after each action. All text goes through textContent (player and room names come from users); the words come from
// messages.js.
"use strict";

const REFRESH_MS = 5000;
/** Player rows drawn at most; the filter finds the others. */
const PLAYER_ROWS = 200;
const $ = (id) => document.getElementById(id);
let timer = null;
let inFlight = null;
let lastState = null;

// ---- Text -------------------------------------------------------------------------------------------------------

const MESSAGES = globalThis.CHORUS_ADMIN_MESSAGES || { en: {} };
const LANG = (navigator.languages || [navigator.language || "en"])
  .map((tag) => [tag, tag.split("-")[0]])
  .flat()
  .find((tag) => MESSAGES[tag]) || "en";
const PLURALS = new Intl.PluralRules(LANG);

/** The text of `key` with `{name}` replaced from `vars`; English when the language lacks it, else the key. */
function t(key, vars) {
  const text = (MESSAGES[LANG] && MESSAGES[LANG][key]) ?? MESSAGES.en[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (all, name) => (vars && name in vars ? String(vars[name]) : all));
}

/** The plural form of `key` for `count` (`key.one`, `key.other`, …). */
function tn(key, count, vars) {
  const form = `${key}.${PLURALS.select(count)}`;
  const lang = MESSAGES[LANG] || {};
  const chosen = form in lang || form in MESSAGES.en ? form : `${key}.other`;
  return t(chosen, { count, ...vars });
}

function translatePage() {
  document.documentElement.lang = LANG;
  for (const node of document.querySelectorAll("[data-i18n]")) node.textContent = t(node.dataset.i18n);
  for (const node of document.querySelectorAll("[data-i18n-placeholder]")) {
    node.placeholder = t(node.dataset.i18nPlaceholder);
  }
}

// ---- Requests ---------------------------------------------------------------------------------------------------

async function api(method, path, body) {
  const init = { method, headers: {}, credentials: "same-origin" };
  if (method !== "GET") {
    // The server's CSRF guard refuses a POST that is not JSON-typed (415), so
    // every state change carries a JSON body, `{}` when there is nothing to say.
    init.headers["content-type"] = "application/json";
    init.body = JSON.stringify(body === undefined ? {} : body);
  }
  const res = await fetch(`/admin/api/${path}`, init);
  let data = null;
  try {
    data = await res.json();
  } catch {
    data = null;
  }
  if (res.status === 401 && path !== "login") showLogin();
  if (!res.ok) throw new Error(data && data.error ? data.error : `HTTP ${res.status}`);
  return data;
}

// ---- Elements ---------------------------------------------------------------------------------------------------

function el(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  if (className) node.className = className;
  return node;
}

/** A table cell labelled with its column's name (shown above the value on narrow screens). */
function cell(labelKey, className) {
  const td = el("td", undefined, className);
  if (labelKey) td.dataset.label = t(labelKey);
  return td;
}

function badge(key, className) {
  return el("span", t(key), `badge${className ? ` ${className}` : ""}`);
}

function button(text, onClick, className, title) {
  const b = el("button", text, className);
  b.type = "button";
  if (title) b.title = title;
  b.addEventListener("click", onClick);
  return b;
}

/** A switch showing `on` (text `onKey` / `offKey`); clicking asks for the opposite. */
function toggle(on, onKey, offKey, hint, onClick) {
  const b = button(t(on ? onKey : offKey), onClick, `toggle ${on ? "on" : "off"}`, hint);
  b.setAttribute("aria-pressed", String(on));
  return b;
}

/** How long a success message stays; a failure stays until the next message. */
const STATUS_MS = 8000;
let statusTimer = null;

function status(text, isError) {
  const s = $("status");
  s.textContent = text;
  s.className = isError ? "error" : "";
  clearTimeout(statusTimer);
  statusTimer = isError ? null : setTimeout(() => {
    s.textContent = "";
  }, STATUS_MS);
}

/** Runs an action, then shows its outcome once the refreshed state is drawn. */
async function act(what, fn) {
  let message;
  let failed = false;
  try {
    await fn();
    message = t("action.done", { what });
  } catch (error) {
    message = t("action.failed", { what, error: error.message });
    failed = true;
  }
  await refresh(true);
  status(message, failed);
}

function who(p) {
  return `${p.name} (${p.id})`;
}

// ---- Rendering --------------------------------------------------------------------------------------------------

function uptime(secs) {
  const d = Math.floor(secs / 86400);
  const h = Math.floor((secs % 86400) / 3600);
  const m = Math.floor((secs % 3600) / 60);
  const s = secs % 60;
  if (d > 0) return t("uptime.days", { d, h });
  if (h > 0) return t("uptime.hours", { h, m });
  if (m > 0) return t("uptime.minutes", { m, s });
  return t("uptime.seconds", { s });
}

function renderStatus(state) {
  const s = state.status;
  $("server-name").textContent = state.server_name;
  document.title = t("page.title", { server: state.server_name });
  $("player-count").textContent = String(s.players_online);
  $("room-count").textContent = String(s.rooms);
  $("uptime").textContent = uptime(s.uptime_secs);
  $("version").textContent = s.version;
  const store = s.store;
  const details = [];
  let health = "ok";
  if (!store.enabled) {
    $("store-state").textContent = t("store.memory");
    details.push(t("store.memory_detail"));
    health = "warn";
  } else {
    $("store-state").textContent = `${t(store.up ? "store.up" : "store.down")}${
      store.backend ? ` · ${store.backend}` : ""
    }`;
    if (!store.up) health = "bad";
    if (store.pending > 0) details.push(tn("store.pending", store.pending));
    if (store.dead_letters > 0) details.push(tn("store.dead_letters", store.dead_letters));
    if (store.last_error && !store.up) details.push(t("store.last_error", { error: store.last_error }));
  }
  $("store").dataset.health = health;
  $("store-detail").textContent = details.join(" · ");
  $("issues").replaceChildren(...s.issues.map((issue) => el("li", issue)));
  const pill = $("health");
  pill.textContent = s.shutting_down ? t("status.shutting_down") : t(s.ready ? "status.ready" : "status.not_ready");
  pill.dataset.ready = String(s.ready && !s.shutting_down);
  $("switches").textContent = [
    tn("status.sessions", s.sessions),
    t(s.connections_enabled ? "status.connections_on" : "status.connections_off"),
    t(s.room_creation_enabled ? "status.room_creation_on" : "status.room_creation_off"),
  ].join(" · ");
}

function renderPlayers(players) {
  const body = $("players").tBodies[0];
  const filter = $("player-filter").value.trim().toLowerCase();
  const matching = players
    .filter((p) => !filter || p.name.toLowerCase().includes(filter) || String(p.id) === filter)
    .sort((a, b) => a.name.localeCompare(b.name) || a.id - b.id);
  $("players-total").textContent = String(players.length);
  const rows = [];
  for (const p of matching.slice(0, PLAYER_ROWS)) {
    const row = el("tr");
    row.dataset.user = String(p.id);
    const name = cell("players.col.player", "player-name");
    name.append(el("span", p.name), el("span", ` ${p.id}`, "muted id"));
    if (p.admin) name.append(badge("players.admin", "accent"));
    const room = cell("players.col.room", "player-room");
    if (p.room === null) room.append(el("span", t("players.lobby"), "muted"));
    else {
      room.append(el("span", p.room));
      if (p.monitor) room.append(badge("players.watching"));
    }
    const actions = cell(undefined, "actions");
    actions.append(
      button(
        t("action.kick"),
        () => {
          if (!confirm(t("confirm.kick", { player: who(p) }))) return;
          act(t("what.kick", { id: p.id }), () => api("POST", `users/${p.id}/disconnect`));
        },
        "danger",
        t("action.kick_hint"),
      ),
      button(
        t("action.ban"),
        () => {
          const reason = prompt(t("prompt.ban", { player: who(p) }), "");
          if (reason === null) return;
          const body = reason.trim() ? { user_id: p.id, reason: reason.trim().slice(0, 200) } : { user_id: p.id };
          act(t("what.ban", { id: p.id }), () => api("POST", "bans", body));
        },
        "danger",
        t("action.ban_hint"),
      ),
    );
    const language = cell("players.col.language", "player-language");
    language.textContent = p.language;
    row.append(name, room, language, actions);
    rows.push(row);
  }
  body.replaceChildren(...rows);
  const none = $("no-players");
  const hidden = matching.length - rows.length;
  none.hidden = rows.length > 0 && hidden === 0;
  none.textContent = players.length === 0
    ? t("players.none")
    : matching.length === 0
    ? t("players.no_match")
    : tn("players.more", hidden);
}

function memberList(room) {
  const list = el("ul", undefined, "members");
  for (const p of room.players) {
    const item = el("li");
    item.dataset.user = String(p.id);
    item.append(el("span", who(p)));
    if (p.id === room.host) item.append(badge("rooms.host", "accent"));
    if (room.state === "WAITING_FOR_READY" && p.ready) item.append(badge("rooms.ready"));
    if (!p.online) item.append(badge("rooms.offline", "warn"));
    const what = t("what.remove", { id: p.id, room: room.name });
    item.append(button(
      t("action.remove"),
      () => {
        act(what, () => api("POST", `rooms/${encodeURIComponent(room.name)}/kick`, { user_id: p.id }));
      },
      "danger small",
      t("action.remove_hint"),
    ));
    list.append(item);
  }
  for (const m of room.monitors) {
    const item = el("li", undefined, "monitor");
    item.append(el("span", who(m)), badge("rooms.monitor"));
    list.append(item);
  }
  return list;
}

function renderRooms(rooms) {
  const body = $("rooms").tBodies[0];
  $("no-rooms").hidden = rooms.length > 0;
  $("rooms-total").textContent = String(rooms.length);
  const rows = rooms.map((room) => {
    const row = el("tr");
    row.dataset.room = room.name;
    const path = `rooms/${encodeURIComponent(room.name)}`;
    const name = cell("rooms.col.room", "room-name");
    name.append(el("strong", room.name));
    for (const flag of ["hidden", "persistent", "tournament", "live"]) {
      if (room[flag]) name.append(badge(`rooms.${flag}`));
    }
    const state = cell("rooms.col.state", "room-state");
    state.append(el("span", t(`state.${room.state}`), `state ${room.state.toLowerCase()}`));
    state.dataset.state = room.state;
    const chart = cell("rooms.col.chart", "room-chart");
    if (room.chart === null) chart.append(el("span", t("rooms.no_chart"), "muted"));
    else {chart.append(
        el("span", room.chart.name ?? t("rooms.chart_unnamed"), "chart-name"),
        el("span", ` #${room.chart.id}`, "muted id"),
      );}
    const count = cell("rooms.col.players", "room-players");
    count.append(el("span", room.player_count, "room-count"), el("span", ` / ${room.max_users}`, "muted"));
    const lock = cell("rooms.col.lock", "room-lock");
    lock.append(
      toggle(
        room.locked,
        "rooms.locked",
        "rooms.unlocked",
        t(room.locked ? "rooms.unlock_hint" : "rooms.lock_hint"),
        () =>
          act(
            t(room.locked ? "what.unlock" : "what.lock", { room: room.name }),
            () => api("POST", `${path}/lock`, { locked: !room.locked }),
          ),
      ),
    );
    const cycle = cell("rooms.col.cycle", "room-cycle");
    cycle.append(
      toggle(
        room.cycle,
        "rooms.cycle_on",
        "rooms.cycle_off",
        t(room.cycle ? "rooms.cycle_on_hint" : "rooms.cycle_off_hint"),
        () =>
          act(
            t(room.cycle ? "what.cycle_off" : "what.cycle_on", { room: room.name }),
            () => api("POST", `${path}/cycle`, { cycle: !room.cycle }),
          ),
      ),
    );
    const members = cell("rooms.col.members", "room-members");
    members.append(memberList(room));
    const actions = cell(undefined, "actions");
    actions.append(button(t("action.disband"), () => {
      if (confirm(t("confirm.disband", { room: room.name }))) {
        act(t("what.disband", { room: room.name }), () => api("POST", `${path}/disband`));
      }
    }, "danger"));
    row.append(name, state, chart, count, lock, cycle, members, actions);
    return row;
  });
  body.replaceChildren(...rows);
}

function renderBans(bans) {
  const body = $("bans").tBodies[0];
  $("no-bans").hidden = bans.length > 0;
  body.replaceChildren(...bans.map((ban) => {
    const row = el("tr");
    row.dataset.user = String(ban.user_id);
    const actions = cell(undefined, "actions");
    actions.append(
      button(
        t("action.unban"),
        () => act(t("what.unban", { id: ban.user_id }), () => api("DELETE", `bans/${ban.user_id}`)),
      ),
    );
    const user = cell("bans.user");
    user.textContent = String(ban.user_id);
    const reason = cell("bans.reason", "ban-reason");
    reason.textContent = ban.reason;
    const since = cell("bans.since");
    since.textContent = new Date(ban.banned_at).toLocaleString(LANG);
    row.append(user, reason, since, actions);
    return row;
  }));
}

function render(state) {
  lastState = state;
  renderStatus(state);
  renderPlayers(state.players);
  renderRooms(state.rooms);
  renderBans(state.bans);
  document.body.dataset.updated = String(Date.now());
}

/**
 * Fetches the state and draws it. A call while a request is under way shares it (never two at once); `fresh`
 * waits for it and asks again, so what an action changed is in the answer.
 */
async function refresh(fresh) {
  if (inFlight) {
    if (!fresh) return inFlight;
    await inFlight;
    if (inFlight) return inFlight;
  }
  inFlight = (async () => {
    try {
      render(await api("GET", "state"));
    } catch (error) {
      if (!$("dashboard").hidden) status(t("action.refresh_failed", { error: error.message }), true);
    } finally {
      inFlight = null;
    }
  })();
  return inFlight;
}

// ---- Screens ----------------------------------------------------------------------------------------------------

function showLogin() {
  clearInterval(timer);
  timer = null;
  lastState = null;
  $("dashboard").hidden = true;
  $("summary").hidden = true;
  $("login").hidden = false;
  $("password").focus();
}

function showDashboard() {
  $("login").hidden = true;
  $("dashboard").hidden = false;
  $("summary").hidden = false;
  // A hidden tab skips its turns; it catches up as soon as it is shown again.
  if (timer === null) timer = setInterval(() => document.hidden || refresh(), REFRESH_MS);
  return refresh();
}

document.addEventListener("visibilitychange", () => {
  if (!document.hidden && timer !== null) refresh();
});

$("login-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  $("login-error").textContent = "";
  const input = $("password");
  try {
    await api("POST", "login", { password: input.value });
    input.value = "";
    await showDashboard();
  } catch (error) {
    $("login-error").textContent = error.message;
  }
});

$("ban-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const id = Number($("ban-user").value);
  const reason = $("ban-reason").value;
  act(t("what.ban", { id }), () => api("POST", "bans", reason ? { user_id: id, reason } : { user_id: id })).then(() => {
    $("ban-form").reset();
  });
});

$("player-filter").addEventListener("input", () => {
  if (lastState) renderPlayers(lastState.players);
});

$("logout-button").addEventListener("click", async () => {
  await api("POST", "logout").catch(() => {});
  showLogin();
});

translatePage();
(async () => {
  const session = await api("GET", "session").catch(() => ({ enabled: false, authenticated: false }));
  if (!session.enabled) {
    $("login").hidden = false;
    $("login-form").hidden = true;
    $("login-error").textContent = t("login.disabled");
    return;
  }
  if (session.authenticated) await showDashboard();
  else showLogin();
})();
