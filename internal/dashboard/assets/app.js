// gpuwise dashboard: one page, no dependencies. Every figure is read from
// this service's API and shown with data-src (the API URL) and data-path
// (where in its JSON) so that a test can check it against the answer.
"use strict";

const params = new URLSearchParams(location.search);
const view = params.get("view") || "overview";
const api = {};

// query keeps the service's window parameter on every API call and link.
function query(base, extra) {
  const q = new URLSearchParams(extra || {});
  if (params.get("window")) q.set("window", params.get("window"));
  const s = q.toString();
  return s ? base + "?" + s : base;
}

// load fetches one API answer once; a partial answer raises the banner.
async function load(url) {
  if (!api[url]) {
    api[url] = fetch(url, { credentials: "same-origin" }).then(async (r) => {
      const partial = r.headers.get("X-Gpuwise-Partial");
      if (partial) banner("Partial data: " + partial);
      const body = await r.json();
      if (!r.ok) throw new Error(url + ": " + (body.error || r.status));
      return body;
    });
  }
  return api[url];
}

function banner(text) {
  const b = document.getElementById("banner");
  b.hidden = false;
  b.textContent = text;
}

// el builds an element: el("td", {class: "n"}, child, "text", …).
function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    // A style attribute set with setAttribute is inline style, which the
    // service's Content-Security-Policy refuses; the CSSOM is allowed.
    if (k === "style") e.style.cssText = v;
    else e.setAttribute(k, v === true ? "" : v);
  }
  for (const k of kids.flat()) {
    if (k !== undefined && k !== null) e.append(k instanceof Node ? k : String(k));
  }
  return e;
}

