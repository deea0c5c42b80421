// Room list: status by HEAD /roomsjson, rooms by GET /roomsjson, chart names and covers by /gameapi/chart/<id>.
"use strict";

(function () {
  const REFRESH_MS = 10_000;
  const charts = new Map(); // id -> Promise<chart | null>
  let site = null;

  function chart(id) {
    if (!charts.has(id)) charts.set(id, Site.getJson(`/gameapi/chart/${id}`));
    return charts.get(id);
  }

  async function status() {
    const line = document.getElementById("server-status");
    let up = false;
    try {
      up = (await fetch("/roomsjson", { method: "HEAD" })).ok;
    } catch {
      up = false;
    }
    line.textContent = up ? "Server status: online :)" : "Server status: offline :(";
    line.className = up ? "online" : "offline";
    return up;
  }

  function showMembers(room) {
    const list = document.getElementById("members-list");
    document.getElementById("members-title").textContent = `Members of ${room.name}`;
    list.replaceChildren(...room.users.map((u) => {
      const name = u.name || String(u.id);
      const host = u.id === room.host_id;
      return Site.el(
        "li",
        { class: host ? "host" : null, "data-user": u.id },
        Site.el("a", { href: `${site.game_site_url}/user/${u.id}`, target: "_blank", rel: "noopener", text: name }),
        host ? " (host)" : "",
      );
    }));
    document.getElementById("members-dialog").showModal();
  }

  function showCover(url) {
    document.getElementById("cover-large").src = url;
    document.getElementById("cover-dialog").showModal();
  }

  const STATES = {
    selecting_chart: "Choosing a chart",
    waiting_for_ready: "Getting ready",
    playing: "Playing",
    unknown: "—",
  };

  function row(room) {
    const host = room.host_id === null ? Site.el("span", { class: "muted", text: "—" }) : Site.el("a", {
      href: `${site.game_site_url}/user/${room.host_id}`,
      target: "_blank",
      rel: "noopener",
      text: room.host_name || String(room.host_id),
    });
    const chartCell = Site.el("td", { class: "room-chart" }, Site.el("span", { class: "muted", text: "—" }));
    const coverCell = Site.el("td", { class: "room-cover" });
    const downloadCell = Site.el("td", { class: "room-download" });
    const members = Site.el("button", {
      type: "button",
      class: "members-button",
      onclick: () => showMembers(room),
    }, `${room.user_count} ${room.user_count === 1 ? "member" : "members"}`);
    const tr = Site.el(
      "tr",
      { "data-room": room.name },
      Site.el("td", { class: "room-name", text: room.name }),
      Site.el("td", { class: "room-host" }, host),
      Site.el("td", { class: "room-count", text: String(room.user_count) }),
      Site.el("td", { class: `room-state ${room.state_code}`, text: STATES[room.state_code] || room.state }),
      Site.el("td", { class: "room-cycle", text: room.cycle ? "Yes" : "No" }),
      chartCell,
      coverCell,
      downloadCell,
      Site.el("td", {}, members),
    );
    if (room.chart_id !== null && room.chart_id !== undefined) {
      const id = room.chart_id;
      chartCell.replaceChildren(Site.el("a", {
        href: `${site.game_site_url}/chart/${id}`,
        target: "_blank",
        rel: "noopener",
        text: room.chart_name || `Chart ${id}`,
      }));
      chart(id).then((meta) => {
        if (!meta) return;
        chartCell.firstChild.textContent = meta.name;
        if (meta.illustration) {
          coverCell.replaceChildren(Site.el("img", {
            class: "thumb",
            src: meta.illustration,
            alt: `Cover of ${meta.name}`,
            loading: "lazy",
            onclick: () => showCover(meta.illustration),
          }));
        }
        if (meta.file) {
          downloadCell.replaceChildren(
            Site.el("a", { class: "button download", href: meta.file, rel: "noopener", text: "Download" }),
          );
        }
      });
    }
    return tr;
  }

  async function refresh() {
    const up = await status();
    const body = document.querySelector("#rooms tbody");
    const empty = document.getElementById("no-rooms");
    const rooms = up ? await Site.getJson("/roomsjson") : null;
    if (!Array.isArray(rooms)) {
      body.replaceChildren();
      empty.classList.remove("hidden");
      return;
    }
    body.replaceChildren(...rooms.map(row));
    empty.classList.toggle("hidden", rooms.length > 0);
  }

  document.addEventListener("DOMContentLoaded", async () => {
    site = await Site.info();
    document.getElementById("refresh-button").addEventListener("click", refresh);
    document.getElementById("cover-close").addEventListener(
      "click",
      () => document.getElementById("cover-dialog").close(),
    );
    document.getElementById("members-close").addEventListener(
      "click",
      () => document.getElementById("members-dialog").close(),
    );
    await refresh();
    setInterval(refresh, REFRESH_MS);
  });
})();
