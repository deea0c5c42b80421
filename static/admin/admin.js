// Chorus admin panel (spec 2 §4.2): log in, list rooms with state, player
// count and players, disband rooms, kick players, ban and unban player ids.
// Refreshes every 5 seconds. All text goes through textContent (player and
// room names come from users).
"use strict";

const REFRESH_MS = 5000;
const $ = (id) => document.getElementById(id);
let timer = null;

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

function el(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = String(text);
  if (className) node.className = className;
  return node;
}

function button(text, onClick, danger) {
  const b = el("button", text, danger ? "danger" : undefined);
  b.type = "button";
  b.addEventListener("click", onClick);
  return b;
}

function status(text, isError) {
  const s = $("status");
  s.textContent = text;
  s.className = isError ? "error" : "";
}

async function act(what, fn) {
  try {
    await fn();
    status(`${what}: done`);
  } catch (error) {
    status(`${what}: ${error.message}`, true);
  }
  await refresh();
}

function renderRooms(rooms) {
  const body = $("rooms").tBodies[0];
  body.replaceChildren();
  $("no-rooms").hidden = rooms.length > 0;
  for (const room of rooms) {
    const row = document.createElement("tr");
    row.dataset.room = room.name;
    const name = el("td", room.name, "room-name");
    if (room.hidden) name.append(el("span", "hidden", "badge"));
    if (room.locked) name.append(el("span", "locked", "badge"));
    row.append(name, el("td", room.state, "room-state"), el("td", room.player_count, "room-count"));
    const list = el("ul", undefined, "players");
    for (const p of room.players) {
      const item = el("li");
      item.dataset.user = String(p.id);
      item.append(el("span", `${p.name} (${p.id})${p.id === room.host ? " — host" : ""} `));
      item.append(
        button(
          "Kick",
          () =>
            act(`kick ${p.id}`, () => api("POST", `rooms/${encodeURIComponent(room.name)}/kick`, { user_id: p.id })),
          true,
        ),
      );
      list.append(item);
    }
    for (const m of room.monitors) list.append(el("li", `${m.name} (${m.id}) — monitor`));
    const players = el("td");
    players.append(list);
    const actions = el("td");
    actions.append(button("Disband", () => {
      if (confirm(`Disband room ${room.name}?`)) {
        act(`disband ${room.name}`, () => api("POST", `rooms/${encodeURIComponent(room.name)}/disband`));
      }
    }, true));
    row.append(players, actions);
    body.append(row);
  }
}

function renderBans(bans) {
  const body = $("bans").tBodies[0];
  body.replaceChildren();
  $("no-bans").hidden = bans.length > 0;
  for (const ban of bans) {
    const row = document.createElement("tr");
    row.dataset.user = String(ban.user_id);
    const actions = el("td");
    actions.append(button("Unban", () => act(`unban ${ban.user_id}`, () => api("DELETE", `bans/${ban.user_id}`))));
    row.append(
      el("td", ban.user_id),
      el("td", ban.reason),
      el("td", new Date(ban.banned_at).toLocaleString()),
      actions,
    );
    body.append(row);
  }
}

async function refresh() {
  let state;
  try {
    state = await api("GET", "state");
  } catch (error) {
    if (!$("dashboard").hidden) status(`refresh failed: ${error.message}`, true);
    return;
  }
  $("server-name").textContent = state.server_name;
  $("player-count").textContent = String(state.player_count);
  renderRooms(state.rooms);
  renderBans(state.bans);
  document.body.dataset.updated = String(Date.now());
}

function showLogin() {
  clearInterval(timer);
  timer = null;
  $("dashboard").hidden = true;
  $("summary").hidden = true;
  $("login").hidden = false;
  $("password").focus();
}

function showDashboard() {
  $("login").hidden = true;
  $("dashboard").hidden = false;
  $("summary").hidden = false;
  if (timer === null) timer = setInterval(refresh, REFRESH_MS);
  return refresh();
}

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
  act(`ban ${id}`, () => api("POST", "bans", reason ? { user_id: id, reason } : { user_id: id })).then(() => {
    $("ban-form").reset();
  });
});

$("logout-button").addEventListener("click", async () => {
  await api("POST", "logout").catch(() => {});
  showLogin();
});

(async () => {
  const session = await api("GET", "session").catch(() => ({ enabled: false, authenticated: false }));
  if (!session.enabled) {
    $("login").hidden = false;
    $("login-form").hidden = true;
    $("login-error").textContent = "The admin panel is disabled: no admin_password is configured.";
    return;
  }
  if (session.authenticated) await showDashboard();
  else showLogin();
})();
