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
    box.replaceChildren();
    if (st.to_act === null) {
      box.append(el("div", { class: "played", text: D.result.aborted ? "The game was aborted at the safety limit." : "The game is over." }));
      const t = el("table", { class: "grid", id: "result" }, el("tr", {}, el("th", { text: "seat" }), el("th", { text: "bot" }),
        el("th", { text: "place" }), el("th", { text: "score" })));
      D.result.places.forEach((p, s) => t.append(el("tr", {}, el("td", { text: `seat ${s}` }), el("td", { text: D.bots[s] }),
        el("td", { text: String(p) }), el("td", { text: D.result.scores[s] }))));
      box.append(t);
    } else {
      const who = st.to_act;
      box.append(el("div", {}, `Seat ${who} (${D.bots[who]}) to act.`));
      if (view === "all" || view === who) {
        const more = st.legal_count > st.legal.length ? ` \u2026 ${st.legal_count - st.legal.length} more` : "";
        box.append(el("div", { class: "legal" }, `${st.legal_count} legal: `, words(st.legal.join(", ") + more)));
        box.append(el("div", { class: "played", id: "played" }, "Played: ", words(D.actions[cur])));
      }
    }
    for (const f of D.faults.filter((x) => x.decision === cur && (view === "all" || view === x.seat))) {
      const instead = f.played !== null ? `; the referee played ${f.played} instead` : "";
      box.append(el("div", { class: "fault-line" }, words(`Fault: seat ${f.seat} (${D.bots[f.seat]}) ${f.kind}: ${f.message}${instead}`)));
    }
    const said = view === "all" ? st.events : st.seats[view].events;
    $("events-list").replaceChildren(...(said.length ? said.map((e) => el("li", {}, words(e)))
      : [el("li", { class: "note", text: "nothing" })]));
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
    if ($("stderr")) $("stderr").hidden = view !== "all";  // the bots' own words: the referee's view only
    document.body.dataset.decision = String(cur);
    document.body.dataset.view = String(view);
  }

  function go(d, keepHash) {
    cur = Math.max(0, Math.min(LAST, d));
    render();
    if (!keepHash) history.replaceState(null, "", `#d=${cur}${view === "all" ? "" : `&seat=${view}`}`);
  }
  function fromHash() {
    const params = new URLSearchParams(location.hash.slice(1));
    const seat = params.get("seat");
    view = seat !== null && /^\d+$/.test(seat) && +seat < D.seats ? +seat : "all";
    $("view").value = String(view);
    const d = params.get("d");
    go(d !== null && /^\d+$/.test(d) ? +d : 0, true);
  }

  const select = $("view");
  select.append(el("option", { value: "all", text: "everything (the referee)" }));
  for (let s = 0; s < D.seats; s++) select.append(el("option", { value: String(s), text: `as seat ${s} (${D.bots[s]}) saw it` }));
  select.addEventListener("change", () => { view = select.value === "all" ? "all" : +select.value; go(cur); });
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
  document.addEventListener("keydown", (e) => {
    if (e.target === slider || e.target === select || e.altKey || e.ctrlKey || e.metaKey) return;
    const moves = { ArrowLeft: -1, ArrowRight: 1, PageUp: -10, PageDown: 10 };
    if (e.key in moves) go(cur + moves[e.key]);
    else if (e.key === "Home") go(0);
    else if (e.key === "End") go(LAST);
    else if (e.key === " " && e.target.tagName !== "BUTTON") play(!playing);
    else return;
    e.preventDefault();
  });
  window.addEventListener("hashchange", fromHash);
  fromHash();
})();
