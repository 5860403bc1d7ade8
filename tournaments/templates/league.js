(function () {
  "use strict";
  const live = document.getElementById("live");
  function text(tag, value, cls) {
    const el = document.createElement(tag);
    el.textContent = value;
    if (cls) el.className = cls;
    return el;
  }
  function fixed(v, digits) { return v === null || v === undefined ? "–" : v.toFixed(digits); }
  function row(r) {
    const tr = document.createElement("tr");
    tr.dataset.bot = r.bot;
    tr.className = r.state;
    tr.appendChild(text("td", String(r.rank)));
    const name = text("td", "", "bot text");
    const a = text("a", r.bot);
    a.href = "/bots/" + encodeURIComponent(r.bot);
    name.appendChild(a);
    tr.appendChild(name);
    const role = text("td", r.role, "text");
    if (r.state !== "active") {
      const b = text("span", r.state, "badge " + r.state);
      b.title = r.reason || "";
      role.append(" ", b);
    }
    if (r.verdict && r.verdict !== r.state) role.append(" ", text("span", r.verdict, "badge " + r.verdict));
    tr.appendChild(role);
    tr.appendChild(text("td", fixed(r.rating, 0), "rating"));
    tr.appendChild(text("td", fixed(r.ci, 0)));
    const bar = text("td", "", "bar");
    if (r.bar) {
      const ns = "http://www.w3.org/2000/svg";
      const svg = document.createElementNS(ns, "svg");
      svg.setAttribute("viewBox", "0 0 100 14");
      svg.setAttribute("preserveAspectRatio", "none");
      const iv = document.createElementNS(ns, "rect");
      iv.setAttribute("x", r.bar.from); iv.setAttribute("y", 4); iv.setAttribute("height", 6); iv.setAttribute("rx", 1);
      iv.setAttribute("width", Math.max(r.bar.to - r.bar.from, 0.4)); iv.setAttribute("class", "interval");
      const pt = document.createElementNS(ns, "rect");
      pt.setAttribute("x", r.bar.at - 0.6); pt.setAttribute("y", 1); pt.setAttribute("width", 1.2);
      pt.setAttribute("height", 12); pt.setAttribute("class", "point");
      svg.append(iv, pt);
      bar.appendChild(svg);
    }
    tr.appendChild(bar);
    tr.appendChild(text("td", String(r.games), "games"));
    tr.appendChild(text("td", fixed(r.mean_place, 2)));
    tr.appendChild(text("td", String(r.faults)));
    return tr;
  }
  let busy = false, again = false;
  async function refresh() {
    if (busy) { again = true; return; }
    busy = true;
    try {
      const state = await (await fetch("/api/state", {cache: "no-store"})).json();
      document.getElementById("board").replaceChildren(...state.leaderboard.map(row));
      document.getElementById("stored").textContent = state.stored;
      document.getElementById("state").textContent = state.state;
      document.getElementById("rate").textContent = state.games_per_second;
      const problems = document.getElementById("problems");
      problems.hidden = state.errors.length === 0;
      document.getElementById("problem-list").replaceChildren(...state.errors.map((e) => text("li", e)));
      const suspended = state.roster.bots ? state.roster.bots.filter((b) => b.state === "suspended") : [];
      document.getElementById("suspended").replaceChildren(
        ...suspended.map((b) => text("p", b.name + " is suspended: " + b.reason, "warn")));
      const names = Object.keys(state.evaluations);
      const shown = Array.from(document.querySelectorAll(".evaluation")).map((e) => e.dataset.bot);
      const changed = names.some((n) => {
        const e = state.evaluations[n];
        const el = document.querySelector('.evaluation[data-bot="' + CSS.escape(n) + '"]');
        return !el || el.dataset.deals !== String(e.deals || 0) || el.dataset.verdict !== e.verdict;
      });
      if (changed || names.length !== shown.length) {
        const html = await (await fetch("/evaluations", {cache: "no-store"})).text();
        document.getElementById("evaluation-list").innerHTML = html;
      }
    } catch (e) {
      live.classList.remove("on");
    } finally {
      busy = false;
      if (again) { again = false; refresh(); }
    }
  }
  if (window.EventSource) {
    const source = new EventSource("/events");
    source.addEventListener("changed", refresh);
    source.onopen = () => live.classList.add("on");
    source.onerror = () => live.classList.remove("on");
  }
})();
