// Shared by every station page: labels (Korean first, ?lang=en for English), the
// yutstation-ws/1 WebSocket with its auto-reconnect, the board drawing, clocks.
// No framework and no build step: the server embeds this file as it is.
"use strict";

const YS = (() => {
  const params = new URLSearchParams(location.search);
  const lang = params.get("lang") === "en" ? "en" : "ko";

  /** The text for the page's language. */
  const t = (ko, en) => (lang === "en" ? en : ko);

  /** Swap every element's text for its data-en (and placeholders) when English. */
  function applyLabels(root = document) {
    document.documentElement.lang = lang;
    if (lang !== "en") return;
    root.querySelectorAll("[data-en]").forEach((el) => { el.textContent = el.dataset.en; });
    root.querySelectorAll("[data-en-placeholder]").forEach((el) => {
      el.placeholder = el.dataset.enPlaceholder;
    });
    // Links between pages keep the language.
    root.querySelectorAll("a[href^='/']").forEach((a) => {
      if (!a.href.includes("lang=")) a.href += (a.href.includes("?") ? "&" : "?") + "lang=en";
    });
  }

  const RESULTS = {
    do: ["도", "do"], gae: ["개", "gae"], geol: ["걸", "geol"], yut: ["윷", "yut"],
    mo: ["모", "mo"], backdo: ["빽도", "back-do"], nak: ["낙", "nak"],
  };
  const RESULT_IDS = Object.keys(RESULTS);
  /** A throw result as people say it. */
  const resultName = (r) => (r && RESULTS[r] ? t(RESULTS[r][0], RESULTS[r][1]) : "?");

  /** Who made a call: the camera, the referee, a throw entered by hand, or nobody yet. */
  const SOURCES = {
    automatic: ["자동", "automatic"], referee: ["심판", "referee"],
    manual: ["수동 입력", "entered by hand"], waiting: ["대기", "waiting"],
  };
  const sourceName = (s) => (SOURCES[s] ? t(SOURCES[s][0], SOURCES[s][1]) : s);

  function el(tag, attrs = {}, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) {
      if (k === "class") e.className = v;
      else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
      else if (v !== undefined && v !== null && v !== false) e.setAttribute(k, v);
    }
    for (const c of children.flat()) if (c !== null && c !== undefined) e.append(c);
    return e;
  }

  function mmss(ms) {
    const s = Math.max(0, Math.floor(ms / 1000));
    return `${String(Math.floor(s / 60)).padStart(2, "0")}:${String(s % 60).padStart(2, "0")}`;
  }

  /**
   * Follow the station over yutstation-ws/1. Calls onState(state, seq) when the seq
   * changes, onCall(call), onStatus(up). A socket that hears nothing for 3 s (the
   * server sends at least once a second) is dropped and reopened, with a growing
   * pause up to 3 s; the page shows a "reconnecting" badge meanwhile.
   */
  function follow({ token = null, onState = () => {}, onCall = () => {}, onStatus = () => {} } = {}) {
    let ws = null, lastSeq = -1, heard = 0, pause = 250;
    const setUp = (up) => {
      document.body.classList.toggle("offline", !up);
      onStatus(up);
    };
    function open() {
      const url = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/api/ws` +
        (token ? `?token=${encodeURIComponent(token)}` : "");
      ws = new WebSocket(url);
      heard = Date.now();
      ws.onopen = () => { pause = 250; };
      ws.onmessage = (ev) => {
        heard = Date.now();
        const m = JSON.parse(ev.data);
        if (m.type === "hello") setUp(true);
        else if (m.type === "state" && m.seq !== lastSeq) {
          lastSeq = m.seq;
          onState(m.state, m.seq);
        } else if (m.type === "call") onCall(m.call);
      };
      ws.onclose = (ev) => {
        // Kept for whoever debugs a flaky link (and for the browser tests).
        YS.closes.push({ at: Date.now(), code: ev.code, reason: ev.reason, quiet: Date.now() - heard });
        setUp(false);
        ws = null;
        setTimeout(open, pause);
        pause = Math.min(pause * 2, 3000);
      };
    }
    setInterval(() => {
      if (ws && ws.readyState === WebSocket.OPEN && Date.now() - heard > 3000) ws.close();
    }, 500);
    setUp(false);
    open();
  }

  /** The last throw's call, from state.last_call or else from the match's items. */
  function lastCall(state) {
    if (state && state.last_call) return state.last_call;
    const items = (state && state.match && state.match.items) || [];
    for (let i = items.length - 1; i >= 0; i--) {
      const th = items[i].input.throw;
      if (!th) continue;
      const v = th.verdict || {};
      const result = th.wrong_player ? "nak" : th.call ? th.call.result : null;
      return {
        throw: th.number, team: th.team, thrower: th.thrower, result,
        korean: result ? RESULTS[result][0] : null,
        source: th.call ? th.call.by : "waiting",
        best_guess: v.result || null, confidence: v.confidence ?? null,
        flags: v.flags || [], evidence: v.evidence || [], height_mm: null, at_ms: th.at_ms,
      };
    }
    return null;
  }

  /**
   * Clocks as of now: the state carries them read at state.now_ms; the page advances
   * running ones by the time since the state arrived.
   */
  function clocks(state, receivedAt) {
    const m = state && state.match;
    if (!m) return null;
    const since = Date.now() - receivedAt;
    const over = m.game.phase === "over";
    const opts = (state.setup && state.setup.options) || {};
    const inTimeout = !!m.timeout;
    const gameRuns = m.started && !over && (!inTimeout || opts.game_clock_runs_in_timeout);
    const out = { game: m.game_clock_ms + (gameRuns ? since : 0), throw: null, timeout: null };
    if (m.throw_clock) {
      const elapsed = m.throw_clock.elapsed_ms + (inTimeout || over ? 0 : since);
      out.throw = { left: m.throw_clock.limit_ms - elapsed, over: elapsed >= m.throw_clock.limit_ms };
    }
    if (inTimeout) {
      const len = (opts.timeout_length_s || 60) * 1000;
      out.timeout = { team: m.timeout.team, left: len - (state.now_ms + since - m.timeout.start_ms) };
    }
    return out;
  }

  async function api(path, { method = "GET", body, token } = {}) {
    const headers = {};
    if (body !== undefined) headers["Content-Type"] = "application/json";
    if (token) headers.Authorization = `Bearer ${token}`;
    const res = await fetch(path, {
      method, headers, body: body === undefined ? undefined : (typeof body === "string" ? body : JSON.stringify(body)),
    });
    let data = null;
    try { data = await res.json(); } catch (_) { data = null; }
    if (!res.ok) {
      const msg = (data && data.error) || `${res.status} ${res.statusText}`;
      throw new Error(msg);
    }
    return data;
  }

  const SVGNS = "http://www.w3.org/2000/svg";
  function svg(tag, attrs = {}, text) {
    const e = document.createElementNS(SVGNS, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    return e;
  }

  /**
   * Draw the round board from /api/board into `host`; returns draw(state, targets)
   * which places each team's pieces with stack counts and, for the console,
   * highlights `targets` (station ids a legal move reaches) as tap targets.
   */
  async function board(host, { onTap = null, names = true } = {}) {
    const b = await api("/api/board");
    const byId = Object.fromEntries(b.stations.map((s) => [s.id, s]));
    const root = svg("svg", { class: "board", viewBox: "0 0 100 100", role: "img" });
    for (const [a, c] of b.links) {
      root.append(svg("line", { class: "link", x1: byId[a].x, y1: byId[a].y, x2: byId[c].x, y2: byId[c].y }));
    }
    const stationEls = {};
    for (const s of b.stations) {
      const r = s.big ? 4.4 : 3.2;
      const c = svg("circle", { class: `station${s.big ? " big" : ""}`, cx: s.x, cy: s.y, r, "data-id": s.id });
      if (onTap) c.addEventListener("click", () => onTap(s.id));
      stationEls[s.id] = c;
      root.append(c);
      if (names) {
        const below = s.y >= 50 ? r + 2.6 : -(r + 1.0);
        root.append(svg("text", { class: "name", x: s.x, y: s.y + below }, s.korean));
      }
    }
    const layer = svg("g", { class: "pieces" });
    root.append(layer);
    host.replaceChildren(root);
    const draw = (state, targets = []) => {
      layer.replaceChildren();
      for (const s of b.stations) stationEls[s.id].classList.remove("target");
      for (const id of targets) if (stationEls[id]) stationEls[id].classList.add("target");
      const teams = (state && state.match && state.match.game.teams) || [];
      teams.forEach((team, ix) => {
        for (const [id, n] of Object.entries(team.board)) {
          const s = byId[id];
          if (!s) continue;
          const dx = teams.length > 1 ? (ix === 0 ? -1.4 : 1.4) : 0;
          const g = svg("g", { class: "stack", "data-team": ix, "data-station": id, "data-count": n });
          g.append(svg("circle", { class: `piece t${ix}`, cx: s.x + dx, cy: s.y, r: 3.0 }));
          g.append(svg("text", { class: "count", x: s.x + dx, y: s.y }, String(n)));
          if (onTap) g.addEventListener("click", () => onTap(id));
          layer.append(g);
        }
      });
    };
    draw.stations = byId;
    return draw;
  }

  /** A station's Korean (or id) name; "waiting"/"finished" as words. */
  function placeName(boardStations, id) {
    if (id === "waiting") return t("대기", "waiting");
    if (id === "finished") return t("나기", "home");
    const s = boardStations && boardStations[id];
    return s ? (lang === "en" ? `${s.korean} (${id})` : s.korean) : id;
  }

  /** The "re-check" button after the camera moved (the console's and
   * /calibrate's): asks the station to find the mat again and says what it
   * answered in `#recheck-said`. `token()`: the page's login token now. */
  function wireRecheck(token) {
    const said = document.getElementById("recheck-said");
    document.getElementById("recheck").addEventListener("click", async (ev) => {
      ev.target.disabled = true;
      try {
        const r = await api("/api/calibrate/recheck", { method: "POST", token: token(), body: {} });
        said.textContent = r.message;
        said.className = r.ok ? "okline" : "error";
      } catch (e) { said.textContent = e.message; said.className = "error"; }
      finally { ev.target.disabled = false; }
    });
  }

  return { closes: [], lang, t, applyLabels, RESULTS, RESULT_IDS, resultName, sourceName, el, mmss, follow, lastCall, clocks, api, board, placeName, wireRecheck };
})();
