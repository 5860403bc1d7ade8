"use strict";
(function () {
  const D = JSON.parse(document.getElementById("replay-data").textContent);
  const LAST = D.steps.length - 1;
  // suit letter → [symbol, colour class, name]: symbols and names from the page's data (protocol.cards, C-3)
  const COLOUR = { C: "black", D: "red", H: "red", S: "black", K: "kitten", R: "rooster", T: "turtle", F: "fish" };
  const SUITS = {};
  for (const [letter, [symbol, name]] of Object.entries(D.suits)) SUITS[letter] = [symbol, COLOUR[letter], name];
  const CARD = /^(?:(10|[2-9JQKA])([CDHS])|([0-9])([KRTF]))$/;
  const CARD_IN_TEXT = /\b(?:10|[2-9JQKA])[CDHS]\b|\b[0-9][KRTF]\b/g;
  const $ = (id) => document.getElementById(id);
  let cur = 0;
  let view = "all";

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "class") node.className = v; else if (k === "text") node.textContent = v; else node.setAttribute(k, v);
    }
    for (const child of children.flat()) {
      if (child === null || child === undefined) continue;
      node.append(typeof child === "string" ? document.createTextNode(child) : child);
    }
    return node;
  }
  const isCard = (v) => typeof v === "string" && CARD.test(v);
  let trumpSuit = null;

  function card(text, mini) {
    const m = CARD.exec(text);
    const rank = m[1] || m[3];
    const suit = m[2] || m[4];
    const [symbol, colour, name] = SUITS[suit];
    const classes = ["card", colour, mini ? "mini" : "", suit === trumpSuit ? "trump" : ""].join(" ").trim();
    return el("span", { class: classes, "data-card": text, title: `${rank} of ${name}${suit === trumpSuit ? " (trump)" : ""}` },
      el("span", { class: "r" }, rank, el("span", { class: "cs", text: symbol })), el("span", { class: "s", text: symbol }));
  }
  function backs(n) {
    const out = [];
    for (let i = 0; i < n; i++) out.push(el("span", { class: "card back", title: "a hidden card" }));
    return out;
  }
  function suitMark(letter) {
    const s = SUITS[letter];
    return s ? el("span", { class: `suit ${s[1]}`, title: s[2] }, `${s[0]} ${s[2]}`) : el("span", {}, String(letter));
  }
  // Narration with the cards in it drawn small.
  function words(text) {
    const node = el("span");
    let at = 0;
    for (const m of text.matchAll(CARD_IN_TEXT)) {
      node.append(text.slice(at, m.index), card(m[0], true));
      at = m.index + m[0].length;
    }
    node.append(text.slice(at));
    return node;
  }
  function value(v) {
    if (v === null || v === undefined) return el("span", { class: "note", text: "\u2013" });
    if (typeof v === "boolean") return el("span", { text: v ? "yes" : "no" });
    if (typeof v === "number") return el("span", { text: String(v) });
    if (typeof v === "string") return isCard(v) ? card(v, true) : el("span", { text: v });
    if (Array.isArray(v)) {
      if (v.length === 0) return el("span", { class: "note", text: "none" });
      return el("span", { class: "value-list" }, v.map((x) => Array.isArray(x) ? el("span", { class: "group" }, value(x)) : value(x)));
    }
    return el("span", { class: "obj" },
      Object.entries(v).map(([k, x]) => el("span", {}, el("i", { text: `${k.replace(/_/g, " ")}: ` }), value(x))));
  }

  const step = () => D.steps[cur];
  // A seat's own words, times and faults are its own: shown in the referee's view and in that seat's, no other.
  const visible = (s) => view === "all" || view === s;
  const shownFaults = () => D.faults.filter((f) => visible(f.seat));
  const SVG = $("time-charts-ns").namespaceURI;  // the SVG namespace, from the page's own empty <svg>
  function svg(tag, attrs, ...children) {
    const node = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs || {})) if (k === "text") node.textContent = v; else node.setAttribute(k, v);
    node.append(...children);
    return node;
  }
  // Microseconds in words: 840 µs, 12.3 ms, 2.41 s.
  function dur(us) {
    if (us < 1000) return `${us} \u00b5s`;
    if (us < 10000000) return `${(us / 1000).toFixed(us < 100000 ? 1 : 0)} ms`;
    return `${(us / 1000000).toFixed(2)} s`;
  }
  const timeAt = (d) => (Array.isArray(D.times) && typeof D.times[d] === "number" ? D.times[d] : null);
  // What seat s observed at this step: the shared fields and its own.
  function observation(s) { return Object.assign({}, step().public, step().seats[s]); }
  // The fields the page shows: a seat's observation in its view, the shared ones with every hand otherwise.
  function shown() { return view === "all" ? step().public : observation(view); }
  const scalar = (x) => x === null || ["number", "string", "boolean"].includes(typeof x);
  const teamNames = D.teams.length ? D.teams.map((_, i) => String.fromCharCode(65 + i)) : [];
  // Lists of seats (an order of play), not a value per seat, and the titles and roles the seats' badges show.
  const SEAT_LISTS = ["finishing_order", "play_order", "priority", "titles", "roles"];
  const perSeat = (k, v) => Array.isArray(v) && v.length === D.seats && v.every(scalar) && !SEAT_LISTS.includes(k);
  const perTeam = (v) => v && typeof v === "object" && !Array.isArray(v) && teamNames.length &&
    Object.keys(v).length && Object.keys(v).every((k) => teamNames.includes(k)) && Object.values(v).every(scalar);
  const TABLE_KEYS = ["trump", "trump_card", "trump_card_holder", "trump_card_drawn_by", "stock", "discard", "table",
    "trick"];
  const SEAT_KEYS = ["seat", "hand", "events", "attacker", "defender", "leader", "dealer", "active"];

  function renderTable(obs) {
    const box = $("table");
    box.replaceChildren();
    trumpSuit = typeof obs.trump === "string" && SUITS[obs.trump] ? obs.trump : null;
    const facts = el("div", { class: "facts" });
    if ("trump" in obs) facts.append(el("span", { class: "fact", id: "trump" }, el("span", { class: "label", text: "trump" }),
      obs.trump ? suitMark(obs.trump) : el("span", { class: "empty", text: "none" })));
    if (obs.trump_card) {
      const holder = obs.trump_card_holder ?? obs.trump_card_drawn_by;
      facts.append(el("span", { class: "fact", id: "trump-card" }, el("span", { class: "label", text: "turned up" }),
        card(obs.trump_card), holder !== null && holder !== undefined
          ? el("span", { class: "label", text: `held by seat ${holder}` }) : null));
    }
    for (const k of ["stock", "discard"]) {
      if (k in obs) facts.append(el("span", { class: "fact", id: k }, el("span", { class: "label", text: k }),
        el("b", { text: String(obs[k]) })));
    }
    box.append(el("h2", { text: "The table" }), facts);
    const cards = el("div", { id: "table-cards" });
    if (Array.isArray(obs.table)) {  // durak: attacks and their covers
      cards.className = "pairs";
      for (const p of obs.table) {
        cards.append(el("div", { class: "pair", title: `seat ${p.owner}${p.thrown_in ? ", thrown in" : ""}` },
          card(p.card), p.cover ? card(p.cover) : null));
      }
    } else if (Array.isArray(obs.trick)) {  // trick games: the trick in play
      cards.className = "trick";
      for (const p of obs.trick) cards.append(el("div", { class: "play" }, card(p.card), el("span", { class: "tag", text: `seat ${p.seat}` })));
    }
    if (!cards.childNodes.length) cards.append(el("span", { class: "empty", text: "no cards on the table" }));
    box.append(cards);
  }

  function renderSeats(obs) {
    const box = $("seats");
    box.replaceChildren();
    const st = step();
    for (let s = 0; s < D.seats; s++) {
      const mine = view === "all" || view === s;
      const own = mine ? observation(s) : obs;
      const badges = [];
      if (st.to_act === s) badges.push(el("span", { class: "badge act", text: "to act" }));
      if (D.teams.length) D.teams.forEach((t, i) => { if (t.includes(s)) badges.push(el("span", { class: "badge", text: `team ${teamNames[i]}` })); });
      for (const k of ["attacker", "defender", "leader", "dealer"]) if (obs[k] === s) badges.push(el("span", { class: "badge", text: k }));
      for (const k of ["titles", "roles"]) if (Array.isArray(obs[k]) && obs[k][s]) badges.push(el("span", { class: "badge role", text: obs[k][s] }));
      if (Array.isArray(obs.active) && obs.active[s] === false) badges.push(el("span", { class: "badge", text: "out" }));
      const faults = D.faults.filter((f) => f.seat === s && f.decision <= cur);
      if (faults.length && (view === "all" || view === s)) badges.push(el("span", { class: "badge fault", text: `${faults.length} fault${faults.length > 1 ? "s" : ""}` }));
      const hand = el("div", { class: "hand" });
      const size = Array.isArray(obs.hand_sizes) ? obs.hand_sizes[s] : null;
      if (mine && Array.isArray(own.hand)) {
        own.hand.forEach((c) => hand.append(isCard(c) ? card(c) : value(c)));
        hand.append(el("span", { class: "count", text: `${own.hand.length} card${own.hand.length === 1 ? "" : "s"}` }));
      } else if (size !== null && size !== undefined) {
        hand.append(...backs(size), el("span", { class: "count", text: `${size} hidden` }));
      } else {
        hand.append(el("span", { class: "note", text: "not seen" }));
      }
      const extra = el("div", { class: "private" });
      if (mine) {  // the seat's own fields besides its hand (a team word, a private hand of the reign, …)
        for (const [k, v] of Object.entries(st.seats[s])) {
          if (SEAT_KEYS.includes(k) || k === "team") continue;
          extra.append(el("div", {}, el("span", { class: "note", text: `${k.replace(/_/g, " ")}: ` }), value(v)));
        }
      }
      box.append(el("div", { class: `seat${st.to_act === s ? " to-act" : ""}${Array.isArray(obs.active) && obs.active[s] === false ? " out" : ""}`, "data-seat": s },
        el("h3", {}, `Seat ${s}`, el("span", { class: "bot", text: D.bots[s] || "" }), badges), hand, extra));
    }
  }

  function renderScores(obs) {
    const box = $("scores");
    box.replaceChildren();
    const rows = Object.entries(obs).filter(([k, v]) => perSeat(k, v) && !SEAT_KEYS.includes(k));
    const teams = Object.entries(obs).filter(([, v]) => perTeam(v));
    if (rows.length) {
      const t = el("table", { class: "grid", id: "seat-scores" },
        el("tr", {}, el("th", { text: "" }), [...Array(D.seats).keys()].map((s) => el("th", { text: `seat ${s}` }))));
      for (const [k, v] of rows) {
        t.append(el("tr", { "data-field": k }, el("th", { text: k.replace(/_/g, " ") }),
          v.map((x, s) => el("td", { "data-field": k, "data-seat": s }, value(x)))));
      }
      box.append(t);
    }
    if (teams.length) {
      const t = el("table", { class: "grid", id: "team-scores" },
        el("tr", {}, el("th", { text: "" }), teamNames.map((n) => el("th", { text: `team ${n}` }))));
      for (const [k, v] of teams) {
        t.append(el("tr", { "data-field": k }, el("th", { text: k.replace(/_/g, " ") }),
          teamNames.map((n) => el("td", { "data-field": k, "data-team": n }, value(v[n])))));
      }
      box.append(t);
    }
    const rest = Object.entries(obs).filter(([k, v]) => !TABLE_KEYS.includes(k) && !SEAT_KEYS.includes(k) &&
      !perSeat(k, v) && !perTeam(v) && k !== "game" && k !== "seats" && k !== "team" && k !== "teams");
    const dl = el("dl", { id: "state-fields" });
    for (const [k, v] of rest) dl.append(el("dt", { text: k.replace(/_/g, " ") }), el("dd", { "data-field": k }, value(v)));
    $("state").replaceChildren(el("h2", { text: "The rest of the state" }), dl);
    if (!rows.length && !teams.length) box.append(el("span", { class: "note", text: "no scores yet" }));
  }

  function renderDecision() {
    const st = step();
    const box = $("decision-text");
    const who = st.to_act;
    box.replaceChildren();
    if (who === null) {
      box.append(el("div", { class: "played", text: D.result.aborted ? "The game was aborted at the safety limit." : "The game is over." }));
      const t = el("table", { class: "grid", id: "result" }, el("tr", {}, el("th", { text: "seat" }), el("th", { text: "bot" }),
        el("th", { text: "place" }), el("th", { text: "score" })));
      D.result.places.forEach((p, s) => t.append(el("tr", {}, el("td", { text: `seat ${s}` }), el("td", { text: D.bots[s] }),
        el("td", { text: String(p) }), el("td", { text: D.result.scores[s] }))));
      box.append(t);
    } else {
      box.append(el("div", {}, `Seat ${who} (${D.bots[who]}) to act.`));
      if (visible(who)) {
        const more = st.legal_count > st.legal.length ? ` \u2026 ${st.legal_count - st.legal.length} more` : "";
        box.append(el("div", { class: "legal" }, `${st.legal_count} legal: `, words(st.legal.join(", ") + more)));
        box.append(el("div", { class: "played", id: "played" }, "Played: ", words(D.actions[cur])));
      }
    }
    if (who !== null && visible(who)) {
      const t = timeAt(cur);
      const limit = D.limits[who];
      const share = limit ? (100 * t) / (limit * 1000) : null;
      // A seat that timed out, stalled or crashed here did not answer in time, or at all: its time is how long the
      // referee waited (or, an in-process bot's late answer, how long it took).
      const silent = D.faults.find((f) => f.decision === cur && f.seat === who && !f.answered);
      if (t !== null) box.append(el("div", { class: "took", id: "took" },
        (silent ? `No answer in time (${silent.kind}): ${dur(t)}` : `Answered in ${dur(t)}`) +
        (limit ? ` (${share.toFixed(share < 10 ? 1 : 0)}% of its ${limit} ms limit).` : ".")));
      const said = D.said[String(cur)];
      if (said && said.note) box.append(el("div", { class: "said" }, el("span", { class: "note", text: `Seat ${who}'s note with its answer:` }),
        el("pre", { id: "said-note", text: said.note })));
      if (said && said.stderr) box.append(el("div", { class: "said" }, el("span", { class: "note", text: `What seat ${who} wrote on stderr while deciding:` }),
        el("pre", { id: "said-stderr", text: said.stderr })));
    }
    for (const f of D.faults.filter((x) => x.decision === cur && visible(x.seat))) {
      const instead = f.played !== null ? `; the referee played ${f.played} instead` : "";
      box.append(el("div", { class: "fault-line" }, words(`Fault: seat ${f.seat} (${D.bots[f.seat]}) ${f.kind}: ${f.message}${instead}`)));
    }
    const heard = view === "all" ? st.events : st.seats[view].events;
    $("events-list").replaceChildren(...(heard.length ? heard.map((e) => el("li", {}, words(e)))
      : [el("li", { class: "note", text: "nothing" })]));
  }

  // Per seat, the time it took at each decision it was asked: a bar per decision on the game's width, the limit
  // dashed where the page knows it and it is on the scale, the current decision marked (moved by render).
  function buildTimes() {
    const box = $("time-charts");
    box.replaceChildren();
    if (!D.times.length) {
      box.append(el("p", { class: "note", text: "The record holds no times (not measured)." }));
      return;
    }
    const W = 600, H = 60, span = Math.max(LAST, 1);
    for (let s = 0; s < D.seats; s++) {
      if (!visible(s)) continue;
      const asked = [];
      for (let d = 0; d < LAST; d++) if (D.steps[d].to_act === s && timeAt(d) !== null) asked.push(d);
      const head = el("div", { class: "note" }, el("b", { text: `Seat ${s}` }), ` (${D.bots[s]})`);
      const chart = el("div", { class: "time-chart", "data-seat": s }, head);
      box.append(chart);
      if (!asked.length) { head.append(": never asked"); continue; }
      const times = asked.map(timeAt);
      const longest = Math.max(...times);
      const sorted = [...times].sort((a, b) => a - b);
      const limit = D.limits[s] ? D.limits[s] * 1000 : null;
      const onScale = limit !== null && limit <= 4 * longest;
      const top = Math.max(longest, onScale ? limit : 0, 1);
      head.append(`: median ${dur(sorted[Math.floor((sorted.length - 1) / 2)])}, longest ${dur(longest)}` +
        (limit === null ? "" : `, limit ${D.limits[s]} ms${onScale ? " (dashed)" : ` (${(limit / longest).toFixed(0)}\u00d7 the longest)`}`));
      const plot = svg("svg", { viewBox: `0 0 ${W} ${H}`, preserveAspectRatio: "none", role: "img",
        "aria-label": `seat ${s}: time per decision` });
      const faulted = new Set(D.faults.filter((f) => f.seat === s).map((f) => f.decision));
      const width = Math.max(W / (span + 1), 1.5);
      asked.forEach((d, i) => {
        const h = Math.max(H * times[i] / top, 0.8);
        plot.append(svg("rect", { x: (W * d / span).toFixed(1), y: (H - h).toFixed(1), width: width.toFixed(1), height: h.toFixed(1),
          class: faulted.has(d) ? "bar fault" : "bar", "data-decision": d }, svg("title", { text: `decision ${d}: ${dur(times[i])}` })));
      });
      if (onScale) {
        const y = (H - H * limit / top).toFixed(1);
        plot.append(svg("line", { x1: 0, x2: W, y1: y, y2: y, class: "limit" }));
      }
      plot.append(svg("line", { x1: 0, x2: 0, y1: 0, y2: H, class: "now" }));
      plot.addEventListener("click", (e) => {
        const r = plot.getBoundingClientRect();
        go(Math.round(span * (e.clientX - r.left) / r.width));
      });
      chart.append(plot);
    }
  }
  function moveTimes() {
    const x = (600 * cur / Math.max(LAST, 1)).toFixed(1);
    for (const line of document.querySelectorAll("#time-charts line.now")) { line.setAttribute("x1", x); line.setAttribute("x2", x); }
  }
  // The faults of the view as marks under the slider, each a button to its decision.
  function buildMarks() {
    const box = $("marks");
    box.replaceChildren();
    for (const f of shownFaults()) {
      const mark = el("button", { class: "mark", title: `decision ${f.decision}: seat ${f.seat} ${f.kind}`, "data-decision": f.decision,
        "aria-label": `fault at decision ${f.decision}` });
      mark.style.left = `${(100 * f.decision / Math.max(LAST, 1)).toFixed(2)}%`;
      mark.addEventListener("click", () => go(f.decision));
      box.append(mark);
    }
    for (const details of document.querySelectorAll("#stderr details[data-seat]")) details.hidden = !visible(+details.dataset.seat);
    if ($("stderr")) $("stderr").hidden = !document.querySelector("#stderr details:not([hidden])");
  }
  function faultFrom(d, direction) {
    const at = shownFaults().map((f) => f.decision).filter((x) => (direction > 0 ? x > d : x < d));
    return at.length ? (direction > 0 ? Math.min(...at) : Math.max(...at)) : null;
  }

  function render() {
    const obs = shown();
    renderTable(obs);
    renderSeats(obs);
    renderScores(obs);
    renderDecision();
    $("where").textContent = cur === LAST ? `end (${LAST} decisions)` : `decision ${cur} of ${LAST}`;
    $("slider").value = String(cur);
    $("viewing").textContent = view === "all"
      ? "Everything the referee knows: every hand face up."
      : `As seat ${view} (${D.bots[view]}) saw it: only what its observation held at this decision.`;
    moveTimes();
    const next = faultFrom(cur, 1);
    $("next-fault").disabled = next === null;
    $("next-fault").title = next === null ? "no fault after this decision" : `the next fault: decision ${next} (f; Shift+F the previous)`;
    document.body.dataset.decision = String(cur);
    document.body.dataset.view = String(view);
  }

  function go(d, keepHash) {
    cur = Math.max(0, Math.min(LAST, d));
    render();
    if (!keepHash) history.replaceState(null, "", address());
  }
  const address = () => `#d=${cur}${view === "all" ? "" : `&seat=${view}`}`;
  function setView(v) {
    view = v;
    $("view").value = String(view);
    buildTimes();
    buildMarks();
  }
  function fromHash() {
    const params = new URLSearchParams(location.hash.slice(1));
    const seat = params.get("seat");
    setView(seat !== null && /^\d+$/.test(seat) && +seat < D.seats ? +seat : "all");
    const d = params.get("d");
    // a decision past the end is the end; anything else unreadable, the deal (the address then says which)
    go(d !== null && /^\d{1,9}$/.test(d) ? +d : 0, true);
    if (location.hash && location.hash !== address()) history.replaceState(null, "", address());
  }

  const select = $("view");
  select.append(el("option", { value: "all", text: "everything (the referee)" }));
  for (let s = 0; s < D.seats; s++) select.append(el("option", { value: String(s), text: `as seat ${s} (${D.bots[s]}) saw it` }));
  select.addEventListener("change", () => { setView(select.value === "all" ? "all" : +select.value); go(cur); });
  const slider = $("slider");
  slider.max = String(LAST);
  slider.addEventListener("input", () => go(+slider.value));
  $("first").addEventListener("click", () => go(0));
  $("prev").addEventListener("click", () => go(cur - 1));
  $("next").addEventListener("click", () => go(cur + 1));
  $("last").addEventListener("click", () => go(LAST));
  let playing = null;  // the timer of "play"
  function play(on) {
    clearInterval(playing);
    playing = on && cur < LAST ? setInterval(() => { go(cur + 1); if (cur >= LAST) play(false); }, 1000) : null;
    $("play").textContent = playing ? "pause" : "play";
  }
  $("play").addEventListener("click", () => play(!playing));
  $("next-fault").addEventListener("click", () => { const d = faultFrom(cur, 1); if (d !== null) go(d); });
  document.addEventListener("keydown", (e) => {
    if (e.target === slider || e.target === select || e.altKey || e.ctrlKey || e.metaKey) return;
    const moves = { ArrowLeft: -1, ArrowRight: 1, PageUp: -10, PageDown: 10 };
    if (e.key in moves) go(cur + moves[e.key]);
    else if (e.key === "Home") go(0);
    else if (e.key === "End") go(LAST);
    else if (e.key === "f" || e.key === "F") { const d = faultFrom(cur, e.key === "f" ? 1 : -1); if (d !== null) go(d); }
    else if (e.key === " " && e.target.tagName !== "BUTTON") play(!playing);
    else return;
    e.preventDefault();
  });
  window.addEventListener("hashchange", fromHash);
  fromHash();
})();
