// Shared code of the Chorus site pages: navigation, login state in local storage (the public profile only — never a
// password, hash or token), message bars that vanish after 5 s, the login/register dialog, a one-shot password dialog,
// and the scroll fade-in. Pages add their own script after this one.
"use strict";

(function () {
  const USER_KEY = "chorus.user";
  const MESSAGE_MS = 5000;

  /** Creates an element with attributes and children (text is always set as text, never as HTML). */
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "class") node.className = v;
      else if (k === "text") node.textContent = v;
      else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
      else node.setAttribute(k, v === true ? "" : String(v));
    }
    for (const c of children) if (c !== null && c !== undefined) node.append(c);
    return node;
  }

  /** POSTs JSON; resolves with {status, body} (body null when the answer is not JSON). */
  async function post(path, payload) {
    try {
      const res = await fetch(path, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(payload),
      });
      let body = null;
      try {
        body = await res.json();
      } catch {
        body = null;
      }
      return { status: res.status, body };
    } catch {
      return { status: 0, body: { status: "error", message: "The server cannot be reached" } };
    }
  }

  /** GETs JSON or null. */
  async function getJson(path) {
    try {
      const res = await fetch(path);
      return res.ok ? await res.json() : null;
    } catch {
      return null;
    }
  }

  function currentUser() {
    try {
      const u = JSON.parse(localStorage.getItem(USER_KEY) || "null");
      return u && typeof u === "object" && typeof u.id === "number" ? u : null;
    } catch {
      return null;
    }
  }

  /** Stores the public profile (a copy without anything secret, whatever the server sent). */
  function setUser(u) {
    if (!u) {
      localStorage.removeItem(USER_KEY);
    } else {
      const keep = ["id", "name", "game_id", "game_name", "game_rks", "image_url", "admin", "dev", "created_at"];
      const clean = {};
      for (const k of keep) clean[k] = u[k];
      localStorage.setItem(USER_KEY, JSON.stringify(clean));
    }
    renderNav();
    document.dispatchEvent(new CustomEvent("chorus:user", { detail: currentUser() }));
  }

  /** Shows a message bar that disappears after 5 s. */
  function message(text, kind) {
    let box = document.getElementById("messages");
    if (!box) {
      box = el("div", { id: "messages", role: "status", "aria-live": "polite" });
      document.body.append(box);
    }
    const bar = el("div", { class: `message ${kind === "error" ? "error" : "success"}`, text });
    box.append(bar);
    setTimeout(() => bar.remove(), MESSAGE_MS);
    return bar;
  }

  /** The message of a service answer. */
  function reason(r, fallback) {
    return (r.body && typeof r.body.message === "string" && r.body.message) || fallback ||
      `Request failed (${r.status})`;
  }

  let siteInfo = null;
  async function info() {
    if (!siteInfo) {
      siteInfo = (await getJson("/site.json")) || {
        title: "Chorus",
        game_site_url: "https://phira.moe",
        custom_commands: false,
        services: {},
      };
    }
    return siteInfo;
  }

  function renderNav() {
    const nav = document.querySelector("nav.nav");
    if (!nav) return;
    const page = document.body.dataset.page;
    const user = currentUser();
    nav.replaceChildren();
    const link = (href, text, id) => el("a", { href, text, class: id === page ? "current" : null });
    const brand = el("a", { href: "/", class: "brand" }, "Chorus ", el("span", { text: "Phira" }));
    nav.append(brand, link("/rooms.html", "Rooms", "rooms"));
    if (user) nav.append(link("/account.html", "Account", "account"));
    if (user && user.admin === "yes") nav.append(link("/admin.html", "Admin", "admin"));
    nav.append(link("/privacy.html", "Privacy", "privacy"));
    if (user) {
      nav.append(
        el("span", { class: "who", id: "nav-user", text: user.name }),
        el("button", {
          type: "button",
          id: "logout-button",
          onclick: () => {
            setUser(null);
            message("Logged out");
          },
        }, "Log out"),
      );
    } else {
      nav.append(el("button", { type: "button", id: "login-open", onclick: () => openLogin("login") }, "Log in"));
    }
  }

  // ---- Login / register dialog ----
  let loginDialog = null;
  function buildLogin() {
    const tabLogin = el("button", { type: "button", id: "tab-login" }, "Log in");
    const tabRegister = el("button", { type: "button", id: "tab-register" }, "Register");
    const name = el("input", {
      id: "auth-name",
      name: "name",
      required: true,
      maxlength: 32,
      autocomplete: "username",
    });
    const password = el("input", { id: "auth-password", type: "password", required: true, maxlength: 1024 });
    const confirm = el("input", {
      id: "auth-confirm",
      type: "password",
      maxlength: 1024,
      autocomplete: "new-password",
    });
    const gameId = el("input", { id: "auth-game-id", inputmode: "numeric", pattern: "[0-9]{1,10}", maxlength: 10 });
    const registerOnly = el(
      "div",
      { id: "register-fields" },
      el("label", { for: "auth-confirm", text: "Confirm password" }),
      confirm,
      el("label", { for: "auth-game-id", text: "Phira user id (the account must have played on this server)" }),
      gameId,
    );
    const submit = el("button", { type: "submit", class: "primary", id: "auth-submit" }, "Log in");
    const cancel = el("button", { type: "button", onclick: () => dialog.close() }, "Cancel");
    const form = el(
      "form",
      { method: "dialog", id: "auth-form" },
      el("h2", { id: "auth-title", text: "Log in" }),
      el("div", { class: "tabs" }, tabLogin, tabRegister),
      el("label", { for: "auth-name", text: "User name" }),
      name,
      el("label", { for: "auth-password", text: "Password" }),
      password,
      registerOnly,
      el(
        "p",
        { class: "muted" },
        "By registering you accept the ",
        el("a", { href: "/privacy.html", text: "terms and privacy policy" }),
        ".",
      ),
      el("div", { class: "actions" }, submit, cancel),
    );
    const dialog = el("dialog", { id: "auth-dialog" }, form);
    let mode = "login";
    const setMode = (m) => {
      mode = m;
      registerOnly.hidden = m !== "register";
      confirm.required = m === "register";
      gameId.required = m === "register";
      password.autocomplete = m === "register" ? "new-password" : "current-password";
      tabLogin.setAttribute("aria-selected", String(m === "login"));
      tabRegister.setAttribute("aria-selected", String(m === "register"));
      submit.textContent = m === "login" ? "Log in" : "Register";
      form.querySelector("#auth-title").textContent = m === "login" ? "Log in" : "Register";
    };
    tabLogin.addEventListener("click", () => setMode("login"));
    tabRegister.addEventListener("click", () => setMode("register"));
    form.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      if (mode === "register" && password.value !== confirm.value) {
        message("The passwords do not match", "error");
        return;
      }
      if (mode === "register" && password.value.length < 6) {
        message("The password needs at least 6 characters", "error");
        return;
      }
      submit.disabled = true;
      const r = mode === "login"
        ? await post("/usermgr/login", { name: name.value, password: password.value })
        : await post("/usermgr/register", { name: name.value, password: password.value, game_id: gameId.value });
      submit.disabled = false;
      password.value = "";
      confirm.value = "";
      if (r.status === 200 && r.body && r.body.user) {
        setUser(r.body.user);
        dialog.close();
        message(mode === "login" ? `Welcome back, ${r.body.user.name}` : "Registration successful");
      } else {
        message(reason(r), "error");
      }
    });
    dialog.setMode = setMode;
    document.body.append(dialog);
    return dialog;
  }

  function openLogin(mode) {
    loginDialog = loginDialog || buildLogin();
    loginDialog.setMode(mode || "login");
    if (!loginDialog.open) loginDialog.showModal();
  }

  /**
   * Asks for secrets in a modal dialog; resolves with their values, or null when cancelled. The inputs are
   * cleared as soon as the values are read: the caller sends them once and keeps no copy.
   */
  function askSecrets(title, text, labels) {
    return new Promise((resolve) => {
      const inputs = labels.map((label, i) => {
        const id = `secret-${i}`;
        return [
          el("label", { for: id, text: label }),
          el("input", { id, type: "password", required: true, maxlength: 1024, autocomplete: "off" }),
        ];
      });
      const ok = el("button", { type: "submit", class: "primary", id: "secret-ok" }, "Continue");
      const cancel = el("button", { type: "button", id: "secret-cancel" }, "Cancel");
      const form = el(
        "form",
        { method: "dialog" },
        el("h2", { text: title }),
        el("p", { class: "muted", text }),
        ...inputs.flat(),
        el("div", { class: "actions" }, ok, cancel),
      );
      const dialog = el("dialog", { id: "secret-dialog" }, form);
      let result = null;
      form.addEventListener("submit", (ev) => {
        ev.preventDefault();
        result = inputs.map(([, input]) => input.value);
        for (const [, input] of inputs) input.value = "";
        dialog.close();
      });
      cancel.addEventListener("click", () => dialog.close());
      dialog.addEventListener("close", () => {
        dialog.remove();
        resolve(result);
      });
      document.body.append(dialog);
      dialog.showModal();
    });
  }

  // ---- Fade-in ----
  function fadeIn() {
    const items = document.querySelectorAll(".fade-in");
    if (!("IntersectionObserver" in globalThis)) {
      items.forEach((n) => n.classList.add("visible"));
      return;
    }
    const seen = new IntersectionObserver((entries) => {
      for (const e of entries) {
        if (e.isIntersecting) {
          e.target.classList.add("visible");
          seen.unobserve(e.target);
        }
      }
    }, { threshold: 0.08 });
    items.forEach((n) => seen.observe(n));
  }

  /** Formats an ISO date for people. */
  function date(iso) {
    const d = new Date(iso);
    return Number.isNaN(d.getTime())
      ? "—"
      : d.toLocaleDateString(undefined, { year: "numeric", month: "short", day: "numeric" });
  }

  globalThis.Site = {
    el,
    post,
    getJson,
    currentUser,
    setUser,
    message,
    reason,
    info,
    openLogin,
    askSecrets,
    date,
    renderNav,
  };

  document.addEventListener("DOMContentLoaded", () => {
    renderNav();
    fadeIn();
    info().then((i) => {
      if (i.title && document.title.indexOf(i.title) === -1) document.title = `${document.title} · ${i.title}`;
    });
  });
})();