function grouped(v, digits) {
  return v.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

// fmt is the one number format: usd $1,234.56, pct 26.9%, h 1,234.5,
// int 1,234, days 1.5, n/a for a missing value (never 0).
function fmt(v, unit) {
  if (v === null || v === undefined || Number.isNaN(v)) return "n/a";
  switch (unit) {
    case "usd": return (v < 0 ? "-$" : "$") + grouped(Math.abs(v), 2);
    case "pct": return (v * 100).toFixed(1) + "%";
    case "h": return grouped(v, 1);
    case "int": return grouped(v, 0);
    case "pts": return v.toFixed(1) + " pts";
    default: return grouped(v, 2);
  }
}

// at reads a dotted path ("totals.gpu_hours.active", "rows.3.key").
function at(obj, path) {
  return path.split(".").reduce((o, k) => (o === null || o === undefined ? undefined : o[k]), obj);
}

// num shows one API figure, tagged with where it came from.
function num(src, data, path, unit) {
  return el("span", { class: "num", "data-src": src, "data-path": path, "data-unit": unit }, fmt(at(data, path), unit));
}

function card(label, figure, sub) {
  return el("div", { class: "card" }, el("div", { class: "label" }, label), el("div", { class: "big" }, figure),
    sub ? el("div", { class: "sub" }, sub) : null);
}

function section(title, ...kids) {
  return el("section", {}, el("h2", {}, title), ...kids);
}

// setParam changes the page's query string in place, so the URL of what is
// shown can be shared.
function setParam(name, value) {
  if (value === "" || value === null || value === undefined) params.delete(name); else params.set(name, value);
  history.replaceState(null, "", "?" + params.toString());
}

// ---- tables: sortable (click a header), filterable (the q parameter) ----

// table renders rows of the API answer data[listPath]; cols are {key,
// label, unit (number columns), text (a function for text columns)}.
function table(src, data, listPath, cols, opts) {
  opts = opts || {};
  const list = (at(data, listPath) || []).map((row, i) => ({ row, i }));
  const wrap = el("div", { class: "tablewrap" });
  const tbl = el("table", { "data-table": listPath, "data-src": src });
  const head = el("tr");
  const body = el("tbody");
  // A second table on a page keeps its order under its own parameters.
  const sp = (opts.prefix || "") + "sort", dp = (opts.prefix || "") + "dir";
  const sortCol = () => params.get(sp) || opts.sort || "";
  const sortDir = () => params.get(dp) || (sortCol() === (opts.sort || "") ? opts.dir || "desc" : "desc");
  const filter = () => (params.get("q") || "").toLowerCase();
  const keyOf = (r) => String(opts.filterKey ? opts.filterKey(r.row) : r.row.key || "").toLowerCase();
  function render() {
    const c = cols.find((x) => x.key === sortCol());
    const dir = sortDir() === "asc" ? 1 : -1;
    let rows = list.filter((r) => (!opts.keep || opts.keep(r.row)) && (opts.unfiltered || keyOf(r).includes(filter())));
    if (c) {
      const val = (r) => (c.unit ? at(r.row, c.key) : c.text ? c.text(r.row) : at(r.row, c.key));
      rows = rows.slice().sort((a, b) => cmp(val(a), val(b)) * dir || a.i - b.i);
    }
    for (const th of head.children) {
      th.setAttribute("aria-sort", c && th.dataset.col === c.key ? (dir > 0 ? "ascending" : "descending") : "none");
    }
    body.replaceChildren(...rows.map((r) => el("tr", { "data-index": r.i },
      cols.map((col) => cell(src, data, listPath + "." + r.i, r.row, col)))));
    tbl.dataset.shown = rows.length;
  }
  for (const col of cols) {
    const b = el("button", { type: "button" }, col.label);
    b.addEventListener("click", () => {
      const same = sortCol() === col.key;
      setParam(sp, col.key);
      setParam(dp, same && sortDir() === "desc" ? "asc" : "desc");
      render();
    });
    head.append(el("th", { "data-col": col.key, class: col.unit ? "n" : null, scope: "col" }, b));
  }
  tbl.append(el("thead", {}, head), body);
  wrap.append(tbl);
  render();
  wrap.rerender = render;
  return wrap;
}

// cmp orders numbers before missing values, then strings.
function cmp(a, b) {
  const na = a === null || a === undefined, nb = b === null || b === undefined;
  if (na || nb) return na === nb ? 0 : na ? -1 : 1;
  if (typeof a === "number" && typeof b === "number") return a - b;
  return String(a).localeCompare(String(b));
}

function cell(src, data, base, row, col) {
  if (col.unit) return el("td", { class: "n", "data-col": col.key }, num(src, data, base + "." + col.key, col.unit));
  const v = col.text ? col.text(row) : at(row, col.key);
  const content = col.render ? col.render(row, v) : v;
  return el("td", { class: col.key === "key" ? "key" : null, "data-col": col.key }, content);
}

// filterBox is the text filter bound to the q parameter.
function filterBox(label, tables) {
  const input = el("input", { type: "search", id: "filter", placeholder: label, value: params.get("q") || "", "aria-label": label });
  input.addEventListener("input", () => {
    setParam("q", input.value);
    tables.forEach((t) => t.rerender());
  });
  return input;
}

// ---- charts: small SVG line charts of the history ----

const palette = ["#2456c9", "#d1495b", "#00798c", "#edae49", "#66a182", "#8d6cab", "#7a5c3e", "#9aa0ad"];

// lineChart draws series [{name, points: [[ms, value|null]]}] with
// vertical markers [{t, label}]; a null value breaks the line.
function lineChart(title, series, unit, markers) {
  const W = 560, H = 220, L = 56, R = 8, T = 10, B = 24;
  const pts = series.flatMap((s) => s.points).filter((p) => p[1] !== null);
  const box = el("figure", { class: "chart", "data-chart": title });
  box.append(el("h3", {}, title));
  if (!pts.length) {
    box.append(el("p", { class: "muted" }, "no history recorded for this window yet"));
    return box;
  }
  const t0 = Math.min(...pts.map((p) => p[0])), t1 = Math.max(...pts.map((p) => p[0]));
  const ymax = niceMax(Math.max(...pts.map((p) => p[1])));
  const x = (t) => L + ((t - t0) / Math.max(1, t1 - t0)) * (W - L - R);
  const y = (v) => T + (1 - v / ymax) * (H - T - B);
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", title);
  const add = (tag, attrs, text) => {
    const e = document.createElementNS(ns, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    svg.append(e);
    return e;
  };
  for (let i = 0; i <= 4; i++) {
    const v = (ymax * i) / 4;
    add("line", { class: "axis", x1: L, x2: W - R, y1: y(v), y2: y(v) });
    add("text", { x: L - 4, y: y(v) + 3, "text-anchor": "end" }, tick(v, unit));
  }
  for (const d of dayTicks(t0, t1)) {
    add("text", { x: x(d), y: H - 6, "text-anchor": "middle" }, new Date(d).toISOString().slice(5, 10));
  }
  series.forEach((s, i) => {
    let d = "", pen = false;
    for (const [t, v] of s.points) {
      if (v === null) { pen = false; continue; }
      d += (pen ? "L" : "M") + x(t).toFixed(1) + "," + y(v).toFixed(1);
      pen = true;
    }
    add("path", { d, fill: "none", stroke: palette[i % palette.length], "stroke-width": 1.6, "data-series": s.name });
  });
  // labels step down a line each (three lines) so that near markers stay readable
  (markers || []).filter((m) => m.t >= t0 && m.t <= t1).sort((a, b) => a.t - b.t).forEach((m, i) => {
    add("line", { class: "marker", x1: x(m.t), x2: x(m.t), y1: T, y2: H - B });
    add("text", { x: x(m.t) + 3, y: T + 9 + (i % 3) * 10 }, m.label);
  });
  box.append(svg, el("div", { class: "legend" }, series.map((s, i) =>
    el("span", {}, el("i", { style: "background:" + palette[i % palette.length] }), s.name))));
  return box;
}

function niceMax(v) {
  if (!(v > 0)) return 1;
  const p = Math.pow(10, Math.floor(Math.log10(v)));
  for (const m of [1, 2, 4, 6, 8, 10]) if (m * p >= v) return m * p;
  return 10 * p;
}

function tick(v, unit) {
  if (unit === "pct") return Math.round(v * 100) + "%";
  if (unit === "usd") return "$" + (v >= 1000 ? (v / 1000).toFixed(1) + "k" : v.toFixed(v < 10 ? 1 : 0));
  return v.toFixed(0);
}

function dayTicks(t0, t1) {
  const day = 86400000, out = [];
  const step = Math.max(1, Math.ceil((t1 - t0) / day / 8)) * day;
  for (let d = Math.ceil(t0 / day) * day; d <= t1; d += step) out.push(d);
  return out;
}

// bySeries turns history points into one series per key (the keys given,
// the rest summed as "other"), valued by fn(sum of values).
function bySeries(points, keys, fn) {
  const buckets = [...new Set(points.map((p) => p.bucket))].sort();
  const sums = new Map();
  for (const p of points) {
    const k = keys.includes(p.key) ? p.key : "other";
    const m = sums.get(k) || new Map();
    const prev = m.get(p.bucket);
    m.set(p.bucket, prev ? addValues(prev, p) : Object.assign({}, p));
    sums.set(k, m);
  }
  const names = keys.concat(sums.has("other") ? ["other"] : []);
  return names.filter((k) => sums.has(k)).map((k) => ({
    name: k,
    points: buckets.map((b) => [Date.parse(b), sums.get(k).has(b) ? fn(sums.get(k).get(b)) : null]),
  }));
}

function addValues(a, b) {
  const out = Object.assign({}, a);
  for (const [k, v] of Object.entries(b)) if (typeof v === "number" && k !== "pods") out[k] = (a[k] || 0) + v;
  return out;
}

const utilization = (v) => (v.gpu_allocated_hours - v.gpu_unmeasured_hours > 0
  ? v.gpu_active_hours / (v.gpu_allocated_hours - v.gpu_unmeasured_hours) : null);

// capacityChanges marks the hours where the provisioned GPU count changed
// (nodes added or removed): the before/after points of capacity changes.
function capacityChanges(points) {
  const per = new Map();
  for (const p of points) per.set(p.bucket, (per.get(p.bucket) || 0) + p.gpu_provisioned_hours / Math.max(1e-9, p.seconds / 3600));
  const out = [];
  let prev = null;
  for (const b of [...per.keys()].sort()) {
    const gpus = Math.round(per.get(b)), t = Date.parse(b);
    const last = out[out.length - 1];
    if (prev !== null && gpus !== prev) {
      // a change spread over a few hours (nodes joining one by one) is one marker
      if (last && t - last.end <= 3 * 3600000) Object.assign(last, { end: t, to: gpus });
      else out.push({ t, end: t, from: prev, to: gpus });
    }
    prev = gpus;
  }
  return out.filter((m) => m.to !== m.from).map((m) => ({ t: m.t, label: (m.to > m.from ? "+" : "") + (m.to - m.from) + " GPUs" }));
}

// sharingNames label the fleet's sharing modes on the markers.
const sharingNames = { exclusive: "Whole", mig: "MIG", "time-slicing": "Time-slicing" };

// sharingChanges marks the buckets where the GPUs in a sharing mode
// changed from the bucket before (a MIG or time-slicing change), from the
// history's fleet. A mode absent from a recorded bucket had no GPUs.
function sharingChanges(fleet) {
  const per = new Map();
  for (const f of fleet || []) {
    const m = per.get(f.bucket) || {};
    m[f.sharing] = (m[f.sharing] || 0) + f.gpus;
    per.set(f.bucket, m);
  }
  const out = [];
  let prev = null;
  for (const b of [...per.keys()].sort()) {
    const cur = per.get(b);
    if (prev) {
      const changed = Object.keys(sharingNames).filter((k) => (prev[k] || 0) !== (cur[k] || 0));
      if (changed.length) {
        out.push({ t: Date.parse(b), label: changed.map((k) => `${sharingNames[k]}: ${prev[k] || 0} → ${cur[k] || 0} GPUs`).join(", ") });
      }
    }
    prev = cur;
  }
  return out;
}

// sameTime joins the labels of markers at the same time into one marker.
function sameTime(markers) {
  const by = new Map();
  for (const m of markers) by.set(m.t, by.has(m.t) ? { t: m.t, label: by.get(m.t).label + "; " + m.label } : m);
  return [...by.values()];
}

// ---- views ----

async function overview(main) {
  const src = query("api/v1/report");
  const r = await load(src);
  main.append(el("div", { class: "cards", id: "headline" },
    card("Spend in the window", num(src, r, "totals.total_cost_usd", "usd"), el("span", {}, num(src, r, "totals.monthly_cost_usd", "usd"), " a month at this rate")),
    card("GPU utilization of provisioned", num(src, r, "totals.gpu_utilization_of_provisioned", "pct"),
      el("span", {}, "of allocated: ", num(src, r, "totals.gpu_utilization", "pct"))),
    card("Idle GPU cost (allocated, unused)", num(src, r, "totals.gpu_cost_usd.allocated_idle", "usd"),
      el("span", {}, "unallocated: ", num(src, r, "totals.gpu_cost_usd.unallocated", "usd"))),
    card("Recoverable a month (savings ledger)", r.savings ? num(src, r, "savings.saving_usd_month", "usd") : "n/a",
      r.savings ? el("span", {}, num(src, r, "savings.actions", "int"), " actions: see ", el("a", { href: "?" + linkParams("actions") }, "Actions")) : "no ledger for this window")));
  const win = r.window;
  const hsrc = "api/v1/history?" + new URLSearchParams({ kind: "namespace", from: win.start, to: win.end });
  const msrc = "api/v1/history?" + new URLSearchParams({ kind: "gpu_model", from: win.start, to: win.end });
  const csrc = query("api/v1/compare", { kind: "namespace", period: Math.floor(r.window_hours / 2) + "h" });
  const [h, m, c] = await Promise.all([load(hsrc), load(msrc), load(csrc)]);
  const keys = r.rows.slice().sort((a, b) => (b.total_cost_usd || 0) - (a.total_cost_usd || 0)).map((x) => x.key)
    .filter((k) => k !== "__unallocated__").slice(0, 6);
  const markers = sameTime(capacityChanges(m.points).concat(sharingChanges(m.fleet),
    [{ t: Date.parse(c.after.window.start), label: "after →" }]));
  main.append(section("Trends (hourly, from the history)", el("div", { class: "charts" },
    lineChart("GPU utilization per namespace", bySeries(h.points.filter((p) => p.key !== "__unallocated__"), keys, utilization), "pct", markers),
    lineChart("Spend per namespace ($ per hour)", bySeries(h.points, keys.concat(["__unallocated__"]), (v) => v.total_usd), "usd", markers),
    lineChart("Idle GPU cost ($ per hour)", [
      { name: "allocated, unused", points: bySeries(h.points, [], (v) => v.gpu_idle_usd)[0]?.points || [] },
      { name: "unallocated", points: bySeries(h.points, [], (v) => v.gpu_unallocated_usd)[0]?.points || [] },
    ], "usd", markers)),
  el("p", { class: "muted" }, "Dashed lines: where the provisioned GPU count changed (nodes added or removed), where the GPUs in a sharing mode changed (MIG, time-slicing, whole), and where the after period of the comparison below starts.")));
  main.append(compareSection(csrc, c));
  if (r.savings && r.savings.first.length) {
    main.append(section("Do first (savings ledger)", el("ol", {}, r.savings.first.map((a, i) =>
      el("li", {}, a.title, " — ", num(src, r, `savings.first.${i}.saving_usd_month`, "usd"), "/month, ",
        a.confidence, " confidence, payback ", num(src, r, `savings.first.${i}.payback_days`, "num"), " days")))));
  }
  main.append(section("Where the money goes (by namespace)", table(src, r, "rows", costCols(), { sort: "total_cost_usd" })));
}

// compareSection is the last half of the window against the half before
// it, per namespace (api/v1/compare, from the history).
function compareSection(src, c) {
  const cols = [
    { key: "key", label: "Namespace" },
    { key: "before.gpu_utilization", label: "Utilization before", unit: "pct" },
    { key: "after.gpu_utilization", label: "after", unit: "pct" },
    { key: "gpu_utilization_change_points", label: "Change", unit: "pts" },
    { key: "gpu_idle_usd_change", label: "Idle $ change", unit: "usd" },
    { key: "total_usd_change", label: "Total $ change", unit: "usd" },
    { key: "oom_kills_change", label: "OOM kills change", unit: "int" },
  ];
  return section("Before and after: " + c.after.label + " against " + c.before.label,
    el("p", {}, "Utilization ", num(src, c, "total.before.gpu_utilization", "pct"), " → ", num(src, c, "total.after.gpu_utilization", "pct"),
      " (", num(src, c, "total.gpu_utilization_change_points", "pts"), "); idle GPU $ ", num(src, c, "total.gpu_idle_usd_change", "usd"),
      "; total $ ", num(src, c, "total.total_usd_change", "usd"), "; OOM kills ", num(src, c, "total.oom_kills_change", "int"), "."),
    table(src, c, "changes", cols, { sort: "gpu_idle_usd_change", dir: "asc", prefix: "compare-" }));
}

function costCols() {
  return [
    { key: "key", label: "Key" },
    { key: "pods", label: "Pods", unit: "int" },
    { key: "gpu_hours.allocated", label: "GPU-h allocated", unit: "h" },
    { key: "gpu_hours.active", label: "GPU-h active", unit: "h" },
    { key: "gpu_utilization", label: "Utilization", unit: "pct" },
    { key: "gpu_cost_usd.active", label: "Active $", unit: "usd" },
    { key: "gpu_cost_usd.allocated_idle", label: "Idle $", unit: "usd" },
    { key: "total_cost_usd", label: "Total $", unit: "usd" },
    { key: "monthly_cost_usd", label: "$/month", unit: "usd" },
  ];
}

const byOptions = ["namespace", "workload", "node", "gpu-model", "capacity-type", "mechanism"];

async function costs(main) {
  const by = byOptions.includes(params.get("by")) ? params.get("by") : "namespace";
  const src = query("api/v1/report", { by });
  const r = await load(src);
  const select = el("select", { id: "by", "aria-label": "group by" }, byOptions.map((o) => el("option", { value: o, selected: o === by }, o)));
  select.addEventListener("change", () => { setParam("by", select.value); setParam("sort", ""); location.search = params.toString(); });
  const tbl = table(src, r, "rows", costCols(), { sort: "total_cost_usd" });
  main.append(section("Cost by " + by,
    el("div", { class: "controls" }, el("label", {}, "Group by ", select), filterBox("filter " + by, [tbl])),
    el("p", {}, "Total ", num(src, r, "totals.total_cost_usd", "usd"), " over ", num(src, r, "window_hours", "h"), " h; GPU ",
      num(src, r, "totals.gpu_cost_usd.active", "usd"), " active, ", num(src, r, "totals.gpu_cost_usd.allocated_idle", "usd"), " allocated but idle, ",
      num(src, r, "totals.gpu_cost_usd.unallocated", "usd"), " unallocated."),
    tbl));
}

async function idle(main) {
  const src = query("api/v1/report", { by: "workload", top: "50" });
  const rsrc = query("api/v1/recommend");
  const [r, rec] = await Promise.all([load(src), load(rsrc)]);
  const shape = new Map((rec.gpu || []).map((g) => [g.workload, g]));
  const ic = r.idle_causes;
  const causeOf = new Map(((ic && ic.workloads) || []).map((w, j) => [w.workload, { w, j }]));
  main.append(causePanel(src, r));
  if (r.reconciliation) main.append(billPanel(src, r));
  const cols = [
    { key: "key", label: "Workload" },
    { key: "pods", label: "Pods", unit: "int" },
    { key: "avg_gpus_held", label: "GPUs held (avg)", unit: "num" },
    { key: "gpu_utilization", label: "Utilization", unit: "pct" },
    { key: "allocated_idle_usd", label: "Idle $", unit: "usd" },
    { key: "monthly_allocated_idle_usd", label: "Idle $/month", unit: "usd" },
    { key: "cause", label: "Why it idles", text: (w) => (causeOf.has(w.key) ? causeOf.get(w.key).w.main_cause : ""),
      render: (w) => mainCause(src, r, causeOf.get(w.key)) },
    { key: "shape", label: "GPU shape", text: (w) => (shape.get(w.key) ? shape.get(w.key).action : ""),
      render: (w) => (shape.get(w.key) ? el("span", { title: shape.get(w.key).reason }, shape.get(w.key).action) : el("span", { class: "muted" }, "no change")) },
  ];
  const tbl = table(src, r, "top_idle_workloads", cols, { sort: "allocated_idle_usd" });
  main.append(section("Idle leaderboard: workloads by GPU dollars allocated but unused",
    el("div", { class: "controls" }, filterBox("filter workloads", [tbl])), tbl,
    el("p", { class: "muted" }, "Why it idles: the workload's main idle cause, its share of the workload's idle GPU-hours and what it stands on (the report's idle_causes). GPU shape: the recommendation for the workload's GPU request (api/v1/recommend; hover for the reason).")));
  main.append(await lowUtilPanel());
  main.append(await lowUtilHistoryPanel());
}

// lowUtilPanel is the week-1 waste list: GPUs and MIG slices under 30 %
// for 6 hours or more of the window (the report's low_utilization).
async function lowUtilPanel() {
  const src = query("api/v1/report", { "low-util": "30%:6h" });
  const r = await load(src);
  const l = r.low_utilization || { units: [] };
  const cols = [
    { key: "unit", label: "GPU / MIG slice" },
    { key: "node", label: "Node" },
    { key: "gpu_model", label: "Model" },
    { key: "hours_below", label: "Hours under 30%", unit: "num" },
    { key: "hours_unheld", label: "Hours unheld", unit: "num" },
    { key: "utilization", label: "Utilization", unit: "pct" },
    { key: "usd", label: "$", unit: "usd" },
    { key: "holders", label: "Held by", text: (u) => (u.holders || []).join(", ") },
  ];
  const tbl = table(src, r, "low_utilization.units", cols, { sort: "usd", prefix: "lu", filterKey: (u) => u.unit + " " + (u.holders || []).join(" ") });
  return section("GPUs under 30% for 6 hours or more",
    el("div", { class: "controls" }, filterBox("filter GPUs, holders", [tbl])), tbl,
    el("p", { class: "muted" }, (l.units.length || 0) + " unit(s); hours under 30% are measured held hours, plus hours no pod held the unit; unmeasured units (" + (l.unmeasured_units || 0) + ") are unknown and not listed (the report's low_utilization, ?low-util=30%:6h)."));
}

// lowUtilHistoryPanel is the same list over a range of the service's
// history (api/v1/history/low-util): the window by default, or the day,
// week or 30 days up to the window's end (the lurange parameter), as far
// as the hourly history reaches.
const luRanges = { "24h": 24, "7d": 7 * 24, "30d": 30 * 24 };
async function lowUtilHistoryPanel() {
  const range = luRanges[params.get("lurange")] ? params.get("lurange") : "";
  let src = query("api/v1/history/low-util");
  if (range) {
    const end = (await load("api/v1/status")).window.end;
    const from = new Date(Date.parse(end) - luRanges[range] * 3600e3).toISOString();
    src = "api/v1/history/low-util?" + new URLSearchParams({ from, to: end }).toString();
  }
  const h = await load(src);
  const cols = [
    { key: "unit", label: "GPU / MIG slice" },
    { key: "node", label: "Node" },
    { key: "gpu_model", label: "Model" },
    { key: "hours_below", label: "Hours under 30%", unit: "num" },
    { key: "hours_unheld", label: "Hours unheld", unit: "num" },
    { key: "usd", label: "$", unit: "usd" },
    { key: "holders", label: "Held by", text: (u) => (u.holders || []).join(", ") },
  ];
  const tbl = table(src, h, "low_utilization.units", cols, { sort: "usd", prefix: "luh", filterKey: (u) => u.unit + " " + (u.holders || []).join(" ") });
  const select = el("select", { id: "lurange", "aria-label": "history range" },
    [["", "the window"], ["24h", "its last 24 hours"], ["7d", "its last 7 days"], ["30d", "30 days to its end"]].map(([v, label]) => el("option", { value: v, selected: v === range }, label)));
  select.addEventListener("change", () => { setParam("lurange", select.value); location.search = params.toString(); });
  return el("section", { id: "low-util-history" }, el("h2", {}, "From the history: GPUs under 30% for 6 hours or more"),
    el("div", { class: "controls" }, select, filterBox("filter GPUs, holders", [tbl])),
    el("p", {}, num(src, h, "low_utilization.usd", "usd"), " over ", num(src, h, "coverage.cycles", "int"), " recorded cycles, ",
      h.from, " – ", h.to, " (whole hours of the history)."), tbl,
    (h.notes || []).length ? el("ul", { class: "notes muted" }, h.notes.map((n) => el("li", {}, n))) : null);
}

const causeColors = { "cpu-starved": "#d1495b", "input-bound": "#edae49", "memory-pressured": "#8d6cab", "no-work": "#2456c9", unknown: "#9aa0ad" };

// causePanel is "Why GPUs idle": the report's idle GPU-hours and
// allocated-but-idle dollars split by cause (idle_causes.totals).
function causePanel(src, r) {
  const ic = r.idle_causes;
  if (!ic) return section("Why GPUs idle", el("p", { class: "muted", id: "idle-causes" }, "This answer has no idle causes."));
  const bar = el("div", { class: "causebar", role: "img", "aria-label": "share of idle GPU-hours by cause" },
    ic.totals.filter((c) => c.share > 0).map((c) => el("span", { class: "cause-" + c.cause, title: c.cause + " " + fmt(c.share, "pct"),
      style: `width:${(c.share * 100).toFixed(2)}%;background:${causeColors[c.cause] || "#9aa0ad"}` })));
  const tbl = table(src, r, "idle_causes.totals", [
    { key: "cause", label: "Cause", render: (_, v) => el("span", {}, el("i", { class: "swatch", style: "background:" + (causeColors[v] || "#9aa0ad") }), v) },
    { key: "share", label: "Share of idle GPU-h", unit: "pct" },
    { key: "idle_gpu_hours", label: "Idle GPU-h", unit: "h" },
    { key: "idle_usd", label: "Idle $", unit: "usd" },
    { key: "monthly_idle_usd", label: "Idle $/month", unit: "usd" },
    { key: "hours", label: "Workload-hours", unit: "int" },
  ], { sort: "idle_gpu_hours", prefix: "cause-", unfiltered: true });
  return el("section", { id: "idle-causes" }, el("h2", {}, "Why GPUs idle"),
    el("p", {}, num(src, r, "idle_causes.idle_gpu_hours", "h"), " idle GPU-hours and ", num(src, r, "idle_causes.idle_usd", "usd"),
      " of GPU time allocated but idle, split by what the workload's CPU, memory and PCIe series showed in each idle hour."),
    bar, tbl,
    (ic.notes || []).length ? el("ul", { class: "notes muted" }, ic.notes.map((n) => el("li", {}, n))) : null);
}

// billPanel is "Bill reconciliation" (serve --bill): the bill's compute
// charges in the window against the report's node cost, and the GPU
// capacity billed that no node of the cluster claims (the report's
// reconciliation).
function billPanel(src, r) {
  const rc = r.reconciliation;
  const lines = el("ul", { class: "notes" },
    el("li", {}, "Bill: ", num(src, r, "reconciliation.bill_usd", "usd"), " of compute charges in the window (amortized)."),
    el("li", {}, "Matched to GPU nodes: ", num(src, r, "reconciliation.matched_usd", "usd"), "; gpuwise prices those node-hours at ",
      num(src, r, "reconciliation.gpuwise_matched_usd", "usd"), " (difference ", num(src, r, "reconciliation.difference_usd", "usd"), ")."),
    el("li", {}, "Unmatched: ", num(src, r, "reconciliation.unmatched_bill_usd", "usd"), " (no node of this cluster); CPU-only nodes: ",
      num(src, r, "reconciliation.cpu_nodes_usd", "usd"), "."),
    el("li", {}, "Not on the bill: ", num(src, r, "reconciliation.unbilled_node_usd", "usd"), " of node cost at catalog prices (",
      String((rc.nodes_without_bill || []).length), " GPU nodes without a bill line)."),
    el("li", {}, "Commitment coverage: ", num(src, r, "reconciliation.commitment_coverage", "pct"), " of the matched cost (",
      num(src, r, "reconciliation.committed_usd", "usd"), " under savings plans or reservations)."),
    el("li", {}, "Unused commitment in the window: ", num(src, r, "reconciliation.unused_commitment_usd", "usd"), "."));
  const tbl = table(src, r, "reconciliation.unmatched_gpu_lines", [
    { key: "resource_id", label: "Billed instance" }, { key: "provider", label: "Provider" },
    { key: "instance_type", label: "Instance type" }, { key: "usd", label: "$ in the window", unit: "usd" },
  ], { sort: "usd", prefix: "bill-", unfiltered: true });
  return el("section", { id: "bill" }, el("h2", {}, "Bill reconciliation"), lines,
    el("h3", {}, "GPU capacity billed but not in the cluster"), tbl);
}

// mainCause is the leaderboard's cause cell: the workload's main cause,
// its share of the workload's idle GPU-hours, and the evidence.
function mainCause(src, r, found) {
  if (!found) return el("span", { class: "muted" }, "not classified (outside the idle causes' top workloads)");
  const { w, j } = found;
  const k = (w.causes || []).findIndex((c) => c.cause === w.main_cause);
  return el("div", { class: "cause", "data-cause": w.main_cause },
    el("strong", {}, el("i", { class: "swatch", style: "background:" + (causeColors[w.main_cause] || "#9aa0ad") }), w.main_cause),
    k >= 0 ? el("span", {}, " ", num(src, r, `idle_causes.workloads.${j}.causes.${k}.share`, "pct")) : null,
    el("div", { class: "evidence muted" }, w.evidence));
}

async function actions(main) {
  const by = params.get("by") === "cluster";
  const src = query("api/v1/advise", by ? { by: "cluster" } : {});
  const answer = await load(src);
  // Several clusters (or by=cluster): each cluster's own ledger, their sum,
  // and the chosen cluster's (the cluster parameter; the first by default).
  let l = answer, base = "";
  const toggle = el("label", {}, el("input", { type: "checkbox", id: "by-cluster", checked: by || !!answer.clusters }), " per cluster");
  toggle.querySelector("input").addEventListener("change", (e) => { setParam("by", e.target.checked ? "cluster" : ""); setParam("cluster", ""); location.search = params.toString(); });
  main.append(el("div", { class: "controls" }, toggle));
  if (answer.clusters) {
    const names = answer.clusters.map((c) => c.cluster);
    const i = Math.max(names.indexOf(params.get("cluster") || ""), 0);
    const select = el("select", { id: "cluster", "aria-label": "cluster" }, names.map((n, j) => el("option", { value: n, selected: j === i }, n)));
    select.addEventListener("change", () => { setParam("cluster", select.value); location.search = params.toString(); });
    main.append(section("Clusters, each its own ledger (nothing shared between them)",
      el("p", {}, "All " + names.length + " cluster(s): ", num(src, answer, "before_usd_month", "usd"), " → ", num(src, answer, "after_usd_month", "usd"),
        " a month, recoverable ", num(src, answer, "saving_usd_month", "usd"), "."),
      table(src, answer, "clusters", [
        { key: "cluster", label: "Cluster" },
        { key: "ledger.before_usd_month", label: "Before $/month", unit: "usd" },
        { key: "ledger.after_usd_month", label: "After $/month", unit: "usd" },
        { key: "ledger.saving_usd_month", label: "Saving $/month", unit: "usd" },
      ], { sort: "ledger.saving_usd_month", prefix: "cl-", filterKey: (c) => c.cluster, unfiltered: true }),
      el("div", { class: "controls" }, select)));
    l = answer.clusters[i].ledger;
    base = "clusters." + i + ".ledger.";
  }
  main.append(ledgerView(src, answer, base, l));
}

// ledgerView is one ledger (answer at path base: "" for one cluster's,
// "clusters.N.ledger." for one of several) as cards, actions, plan and
// red flags; every figure tagged with its path in answer.
function ledgerView(src, answer, base, l) {
  const frag = document.createDocumentFragment();
  const main = { append: (...kids) => frag.append(...kids) };
  const numL = (s, _d, path, unit) => num(s, answer, base + path, unit);
  main.append(el("div", { class: "cards", id: "ledger" },
    card("Cost before, a month", numL(src, l, "before_usd_month", "usd"), el("span", {}, numL(src, l, "nodes_before", "int"), " nodes")),
    card("Cost after every action", numL(src, l, "after_usd_month", "usd"), el("span", {}, numL(src, l, "nodes_after", "int"), " nodes")),
    card("Saving a month", numL(src, l, "saving_usd_month", "usd"), el("span", {}, numL(src, l, "saving_share", "pct"), " of the cost")),
    card("Payback", el("span", {}, numL(src, l, "payback.payback_days", "num"), " days"),
      el("span", {}, numL(src, l, "payback.effort_hours", "h"), " engineer-hours"))));
  const list = el("div", { class: "actions", id: "action-list" }, (l.actions || []).map((a, i) => actionCard(src, answer, a, base + "actions." + i)));
  main.append(section("Actions, ranked (each saving adds to the ones before it)", list));
  main.append(section("Plan", table(src, answer, base + "phases", [
    { key: "phase", label: "Phase", unit: "int" }, { key: "days", label: "Days" }, { key: "name", label: "Name" },
    { key: "saving_usd_month", label: "Saving $/month", unit: "usd" }, { key: "effort_hours", label: "Effort h", unit: "h" },
    { key: "foundations", label: "Groundwork", text: (p) => (p.foundations || []).join(", ") },
    { key: "foundation_effort_hours", label: "Groundwork h", unit: "h" },
  ], { sort: "phase", dir: "asc", filterKey: (p) => p.name })));
  main.append(section("Groundwork, days 0–30 (saves nothing itself; never in the saving)", table(src, answer, base + "foundations", [
    { key: "id", label: "ID" }, { key: "title", label: "Action" },
    { key: "usd_month", label: "$/month (not a saving)", unit: "usd" }, { key: "gpu_hours", label: "Unmeasured GPU-h", unit: "h" },
    { key: "figure", label: "Figure" }, { key: "effort_hours", label: "Effort h", unit: "h" },
    { key: "command", label: "Command", render: (_, v) => el("code", {}, v) },
    { key: "unlocks", label: "Unlocks", text: (f) => (f.unlocks || []).join(", ") },
  ], { sort: "id", dir: "asc", filterKey: (f) => f.title, keep: (f) => !f.done })));
  main.append(section("Red flags to watch", table(src, answer, base + "red_flags", [
    { key: "title", label: "Flag" }, { key: "status", label: "Status", render: (_, v) => el("span", { class: "status-" + v }, v) },
    { key: "at_stake_usd_month", label: "At stake $/month", unit: "usd" }, { key: "detail", label: "Detail" },
  ], { filterKey: (f) => f.title })));
  return frag;
}

// actionCard is one action of the answer l, at path p in it.
function actionCard(src, l, a, p) {
  const arts = (a.artefacts || []).map((x) => el("div", {}, el("code", {}, x.command),
    x.files && x.files.length ? el("span", { class: "muted" }, " → " + x.files.join(", ")) : null));
  return el("article", { class: "action", "data-id": a.id },
    el("h3", {}, `${a.rank}. ${a.title}`),
    el("p", {}, el("strong", {}, num(src, l, p + ".saving_usd_month", "usd"), "/month"), " · effort ",
      num(src, l, p + ".effort_hours", "h"), " h · payback ", num(src, l, p + ".payback_days", "num"), a.payback_days == null ? "" : " days",
      " · phase ", a.phase_days, " days · ",
      el("span", { class: "conf-" + a.confidence }, a.confidence + " confidence"), " · ", el("span", { class: "risk-" + a.risk }, a.risk + " risk")),
    el("p", {}, a.why),
    a.prerequisites && a.prerequisites.length ? el("p", {}, "After: " + a.prerequisites.join(", ")) : null,
    el("details", {}, el("summary", {}, "Evidence and artefacts"),
      el("ul", {}, (a.evidence || []).map((e, j) => el("li", {}, e.name, ": ", num(src, l, `${p}.evidence.${j}.value`, "num"), " ", e.unit || ""))),
      el("p", {}, "Confidence: " + a.confidence_reason), el("p", {}, "Risk: " + a.risk_reason), arts));
}

async function audit(main) {
  const src = query("api/v1/audit");
  const a = await load(src);
  const sev = params.get("severity") || "";
  const cols = [
    { key: "severity", label: "Severity", render: (_, v) => el("span", { class: "sev-" + v }, v) },
    { key: "rule", label: "Rule" },
    { key: "object", label: "Object" },
    { key: "message", label: "Finding" },
    { key: "monthly_usd", label: "$/month", unit: "usd" },
    { key: "fix", label: "Fix", text: (f) => f.remediation || "",
      render: (f) => (f.remediation ? el("details", {}, el("summary", {}, "fix"), el("pre", {}, f.remediation)) : "") },
  ];
  const tbl = table(src, a, "findings", cols, { sort: "monthly_usd", keep: (f) => !sev || f.severity === sev, filterKey: (f) => f.rule + " " + f.object + " " + f.message });
  const select = el("select", { id: "severity", "aria-label": "severity" }, ["", "critical", "warning", "info"].map((s) => el("option", { value: s, selected: s === sev }, s || "every severity")));
  select.addEventListener("change", () => { setParam("severity", select.value); location.search = params.toString(); });
  main.append(el("div", { class: "cards" },
    card("Critical", num(src, a, "summary.critical", "int")), card("Warning", num(src, a, "summary.warning", "int")),
    card("Info", num(src, a, "summary.info", "int")), card("At stake a month", num(src, a, "summary.monthly_usd", "usd"))),
  section("Findings", el("div", { class: "controls" }, select, filterBox("filter rule, object, text", [tbl])), tbl));
}

async function notes(main) {
  const srcs = { report: query("api/v1/report"), advise: query("api/v1/advise"), audit: query("api/v1/audit") };
  const st = await load("api/v1/status");
  main.append(section("Service", el("ul", { class: "notes" },
    el("li", {}, "Mode: " + st.mode + ", cluster " + st.cluster + ", results built " + st.results_built),
    el("li", {}, "History: " + st.history),
    st.partial ? el("li", { class: "sev-warning" }, "Partial: " + st.partial) : null,
    st.stale ? el("li", { class: "sev-warning" }, "Stale: " + st.stale) : null)));
  for (const [name, src] of Object.entries(srcs)) {
    const d = await load(src);
    main.append(section("Notes of the " + name, el("ul", { class: "notes", "data-notes": name }, (d.notes || []).map((n) =>
      typeof n === "string" ? el("li", {}, n) : el("li", {}, el("span", { class: "sev-" + n.severity }, n.severity), " ", n.text)))));
  }
}

function linkParams(v) {
  const q = new URLSearchParams();
  q.set("view", v);
  if (params.get("window")) q.set("window", params.get("window"));
  return q.toString();
}

async function start() {
  for (const a of document.querySelectorAll("#nav a")) {
    a.href = "?" + linkParams(a.dataset.view);
    if (a.dataset.view === view) a.setAttribute("aria-current", "page");
  }
  const main = document.getElementById("main");
  const views = { overview, costs, idle, actions, audit, notes };
  try {
    const st = await load("api/v1/status");
    document.getElementById("context").textContent =
      `cluster ${st.cluster} · window ${st.window.start} – ${st.window.end} · ${st.mode}` + (st.stale ? " · stale" : "");
    if (st.partial) banner("Partial data: " + st.partial);
    await (views[view] || overview)(main);
    document.body.dataset.readyMs = performance.now().toFixed(0);
    document.body.dataset.ready = "true";
  } catch (e) {
    main.append(el("p", { class: "sev-critical", role: "alert" }, "Could not load: " + e.message));
    document.body.dataset.ready = "error";
    console.error(e);
  }
}

start();
