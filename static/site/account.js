// Account page: the stored profile, and name and password changes through POST /usermgr/update_account (each needs
// the current password, sent once and cleared from the form).
"use strict";

(function () {
  let site = null;

  function render(user) {
    document.getElementById("logged-out").classList.toggle("hidden", !!user);
    document.getElementById("account").classList.toggle("hidden", !user);
    if (!user) return;
    document.querySelectorAll("#account .fade-in").forEach((n) => n.classList.add("visible"));
    const avatar = document.getElementById("account-avatar");
    if (user.image_url) avatar.src = user.image_url;
    else avatar.removeAttribute("src");
    document.getElementById("account-name").textContent = user.name;
    document.getElementById("account-id").textContent = String(user.id);
    const game = document.getElementById("account-game");
    game.replaceChildren(Site.el("a", {
      href: `${site.game_site_url}/user/${user.game_id}`,
      target: "_blank",
      rel: "noopener",
      text: user.game_name ? `${user.game_name} (${user.game_id})` : String(user.game_id),
    }));
    document.getElementById("account-rks").textContent = Number(user.game_rks || 0).toFixed(2);
    document.getElementById("account-created").textContent = Site.date(user.created_at);
    const badge = (on, text) => Site.el("span", { class: on ? "badge" : "badge off", text });
    document.getElementById("account-badges").replaceChildren(
      badge(user.admin === "yes", user.admin === "yes" ? "Administrator" : "Not an administrator"),
      badge(user.dev === "yes", user.dev === "yes" ? "Developer" : "Not a developer"),
    );
  }

  async function update(fields, button) {
    const user = Site.currentUser();
    if (!user) return false;
    button.disabled = true;
    const r = await Site.post("/usermgr/update_account", { user_id: user.id, ...fields });
    button.disabled = false;
    if (r.status === 200 && r.body && r.body.user) {
      Site.setUser(r.body.user);
      Site.message(r.body.message || "Account updated");
      return true;
    }
    Site.message(Site.reason(r), "error");
    return false;
  }

  document.addEventListener("DOMContentLoaded", async () => {
    site = await Site.info();
    render(Site.currentUser());
    document.addEventListener("chorus:user", (e) => render(e.detail));
    document.getElementById("account-login").addEventListener("click", () => Site.openLogin("login"));

    const nameForm = document.getElementById("name-form");
    nameForm.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      const name = document.getElementById("new-name");
      const current = document.getElementById("name-current");
      const password = current.value;
      current.value = "";
      if (
        await update(
          { new_username: name.value.trim(), current_password: password },
          document.getElementById("name-submit"),
        )
      ) {
        name.value = "";
      }
    });

    const pwForm = document.getElementById("password-form");
    pwForm.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      const current = document.getElementById("pw-current");
      const next = document.getElementById("pw-new");
      const confirm = document.getElementById("pw-confirm");
      const values = [current.value, next.value, confirm.value];
      current.value = next.value = confirm.value = "";
      if (values[1].length < 6) {
        Site.message("The new password needs at least 6 characters", "error");
        return;
      }
      if (values[1] !== values[2]) {
        Site.message("The new passwords do not match", "error");
        return;
      }
      await update(
        { current_password: values[0], new_password: values[1] },
        document.getElementById("password-submit"),
      );
    });
  });
})();
