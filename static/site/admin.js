// Admin page. Server control: commands through POST /postadmin/execute, each asking for the command service's three
// password parts in a dialog; API status by GET /roomsjson. User management through /usermgr/admin/*, each call
// asking for the role password it needs. Passwords are read from a dialog, sent once and not kept: nothing secret is
// in this file or in the page's storage.
"use strict";

(function () {
  let site = null;
  let users = [];
  const selected = new Set();

  const $ = (id) => document.getElementById(id);

  function gate(user) {
    const ok = !!user && user.admin === "yes";
    $("not-admin").classList.toggle("hidden", ok);
    $("panel").classList.toggle("hidden", !ok);
  }

  function tab(which) {
    $("tab-server").setAttribute("aria-selected", String(which === "server"));
    $("tab-users").setAttribute("aria-selected", String(which === "users"));
    $("server-tab").classList.toggle("hidden", which !== "server");
    $("users-tab").classList.toggle("hidden", which !== "users");
  }

  // ---- Server control ----
  async function execute(cmd, title, customText) {
    const parts = await Site.askSecrets(title, "Enter the three parts of the command service password.", [
      "Part 1",
      "Part 2",
      "Part 3",
    ]);
    if (!parts) return null;
    const form = new URLSearchParams({ pwd1: parts[0], pwd2: parts[1], pwd3: parts[2], cmd });
    if (customText !== undefined) form.set("custom_cmd", customText);
    let status = 0;
    let body = null;
    try {
      const res = await fetch("/postadmin/execute", { method: "POST", body: form });
      status = res.status;
      body = await res.json().catch(() => null);
    } catch {
      body = { status: "error", message: "The server cannot be reached" };
    }
    const out = $("command-output");
    const result = body && typeof body.result === "string" ? body.result : "";
    if (status === 200) {
      out.textContent = result || "(no output)";
      Site.message(`${body.command || cmd}: done`);
    } else {
      const why = (body && body.message) || `Request failed (${status})`;
      out.textContent = result ? `${why}\n\n${result}` : why;
      Site.message(why, "error");
    }
    return status === 200;
  }

  async function apiStatus() {
    const rooms = await Site.getJson("/roomsjson");
    const line = $("api-status");
    if (Array.isArray(rooms)) {
      line.textContent = "online";
      line.className = "online";
      $("api-rooms").textContent = `${rooms.length} ${rooms.length === 1 ? "room" : "rooms"}, ${
        rooms.reduce((n, r) => n + r.user_count, 0)
      } players in rooms`;
    } else {
      line.textContent = "offline";
      line.className = "offline";
      $("api-rooms").textContent = "";
    }
  }

  // ---- User management ----
  async function rolePassword(superOnly) {
    const title = superOnly ? "Super administrator password" : "Administrator password";
    const text = superOnly
      ? "This change needs the super administrator password."
      : "Enter the administrator or super administrator password.";
    const values = await Site.askSecrets(title, text, [title]);
    return values ? values[0] : null;
  }

  function shown() {
    const q = $("user-search").value.trim().toLowerCase();
    const filter = $("user-filter").value;
    return users.filter((u) => {
      if (filter === "admin" && u.admin !== "yes") return false;
      if (filter === "dev" && u.dev !== "yes") return false;
      if (filter === "plain" && (u.admin === "yes" || u.dev === "yes")) return false;
      return !q || u.name.toLowerCase().includes(q) || String(u.game_id).includes(q);
    });
  }

  function renderUsers() {
    const list = shown();
    const body = document.querySelector("#users tbody");
    body.replaceChildren(...list.map((u) => {
      const check = Site.el("input", {
        type: "checkbox",
        class: "select-user",
        "aria-label": `Select ${u.name}`,
        onchange: (ev) => {
          if (ev.target.checked) selected.add(u.id);
          else selected.delete(u.id);
          count();
        },
      });
      check.checked = selected.has(u.id);
      const avatar = u.image_url
        ? Site.el("img", { class: "avatar", src: u.image_url, alt: "", loading: "lazy" })
        : Site.el("span", { class: "muted", text: "—" });
      const badges = Site.el(
        "td",
        { class: "user-perms" },
        Site.el("span", { class: u.admin === "yes" ? "badge" : "badge off", text: "admin" }),
        Site.el("span", { class: u.dev === "yes" ? "badge" : "badge off", text: "dev" }),
      );
      return Site.el(
        "tr",
        { "data-user": u.id },
        Site.el("td", {}, check),
        Site.el("td", { text: String(u.id) }),
        Site.el("td", { class: "user-name", text: u.name }),
        Site.el("td", {}, avatar),
        Site.el(
          "td",
          {},
          Site.el("a", {
            href: `${site.game_site_url}/user/${u.game_id}`,
            target: "_blank",
            rel: "noopener",
            text: String(u.game_id),
          }),
        ),
        Site.el("td", { text: Number(u.game_rks || 0).toFixed(2) }),
        badges,
        Site.el("td", {}, Site.el("button", { type: "button", class: "edit-user", onclick: () => edit(u) }, "Edit")),
      );
    }));
    $("users-empty").textContent = users.length === 0
      ? "No users loaded."
      : list.length === 0
      ? "No user matches."
      : "";
    $("select-all").checked = list.length > 0 && list.every((u) => selected.has(u.id));
    count();
  }

  function count() {
    $("selected-count").textContent = `${selected.size} selected`;
  }

  async function loadUsers() {
    const password = await rolePassword(false);
    if (password === null) return;
    const r = await Site.post("/usermgr/admin/users", { password });
    if (r.status !== 200 || !r.body || !Array.isArray(r.body.users)) {
      Site.message(Site.reason(r), "error");
      return;
    }
    users = r.body.users;
    selected.clear();
    renderUsers();
    Site.message(`Loaded ${users.length} ${users.length === 1 ? "user" : "users"}`);
  }

  function replaceUser(updated) {
    users = users.map((u) => (u.id === updated.id ? updated : u));
  }

  async function batch(field, value) {
    if (selected.size === 0) {
      Site.message("Select users first", "error");
      return;
    }
    const password = await rolePassword(true);
    if (password === null) return;
    const ids = [...selected];
    const r = await Site.post("/usermgr/admin/batch-update", { password, user_ids: ids, changes: { [field]: value } });
    if (r.status !== 200 || !r.body) {
      Site.message(Site.reason(r), "error");
      return;
    }
    for (const result of r.body.results || []) {
      if (result.status === "success") {
        const u = users.find((x) => x.id === result.user_id);
        if (u) replaceUser({ ...u, [field]: value });
      }
    }
    renderUsers();
    Site.message(r.body.message || "Users updated");
  }

  let editing = null;
  function edit(u) {
    editing = u;
    $("edit-title").textContent = `Edit ${u.name}`;
    $("edit-name").value = u.name;
    $("edit-game-id").value = String(u.game_id);
    $("edit-password").value = "";
    $("edit-admin").checked = u.admin === "yes";
    $("edit-dev").checked = u.dev === "yes";
    $("edit-dialog").showModal();
  }

  async function saveEdit(ev) {
    ev.preventDefault();
    const u = editing;
    if (!u) return;
    const changes = {};
    const name = $("edit-name").value.trim();
    if (name !== u.name) changes.name = name;
    const gameId = Number($("edit-game-id").value);
    if (gameId !== u.game_id) changes.game_id = gameId;
    const newPassword = $("edit-password").value;
    $("edit-password").value = "";
    if (newPassword) changes.password = newPassword;
    const admin = $("edit-admin").checked ? "yes" : "no";
    if (admin !== u.admin) changes.admin = admin;
    const dev = $("edit-dev").checked ? "yes" : "no";
    if (dev !== u.dev) changes.dev = dev;
    $("edit-dialog").close();
    if (Object.keys(changes).length === 0) {
      Site.message("Nothing changed");
      return;
    }
    const password = await rolePassword("password" in changes || "admin" in changes || "dev" in changes);
    if (password === null) return;
    const r = await Site.post("/usermgr/admin/update", { password, user_id: u.id, changes });
    if (r.status === 200 && r.body && r.body.user) {
      replaceUser(r.body.user);
      renderUsers();
      Site.message(`${r.body.user.name}: user updated`);
    } else {
      Site.message(Site.reason(r), "error");
    }
  }

  document.addEventListener("DOMContentLoaded", async () => {
    site = await Site.info();
    gate(Site.currentUser());
    document.addEventListener("chorus:user", (e) => gate(e.detail));
    $("admin-login").addEventListener("click", () => Site.openLogin("login"));
    $("tab-server").addEventListener("click", () => tab("server"));
    $("tab-users").addEventListener("click", () => tab("users"));

    $("check-status").addEventListener("click", async () => {
      const ok = await execute("status", "Check the game server");
      if (ok === null) return;
      $("game-status").textContent = ok ? "check passed" : "check failed";
      $("game-status").className = ok ? "online" : "offline";
    });
    $("cmd-start").addEventListener("click", () => execute("start", "Start the game server"));
    $("cmd-restart").addEventListener("click", () => execute("restart", "Restart the game server"));
    $("cmd-stop").addEventListener("click", () => execute("stop", "Stop the game server"));
    $("api-check").addEventListener("click", apiStatus);
    if (site.custom_commands) {
      $("custom-form").classList.remove("hidden");
      $("custom-form").addEventListener("submit", (ev) => {
        ev.preventDefault();
        const text = $("custom-cmd").value.trim();
        if (!text) {
          Site.message("Enter a command", "error");
          return;
        }
        execute("custom", "Run a custom command", text);
      });
    }

    $("load-users").addEventListener("click", loadUsers);
    $("user-search").addEventListener("input", renderUsers);
    $("user-filter").addEventListener("change", renderUsers);
    $("select-all").addEventListener("change", (ev) => {
      for (const u of shown()) {
        if (ev.target.checked) selected.add(u.id);
        else selected.delete(u.id);
      }
      renderUsers();
    });
    for (const button of document.querySelectorAll("[data-batch]")) {
      const [field, value] = button.dataset.batch.split(":");
      button.addEventListener("click", () => batch(field, value));
    }
    $("edit-form").addEventListener("submit", saveEdit);
    $("edit-cancel").addEventListener("click", () => $("edit-dialog").close());
    await apiStatus();
  });
})();
