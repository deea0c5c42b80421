// Landing page: the number of players who used the server (GET /usertotal), and the register button.
"use strict";

document.addEventListener("DOMContentLoaded", async () => {
  const text = document.getElementById("user-total-text");
  const register = document.getElementById("register-open");
  register.addEventListener("click", () => Site.openLogin("register"));
  const showRegister = (user) => register.classList.toggle("hidden", !!user);
  showRegister(Site.currentUser());
  document.addEventListener("chorus:user", (e) => showRegister(e.detail));
  const total = await Site.getJson("/usertotal");
  if (total && typeof total.total_users === "number") {
    text.replaceChildren(
      document.createTextNode(""),
      Site.el("strong", { id: "user-total", text: String(total.total_users) }),
      document.createTextNode(
        total.total_users === 1 ? " player has used this server" : " players have used this server",
      ),
    );
  } else {
    text.textContent = "Could not load the player count";
  }
});
