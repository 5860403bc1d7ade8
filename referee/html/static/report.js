"use strict";
// The report's list of games: filtered (bot, fault, place, decisions), sorted and paged here, in the page. Every
// row's data is its data-row attribute (JSON the template wrote); a bot's name is only ever text or a value.
(function () {
  const PAGE = 50;
  const $ = (id) => document.getElementById(id);
  const body = $("games-rows");
  if (!body) return;
  const rows = [...body.rows].map((tr) => Object.assign({ tr }, JSON.parse(tr.dataset.row)));
  const inputs = { bot: $("f-bot"), kind: $("f-kind"), place: $("f-place"), min: $("f-min"), max: $("f-max") };
  let sortKey = "s", sortDir = 1, page = 0;

  function matches(r, f) {
    const seats = f.bot ? r.b.flatMap((name, s) => (name === f.bot ? [s] : [])) : r.b.map((_, s) => s);
    if (!seats.length) return false;
    const faults = r.f.filter(([seat]) => seats.includes(seat));
    if (f.kind === "none" && faults.length) return false;
    if (f.kind === "faulted" && !faults.length) return false;
    if (f.kind && f.kind !== "none" && f.kind !== "faulted" && !faults.some(([, kind]) => kind === f.kind)) return false;
    if (f.place && !seats.some((s) => r.p[s] === +f.place)) return false;
    if (f.min !== "" && r.d < +f.min) return false;
    if (f.max !== "" && r.d > +f.max) return false;
    return true;
  }
  const sortValue = (r) => (sortKey === "f" ? r.f.length : r[sortKey]);

  function apply() {
    const f = Object.fromEntries(Object.entries(inputs).map(([k, input]) => [k, input.value.trim()]));
    const shown = rows.filter((r) => matches(r, f));
    shown.sort((a, b) => sortDir * (sortValue(a) - sortValue(b)) || a.s - b.s);
    const pages = Math.max(1, Math.ceil(shown.length / PAGE));
    page = Math.min(page, pages - 1);
    const from = page * PAGE, to = Math.min(shown.length, from + PAGE);
    for (const r of rows) r.tr.hidden = true;
    for (let i = from; i < to; i++) { shown[i].tr.hidden = false; body.append(shown[i].tr); }
    $("games-shown").textContent = shown.length === rows.length
      ? `All ${rows.length} listed games${shown.length > PAGE ? `, ${PAGE} a page` : ""}.`
      : `${shown.length} of the ${rows.length} listed games match${shown.length > PAGE ? `, ${PAGE} a page` : ""}.`;
    $("pager").hidden = shown.length <= PAGE;
    $("page-where").textContent = shown.length ? `${from + 1}\u2013${to} of ${shown.length}` : "none";
    $("page-prev").disabled = page === 0;
    $("page-next").disabled = page >= pages - 1;
    for (const th of document.querySelectorAll("#games th[data-sort]")) {
      th.setAttribute("aria-sort", th.dataset.sort === sortKey ? (sortDir > 0 ? "ascending" : "descending") : "none");
    }
    document.body.dataset.gamesShown = String(shown.length);
  }
  function address() {
    const params = new URLSearchParams();
    for (const [k, input] of Object.entries(inputs)) if (input.value.trim()) params.set(k, input.value.trim());
    const query = params.toString();
    history.replaceState(null, "", query ? `#games?${query}` : location.pathname + location.search);
  }
  // A link to filtered games (a fault count's): #games?bot=NAME&kind=KIND.
  function fromHash() {
    if (!location.hash.startsWith("#games?")) return;
    const params = new URLSearchParams(location.hash.slice("#games?".length));
    for (const [k, input] of Object.entries(inputs)) {
      input.value = params.get(k) ?? "";
      if (input.tagName === "SELECT" && input.selectedIndex < 0) input.value = "";  // not an option: any
    }
    page = 0;
    apply();
    $("games").scrollIntoView();
  }

  $("filters").hidden = false;
  for (const input of Object.values(inputs)) input.addEventListener("input", () => { page = 0; apply(); address(); });
  $("filters").addEventListener("reset", () => setTimeout(() => { page = 0; apply(); address(); }));
  $("filters").addEventListener("submit", (e) => e.preventDefault());
  for (const th of document.querySelectorAll("#games th[data-sort]")) {
    th.tabIndex = 0;
    const sort = () => { sortDir = sortKey === th.dataset.sort ? -sortDir : 1; sortKey = th.dataset.sort; apply(); };
    th.addEventListener("click", sort);
    th.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); sort(); } });
  }
  $("page-prev").addEventListener("click", () => { page--; apply(); });
  $("page-next").addEventListener("click", () => { page++; apply(); });
  window.addEventListener("hashchange", fromHash);
  apply();
  fromHash();
})();
