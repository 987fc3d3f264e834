// The tournament pages' shared code: follow the office's state over the WebSocket
// (/api/tournament/ws, falling back to polling), and draw a mat's small board, the
// bracket and the standings. The pages keep no tournament logic: everything comes
// from the office's state (docs/tournament.md).
"use strict";

const T = {};

T.esc = (s) =>
  String(s ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);

// Call `draw(state)` with every new state; returns nothing.
T.follow = function (draw) {
  let last = 0;
  const take = (s) => {
    if (s.seq >= last || s.seq < last - 1000) {
      last = s.seq;
      draw(s);
    }
  };
  const poll = () =>
    fetch("/api/tournament")
      .then((r) => r.json())
      .then(take)
      .catch(() => {});
  const open = () => {
    const ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/api/tournament/ws");
    ws.onmessage = (e) => take(JSON.parse(e.data));
    ws.onclose = () => {
      document.body.dataset.link = "lost";
      setTimeout(open, 1000);
    };
    ws.onopen = () => (document.body.dataset.link = "ok");
  };
  poll();
  open();
};

T.boardLayout = null;
T.loadBoard = () =>
  fetch("/api/board")
    .then((r) => r.json())
    .then((b) => (T.boardLayout = b));

// A small SVG board: the 29 stations, team 0's pieces blue, team 1's red.
T.miniBoard = function (board) {
  const b = T.boardLayout;
  if (!b) return "";
  const at = {};
  for (const s of b.stations) at[s.id] = s;
  let svg = '<svg class="mini" viewBox="0 0 100 100">';
  for (const [from, to] of b.links) {
    const p = at[from], q = at[to];
    svg += `<line x1="${p.x}" y1="${p.y}" x2="${q.x}" y2="${q.y}"/>`;
  }
  for (const s of b.stations) svg += `<circle class="st" cx="${s.x}" cy="${s.y}" r="${s.big ? 4 : 2.6}"/>`;
  (board || []).forEach((pieces, team) => {
    for (const [id, n] of Object.entries(pieces || {})) {
      const s = at[id];
      if (!s) continue;
      const dx = team === 0 ? -2.5 : 2.5;
      svg += `<circle class="p${team}" cx="${s.x + dx}" cy="${s.y}" r="3.6"/>`;
      if (n > 1) svg += `<text x="${s.x + dx}" y="${s.y + 1.6}">${n}</text>`;
    }
  });
  return svg + "</svg>";
};

T.clock = (ms) => {
  const s = Math.floor((ms || 0) / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
};

T.matCard = function (m) {
  const teams = m.teams || ["", ""];
  const cut = m.presence === "cut off" || m.presence === "no broker";
  const turn = (i) => (m.turn === i ? " turn" : "") + (m.winner === i ? " won" : "");
  return `<div class="mat ${cut ? "cut" : ""}" data-mat="${m.mat}">
    <div class="head"><b>Mat ${m.mat}</b> <span class="fx">${T.esc(m.fixture || m.assigned || "")}</span>
      <span class="presence">${cut ? (m.presence === "cut off" ? `CUT OFF ${m.presence_for_s} s` : "NO BROKER") : T.esc(m.presence)}</span></div>
    ${T.miniBoard(m.board)}
    <div class="score"><span class="t0${turn(0)}">${T.esc(teams[0])}</span>
      <b>${m.home[0]} : ${m.home[1]}</b>
      <span class="t1${turn(1)}">${T.esc(teams[1])}</span></div>
    <div class="call">${T.esc(m.last_call || (m.assigned && !m.fixture ? "waiting for the referee to accept " + m.assigned : ""))}</div>
    <div class="clock">${m.over ? "game over" : T.clock(m.clock_ms)}</div>
  </div>`;
};

T.stageName = (st) => {
  if (st.kind === "group") return "Group " + String.fromCharCode(65 + st.group);
  const left = st.rounds - st.round;
  return ["Final", "Semi-finals", "Quarter-finals"][left] || `Round of ${2 ** (left + 1)}`;
};

T.bracket = function (fixtures) {
  const cols = {};
  for (const f of fixtures) {
    if (f.stage.kind !== "knockout") continue;
    (cols[f.stage.round] = cols[f.stage.round] || []).push(f);
  }
  let html = '<div class="bracket">';
  for (const r of Object.keys(cols).sort((a, b) => a - b)) {
    html += `<div class="round"><h3>${T.stageName(cols[r][0].stage)}</h3>`;
    for (const f of cols[r]) html += T.fixtureBox(f);
    html += "</div>";
  }
  return html + "</div>";
};

T.fixtureBox = function (f) {
  const o = f.outcome;
  const side = (i) => {
    const name = f.teams[i] || (f.bye && !f.teams[i] ? "bye" : "…");
    const won = o && o.winner === i ? " won" : "";
    const pieces = o && o.how.kind !== "bye" ? ` <i>${o.pieces[i]}</i>` : "";
    return `<div class="side${won}">${T.esc(name)}${pieces}</div>`;
  };
  const where = f.mat ? `mat ${f.mat}` : o ? T.esc(o.how.kind) : "";
  return `<div class="fixture${f.conflict ? " conflict" : ""}" data-fixture="${T.esc(f.id)}" title="${T.esc(f.conflict || "")}">
    <span class="id">${T.esc(f.id)}</span> <span class="where">${where}</span>${side(0)}${side(1)}</div>`;
};

T.groups = function (groups) {
  return groups
    .map(
      (g) => `<table class="group"><caption>Group ${String.fromCharCode(65 + g.group)}${g.complete ? "" : " (playing)"}</caption>
      <tr><th>team</th><th>P</th><th>W</th><th>L</th><th>+</th><th>−</th><th>by</th></tr>
      ${g.rows
        .map(
          (r) => `<tr><td>${T.esc(r.team)}</td><td>${r.played}</td><td>${r.won}</td><td>${r.lost}</td>
          <td>${r.pieces_for}</td><td>${r.pieces_against}</td><td>${T.esc(r.decided_by || "")}</td></tr>`,
        )
        .join("")}</table>`,
    )
    .join("");
};

T.standings = (rows) =>
  `<ol class="standings">${rows.map((r) => `<li><b>${r.place}</b> ${T.esc(r.team)}</li>`).join("")}</ol>`;
