"use strict";
// Draws the matrix, the filters, the check list and the drill-downs of the opspec report
// from the JSON in #data. Every string from the results is set as text, never as markup.
// State lives in the URL hash: `#suite=x&status=fail` (filters), `#<check id>` (a check,
// opened), `#src=<path>:<line>` (a catalog file at a line).
(function () {
  const D = JSON.parse(document.getElementById("data").textContent);
  const TIER = {
    must: "Does not conform: it fails a must of the document.",
    should: "Conforms, but misses a recommendation (a should of the document).",
    quality: "Conforms and meets the recommendations, but misses opspec's own bar.",
  };
  const SYMBOL = { pass: "✓", fail: "✗", known_deviation: "≈", skip: "–", missing: "?", unavailable: "⊘" };
  const WORD = {
    pass: "passed", fail: "failed", known_deviation: "known deviation",
    skip: "skipped", missing: "missing", unavailable: "adapter unavailable",
  };
  const RANK = { skip: 0, pass: 1, known_deviation: 2, missing: 3, unavailable: 3, fail: 4 };
  const DTYPES = D.dtypes;
  const FILTERS = [["suite", "su"], ["adapter", "ad"], ["op", "op"], ["dtype", "dt"], ["status", "st"]];
  const LIST_LIMIT = 200;
  const byId = new Map(D.checks.map((c) => [c.id, c]));

  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "text") e.textContent = v;
      else if (k === "onclick") e.addEventListener("click", v);
      else e.setAttribute(k, v);
    }
    for (const c of children) if (c !== null && c !== undefined) e.append(c);
    return e;
  }
  const column = (dt) => (DTYPES.includes(dt) ? dt : "other");
  const byDtype = (a, b) => (DTYPES.indexOf(a) + 1 || 99) - (DTYPES.indexOf(b) + 1 || 99);
  const distinct = (xs) => [...new Set(xs)].sort();
  const value = (c, field) => (field === "dt" ? column(c.dt) : c[field]);

  // ---- the URL hash ----
  function parseHash() {
    const h = decodeURIComponent(location.hash.slice(1));
    if (h.startsWith("src=")) return { source: h.slice(4), filters: {} };
    if (h.includes("=")) {
      const filters = {};
      for (const part of h.split("&")) {
        const i = part.indexOf("=");
        if (i > 0) filters[part.slice(0, i)] = part.slice(i + 1);
      }
      return { filters };
    }
    if (byId.has(h)) return { check: h, filters: {} };
    return { filters: {} };
  }
  function setFilters(filters) {
    const parts = Object.entries(filters).filter(([, v]) => v).map(([k, v]) => k + "=" + encodeURIComponent(v));
    location.hash = parts.length ? parts.join("&") : "all";
  }

  // ---- filters ----
  function drawFilters(filters) {
    const nav = document.getElementById("filters");
    nav.replaceChildren(el("strong", { text: "Filter:" }));
    for (const [key, field] of FILTERS) {
      const values = distinct(D.checks.map((c) => value(c, field)));
      if (key === "dtype") values.sort(byDtype);
      const select = el("select", { id: "filter-" + key, "aria-label": key }, el("option", { value: "", text: key + ": all" }));
      for (const v of values) {
        const label = key === "status" ? SYMBOL[v] + " " + WORD[v] : v;
        select.append(el("option", { value: v, text: label }));
      }
      select.value = filters[key] || "";
      select.addEventListener("change", () => setFilters({ ...filters, [key]: select.value }));
      nav.append(select);
    }
    const q = el("input", { id: "filter-q", type: "search", placeholder: "id contains…", "aria-label": "id contains" });
    q.value = filters.q || "";
    q.addEventListener("change", () => setFilters({ ...filters, q: q.value }));
    nav.append(q, el("a", { href: "#all", text: "clear" }));
  }
  function matches(c, filters) {
    for (const [key, field] of FILTERS) if (filters[key] && value(c, field) !== filters[key]) return false;
    return !filters.q || c.id.includes(filters.q);
  }

  // ---- the matrix: per suite, operations × dtypes, one column per adapter ----
  function tally(list) {
    const t = { pass: 0, fail: 0, known_deviation: 0, skip: 0, missing: 0, unavailable: 0 };
    let worst = null;
    for (const c of list) {
      t[c.st] += 1;
      if (worst === null || RANK[c.st] > RANK[worst]) worst = c.st;
    }
    return { t, worst, total: list.length };
  }
  function cellText({ t, worst, total }) {
    if (worst === "pass") return SYMBOL.pass + " " + total;
    if (worst === "skip") return SYMBOL.skip + " " + total;
    return SYMBOL[worst] + " " + (t[worst] + (worst === "missing" ? t.unavailable : 0)) + "/" + total;
  }
  function cellTitle({ t, total }) {
    return Object.entries(t).filter(([, n]) => n > 0).map(([s, n]) => n + " " + WORD[s]).join(", ") + " of " + total;
  }
  function drawMatrix() {
    const section = document.getElementById("matrix");
    section.replaceChildren(el("h2", { text: "Matrix" }), el("p", {
      text: "Each cell: the worst status of its checks (" + Object.keys(SYMBOL).map((s) => SYMBOL[s] + " " + WORD[s]).join(", ") +
        ") and how many of them have it. Click a cell to list its checks.",
    }));
    const suites = distinct(D.checks.map((c) => c.su)).sort((a, b) => (a === "table") - (b === "table"));
    for (const suite of suites) {
      const checks = D.checks.filter((c) => c.su === suite);
      const adapters = distinct(checks.map((c) => c.ad));
      const dtypes = distinct(checks.map((c) => column(c.dt))).sort(byDtype);
      const ops = distinct(checks.map((c) => c.op));
      const title = suite === "table" ? "Table self-checks (each row against the oracle)" : "Suite " + suite;
      const head1 = el("tr", {}, el("th", { text: "operation", rowspan: adapters.length > 1 ? 2 : 1 }));
      const head2 = el("tr");
      for (const d of dtypes) {
        head1.append(el("th", { text: d, colspan: adapters.length }));
        if (adapters.length > 1) for (const a of adapters) head2.append(el("th", { text: a }));
      }
      const table = el("table", { class: "matrix" }, head1);
      if (adapters.length > 1) table.append(head2);
      for (const op of ops) {
        const row = el("tr", {}, el("td", { text: op }));
        for (const d of dtypes) {
          for (const a of adapters) {
            const list = checks.filter((c) => c.op === op && c.ad === a && column(c.dt) === d);
            if (list.length === 0) { row.append(el("td")); continue; }
            const t = tally(list);
            const filters = { suite, adapter: a, op, dtype: d };
            row.append(el("td", {
              class: "cell " + t.worst, title: a + ": " + cellTitle(t), text: cellText(t),
              onclick: () => setFilters(filters),
            }));
          }
        }
        table.append(row);
      }
      section.append(el("h3", { text: title + (suite === "table" ? "" : " — adapters: " + adapters.join(", ")) }), table);
    }
  }

  // ---- the check list and drill-downs ----
  function sourceLink(location) {
    return el("a", { href: "#src=" + encodeURIComponent(location), text: location });
  }
  function drill(c) {
    const box = el("div");
    box.append(el("p", {}, el("strong", { text: SYMBOL[c.st] + " " + WORD[c.st] + (c.tier ? " (" + c.tier + ")" : "") + ": " }), el("code", { text: c.id })));
    if (c.tier) box.append(el("p", { text: TIER[c.tier] }));
    if (c.msg) box.append(el("pre", { text: c.msg }));
    if (c.warn) box.append(el("p", {}, el("strong", { text: "Library warnings during its calls:" })), el("ul", {}, ...c.warn.map((w) => el("li", { text: w }))));
    if (c.cit !== undefined) {
      const cit = D.citations[c.cit];
      box.append(el("p", {}, el("strong", { text: "Row " }), el("code", { text: cit.row }), " — " + cit.source + " — ", sourceLink(cit.location)));
      box.append(el("blockquote", { text: cit.text }));
    }
    if (c.dev !== undefined) {
      const dev = D.deviations[c.dev];
      box.append(el("p", {}, el("strong", { text: "Known deviation " }), sourceLink(dev.location)));
      box.append(el("p", { text: "Does: " + dev.does }), el("p", { text: "Why it deviates: " + dev.why }));
    }
    if (c.ulp !== undefined) box.append(el("p", { text: "Largest error: " + c.ulp.toFixed(3) + " ulp" }));
    if (c.prof) box.append(el("p", {}, el("strong", { text: "Relaxation profile: " }), c.prof));
    (c.fails || []).forEach((f, i) => {
      const lines = ["failing input " + (i + 1) + ":", ...f.inputs.map((x) => "  " + x)];
      if (f.input_bits && f.input_bits.length) lines.push("  bits:     " + f.input_bits.join(" "));
      lines.push("  expected: " + f.expected, "  actual:   " + f.actual + (f.actual_bits ? " [" + f.actual_bits + "]" : ""));
      if (f.steps !== null && f.steps !== undefined) lines.push("  distance: " + f.steps + " steps from the expectation's centre");
      if (f.profile_allows !== undefined) lines.push("  under the profile: " + (f.profile_allows ? "allowed" : "not allowed either"));
      lines.push("  fails:    " + (f.authority || "a " + (f.tier || "must") + " (the row or rule cited above)"));
      if (f.batch) lines.push("  in batch: element " + f.batch.position + " of " + f.batch.size + (f.batch.alone_passes === true ? "; alone, in a call of its own, it passes: the failure depends on the batch" : f.batch.alone_passes === false ? "; alone it fails the same way" : ""));
      lines.push("  reproduce: " + f.reproduce);
      box.append(el("pre", { text: lines.join("\n") }));
    });
    if (c.more) box.append(el("p", { text: "… and " + c.more + " more failing inputs of " + c.n + "." }));
    box.append(el("p", {}, "Rerun this check: ", el("code", { text: D.rerun[c.ad] + "--exact " + c.id })));
    return box;
  }
  function checkRow(c, open) {
    const row = el("tr", { id: c.id, class: c.st });
    const detail = el("tr", { class: "drill" }, el("td", { colspan: 6 }));
    detail.hidden = true;
    const toggle = () => {
      if (detail.firstChild.childElementCount === 0) detail.firstChild.append(drill(c));
      detail.hidden = !detail.hidden;
      row.setAttribute("aria-expanded", String(!detail.hidden));
    };
    row.append(
      el("td", { text: SYMBOL[c.st] + " " + WORD[c.st] + (c.tier ? " (" + c.tier + ")" : "") }),
      el("td", { class: "id" }, el("a", { href: "#" + c.id, text: c.id })),
      el("td", { text: String(c.n) }),
      el("td", { text: String(c.nf) }),
      el("td", { text: c.ulp === undefined ? "-" : c.ulp.toFixed(3) }),
      el("td", { class: "msg", text: (c.msg || "").split("\n")[0].slice(0, 200) }),
    );
    row.addEventListener("click", (e) => { if (e.target.tagName !== "A") toggle(); });
    if (open) toggle();
    return [row, detail];
  }
  function drawChecks(filters, opened, limit) {
    const section = document.getElementById("checks");
    const list = D.checks.filter((c) => matches(c, filters)).sort((a, b) => RANK[b.st] - RANK[a.st]);
    const shown = list.slice(0, limit);
    const table = el("table", { id: "check-list" }, el("tr", {},
      ...["status", "check", "inputs", "failed", "max ulp", "message"].map((h) => el("th", { text: h }))));
    for (const c of shown) table.append(...checkRow(c, c.id === opened));
    section.replaceChildren(el("h2", { text: "Checks (" + list.length + " of " + D.checks.length + ")" }), table);
    if (list.length > shown.length) {
      section.append(el("button", { text: "show all " + list.length, onclick: () => drawChecks(filters, opened, Infinity) }));
    }
    if (opened) document.getElementById(opened).scrollIntoView();
  }

  // ---- a catalog file at a line ----
  function drawSource(spec) {
    const section = document.getElementById("source");
    const i = spec.lastIndexOf(":");
    const path = i > 0 ? spec.slice(0, i) : spec;
    const line = i > 0 ? Number(spec.slice(i + 1)) : 0;
    const text = D.sources[path];
    section.hidden = false;
    section.replaceChildren(el("h2", { text: path }), el("p", {}, el("a", { href: "#all", text: "close" })));
    if (text === undefined) {
      section.append(el("p", { text: "This file is not in the results file." }));
      return;
    }
    const pre = el("pre");
    text.split("\n").forEach((l, k) => {
      pre.append(el("span", { id: "L" + (k + 1), class: k + 1 === line ? "hl" : "line", text: String(k + 1).padStart(4) + "  " + l + "\n" }));
    });
    section.append(pre);
    const target = document.getElementById("L" + line);
    if (target) target.scrollIntoView();
  }

  function apply() {
    const h = parseHash();
    let filters = h.filters;
    if (h.check) {
      const c = byId.get(h.check);
      filters = { suite: c.su, adapter: c.ad, op: c.op, dtype: column(c.dt) };
    }
    document.getElementById("source").hidden = true;
    drawFilters(filters);
    drawChecks(filters, h.check, LIST_LIMIT);
    if (h.source) drawSource(h.source);
  }
  drawMatrix();
  window.addEventListener("hashchange", apply);
  apply();
})();
