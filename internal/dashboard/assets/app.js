// gpuwise dashboard: one page, no dependencies. Every figure is read from
// this service's API and shown with data-src (the API URL) and data-path
// (where in its JSON) so that a test can check it against the answer.
"use strict";

const params = new URLSearchParams(location.search);
// A team's page is /team/VALUE (bookmarkable): the same page one folder
// down, its API and links one folder up.
const teamPath = location.pathname.match(/\/team\/([^/]+)$/);
const root = teamPath ? "../" : "";
const team = teamPath ? decodeURIComponent(teamPath[1]) : "";
const view = teamPath ? "team" : params.get("view") || "overview";
const api = {};

// query keeps the service's window parameter on every API call and link
// of the answers computed on the service's window (report, ledger, audit).
function query(base, extra) {
  const q = new URLSearchParams(extra || {});
  if (params.get("window")) q.set("window", params.get("window"));
  const s = q.toString();
  return s ? base + "?" + s : base;
}

// The range (range, or from and to) and the comparison period go to every
// answer read from the history (showback, history, compare, low-util).
const rangeNames = ["range", "from", "to"];
function rq(base, extra, opts) {
  const q = new URLSearchParams(extra || {});
  for (const n of rangeNames) if (params.get(n)) q.set(n, params.get(n));
  if (opts && opts.compare && params.get("compare")) q.set("compare", params.get("compare"));
  const s = q.toString();
  return s ? base + "?" + s : base;
}

// rangeAsked says whether the page shows a range other than the window.
const rangeAsked = () => rangeNames.some((n) => params.get(n));

// load fetches one API answer once; a partial answer raises the banner.
async function load(url) {
  if (!api[url]) {
    api[url] = fetch(root + url, { credentials: "same-origin" }).then(async (r) => {
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

// Charts: small SVG, drawn here from API answers. Every chart has hover
// values: a column per bucket (or a bar) whose title lists the API's
// figures there, formatted, never computed.
const svgNS = "http://www.w3.org/2000/svg";
function svgOf(W, H, title) {
  const svg = document.createElementNS(svgNS, "svg");
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", title);
  svg.add = (tag, attrs, text, parent) => {
    const e = document.createElementNS(svgNS, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    (parent || svg).append(e);
    return e;
  };
  return svg;
}

// hover adds a hover target with a tooltip (an SVG title) of lines.
function hover(svg, attrs, lines) {
  const g = svg.add("g", { class: "hover" });
  svg.add("rect", Object.assign({ fill: "transparent" }, attrs), undefined, g);
  svg.add("title", {}, lines.join("\n"), g);
  return g;
}

// lineChart draws series [{name, points: [[ms, value|null, path]]}] as
// lines, or stacked areas (opts.stack), with vertical markers [{t,
// label}] and a target band (opts.band: [low, high]); a null value breaks
// a line and stacks as nothing.
function lineChart(title, src, series, unit, markers, opts) {
  opts = opts || {};
  const W = 560, H = 220, L = 56, R = 8, T = 10, B = 24;
  const pts = series.flatMap((s) => s.points).filter((p) => p[1] !== null);
  const box = el("figure", { class: "chart", "data-chart": title, "data-src": src });
  box.append(el("h3", {}, title));
  if (!pts.length) {
    box.append(el("p", { class: "muted" }, "no history recorded for this range yet"));
    return box;
  }
  const buckets = [...new Set(pts.map((p) => p[0]))].sort((a, b) => a - b);
  const t0 = buckets[0], t1 = buckets[buckets.length - 1];
  // stacking is drawing: each band sits on the ones below it
  const stacked = new Map();
  let top = 0;
  if (opts.stack) {
    for (const t of buckets) stacked.set(t, 0);
    for (const s of series) s.base = new Map(buckets.map((t) => [t, 0]));
    for (const s of series) {
      for (const [t, v] of s.points) {
        s.base.set(t, stacked.get(t));
        stacked.set(t, stacked.get(t) + (v || 0));
      }
    }
    top = Math.max(...stacked.values());
  } else top = Math.max(...pts.map((p) => p[1]), opts.band ? opts.band[1] : 0);
  const ymax = niceMax(top);
  const x = (t) => L + ((t - t0) / Math.max(1, t1 - t0)) * (W - L - R);
  const y = (v) => T + (1 - v / ymax) * (H - T - B);
  const svg = svgOf(W, H, title);
  if (opts.band) {
    svg.add("rect", { class: "band", x: L, width: W - L - R, y: y(opts.band[1]), height: y(opts.band[0]) - y(opts.band[1]) });
    svg.add("text", { x: W - R - 2, y: y(opts.band[1]) + 10, "text-anchor": "end", class: "bandlabel" }, "target " + opts.band.map((v) => Math.round(v * 100)).join("–") + "%");
  }
  for (let i = 0; i <= 4; i++) {
    const v = (ymax * i) / 4;
    svg.add("line", { class: "axis", x1: L, x2: W - R, y1: y(v), y2: y(v) });
    svg.add("text", { x: L - 4, y: y(v) + 3, "text-anchor": "end" }, tick(v, unit));
  }
  for (const d of dayTicks(t0, t1)) {
    svg.add("text", { x: x(d), y: H - 6, "text-anchor": "middle" }, new Date(d).toISOString().slice(5, 10));
  }
  series.forEach((s, i) => {
    const color = palette[i % palette.length];
    if (opts.stack) {
      const up = s.points.map(([t, v]) => x(t).toFixed(1) + "," + y(s.base.get(t) + (v || 0)).toFixed(1));
      const down = s.points.slice().reverse().map(([t]) => x(t).toFixed(1) + "," + y(s.base.get(t)).toFixed(1));
      svg.add("path", { d: "M" + up.join("L") + "L" + down.join("L") + "Z", fill: color, "fill-opacity": 0.75, stroke: color, "stroke-width": 0.5, "data-series": s.name });
      return;
    }
    let d = "", pen = false;
    for (const [t, v] of s.points) {
      if (v === null) { pen = false; continue; }
      d += (pen ? "L" : "M") + x(t).toFixed(1) + "," + y(v).toFixed(1);
      pen = true;
    }
    svg.add("path", { d, fill: "none", stroke: color, "stroke-width": 1.6, "data-series": s.name });
  });
  // markers: labels step down a line each (three lines) so that near
  // markers stay readable; one near the right edge ends at the line
  (markers || []).filter((m) => m.t >= t0 && m.t <= t1).sort((a, b) => a.t - b.t).forEach((m, i) => {
    svg.add("line", { class: "marker", x1: x(m.t), x2: x(m.t), y1: T, y2: H - B });
    const right = x(m.t) > W * 0.6;
    svg.add("text", { x: x(m.t) + (right ? -3 : 3), y: T + 9 + (i % 3) * 10, "text-anchor": right ? "end" : "start", class: "markerlabel" }, m.label);
  });
  // hover: one column per bucket, its title the API's values there
  const step = buckets.length > 1 ? (W - L - R) / (buckets.length - 1) : W - L - R;
  buckets.forEach((t) => {
    const lines = [new Date(t).toISOString().slice(0, 16).replace("T", " ") + " UTC"];
    for (const s of series) {
      const p = s.points.find((q) => q[0] === t);
      if (p && p[1] !== null) lines.push(s.name + ": " + fmt(p[1], unit));
    }
    if (opts.stack && opts.sum) lines.push("(stacked)");
    hover(svg, { x: Math.max(L, x(t) - step / 2), y: T, width: step, height: H - T - B }, lines);
  });
  box.append(svg, el("div", { class: "legend" }, series.map((s, i) =>
    el("span", {}, el("i", { style: "background:" + palette[i % palette.length] }), s.name))));
  return box;
}

function stackChart(title, src, series, unit, markers, opts) {
  return lineChart(title, src, series, unit, markers, Object.assign({ stack: true }, opts || {}));
}

// barChart draws one horizontal bar per row of data[listPath] (label from
// nameKey, value from valueKey), each bar's title its figure.
function barChart(title, src, data, listPath, nameKey, valueKey, unit, colors) {
  const rows = (at(data, listPath) || []).map((r, i) => ({ r, i })).filter((x) => x.r[valueKey] !== null && x.r[valueKey] !== undefined);
  const box = el("figure", { class: "chart", "data-chart": title, "data-src": src });
  box.append(el("h3", {}, title));
  if (!rows.length) { box.append(el("p", { class: "muted" }, "nothing to show")); return box; }
  const W = 560, rowH = 26, L = 130, R = 90, H = rows.length * rowH + 8;
  const vmax = niceMax(Math.max(...rows.map((x) => x.r[valueKey])));
  const svg = svgOf(W, H, title);
  rows.forEach(({ r, i }, k) => {
    const w = (r[valueKey] / vmax) * (W - L - R), yy = 4 + k * rowH;
    svg.add("text", { x: L - 6, y: yy + 16, "text-anchor": "end" }, r[nameKey]);
    svg.add("rect", { x: L, y: yy + 4, width: Math.max(1, w), height: rowH - 10, fill: (colors && colors[r[nameKey]]) || palette[k % palette.length] });
    svg.add("text", { x: L + Math.max(1, w) + 4, y: yy + 16, "data-src": src, "data-path": listPath + "." + i + "." + valueKey, "data-unit": unit }, fmt(r[valueKey], unit));
    hover(svg, { x: 0, y: yy, width: W, height: rowH }, [r[nameKey] + ": " + fmt(r[valueKey], unit)]);
  });
  box.append(svg);
  return box;
}

// waterfall draws the ledger from its cost before, through each action's
// saving in ledger order (each step hangs from where the one before it
// ended: drawing, the way a stacked bar sits on the one below), to its
// cost after. Every figure shown and hovered is the API's; the last step
// ends at the API's after because the ledger's savings add up.
function waterfall(title, src, answer, base, l) {
  const acts = (l.actions || []).map((a, i) => ({ a, i })).filter((x) => x.a.saving_usd_month > 0);
  const box = el("figure", { class: "chart waterfall", "data-chart": title, "data-src": src });
  box.append(el("h3", {}, title));
  let level = l.before_usd_month;
  const bars = [{ name: "before", lo: 0, hi: l.before_usd_month, path: base + "before_usd_month", kind: "total" }]
    .concat(acts.map(({ a, i }) => {
      const b = { name: a.id, lo: level - a.saving_usd_month, hi: level, path: base + "actions." + i + ".saving_usd_month", title: a.title, save: a.saving_usd_month, kind: "step" };
      level = b.lo;
      return b;
    }))
    .concat([{ name: "after", lo: 0, hi: l.after_usd_month, path: base + "after_usd_month", kind: "total" }]);
  const W = 560, H = 240, L = 56, R = 8, T = 10, B = 28;
  const ymax = niceMax(Math.max(...bars.map((b) => b.hi)));
  const y = (v) => T + (1 - v / ymax) * (H - T - B);
  const bw = (W - L - R) / bars.length;
  const svg = svgOf(W, H, title);
  for (let i = 0; i <= 4; i++) {
    const v = (ymax * i) / 4;
    svg.add("line", { class: "axis", x1: L, x2: W - R, y1: y(v), y2: y(v) });
    svg.add("text", { x: L - 4, y: y(v) + 3, "text-anchor": "end" }, tick(v, "usd"));
  }
  bars.forEach((b, k) => {
    const xx = L + k * bw + bw * 0.15;
    svg.add("rect", { x: xx, y: y(b.hi), width: bw * 0.7, height: Math.max(1, y(b.lo) - y(b.hi)), class: "wf-" + b.kind, "data-bar": b.name, "data-lo": y(b.lo).toFixed(2) });
    svg.add("text", { x: xx + bw * 0.35, y: H - 12, "text-anchor": "middle" }, b.name);
    const g = hover(svg, { x: L + k * bw, y: T, width: bw, height: H - T - B },
      b.kind === "total" ? [b.name + ": " + fmt(b.hi, "usd") + " a month"] : [b.name + " " + b.title, "saves " + fmt(b.save, "usd") + " a month"]);
    g.setAttribute("data-src", src);
    g.setAttribute("data-hover-path", b.path);
  });
  box.append(svg, el("p", { class: "muted" }, "Dollars a month: the cost before, each action's saving in ledger order (each after the ones before it), and the cost after. Hover a bar for its figures."));
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

async function overview(main, st) {
  const src = query("api/v1/report");
  const ssrc = rq("api/v1/showback", { by: "namespace", "idle-share": "none" }, { compare: true });
  const asrc = query("api/v1/advise");
  const [r, s, l] = await Promise.all([load(src), load(ssrc), load(asrc)]);
  const trend = (path) => el("span", {}, "previous period ", num(ssrc, s, path + ".previous_total_usd", "usd"), ", change ", num(ssrc, s, path + ".change_share", "pct"));
  main.append(cardRow("Over the range: " + s.range.start + " – " + s.range.end + " (dollars in the range, from the history)", "range-cards",
    card("Spend in the range", num(ssrc, s, "total.total_usd", "usd"), trend("total")),
    card("GPU utilization of allocated", num(ssrc, s, "total.gpu_utilization", "pct"), el("span", {}, num(ssrc, s, "total.gpu_hours", "h"), " GPU-hours allocated")),
    card("Idle GPU cost (allocated, unused)", num(ssrc, s, "total.idle_usd", "usd"), el("span", {}, num(ssrc, s, "total.gpu_idle_hours", "h"), " idle GPU-hours")),
    card("Unallocated GPU cost (no pod requested it)", num(ssrc, s, "total.unallocated_usd", "usd"), el("span", {}, "of ", num(ssrc, s, "total.total_usd", "usd"), " in all"))));
  main.append(cardRow("A month (dollars a month)", "monthly-cards",
    card("Spend a month at the range's rate", num(ssrc, s, "monthly_total_usd", "usd"), el("span", {}, "the report's on the window: ", num(src, r, "totals.monthly_cost_usd", "usd"))),
    card("Recoverable a month (savings ledger)", num(asrc, l, "saving_usd_month", "usd"),
      el("span", {}, num(asrc, l, "saving_share", "pct"), " of the cost: see ", el("a", { href: link("actions") }, "Actions"))),
    card("Cost a month after every action", num(asrc, l, "after_usd_month", "usd"), el("span", {}, "before: ", num(asrc, l, "before_usd_month", "usd")))));
  main.append(metricsSection(asrc, l));
  const hsrc = rq("api/v1/history", { kind: "namespace", top: "6" });
  const msrc = rq("api/v1/history", { kind: "gpu_model" });
  const csrcHalf = params.get("range") ? query("api/v1/compare", { kind: "namespace", range: params.get("range") })
    : query("api/v1/compare", { kind: "namespace", period: Math.floor(r.window_hours / 2) + "h" });
  const [h, m, c] = await Promise.all([load(hsrc), load(msrc), load(csrcHalf)]);
  const markers = sameTime(capacityChanges(m.points).concat(sharingChanges(m.fleet),
    [{ t: Date.parse(c.after.window.start), label: "after →" }]));
  const keys = [...new Set(h.points.map((p) => p.key))];
  const gpuKeys = keys.filter((k) => h.points.some((p) => p.key === k && p.gpu_utilization !== null));
  main.append(section("Trends over the range (hourly, from the history)", el("div", { class: "charts" },
    stackChart("Spend by namespace ($ per hour, stacked)", hsrc, seriesOf(h, keys, "total_usd"), "usd", markers),
    lineChart("GPU utilization per namespace (target band 60–85 %)", hsrc, seriesOf(h, gpuKeys, "gpu_utilization"), "pct", markers, { band: [0.6, 0.85] }),
    stackChart("Idle GPU cost ($ per hour, stacked): allocated but unused per namespace, and unallocated", hsrc,
      seriesOf(h, keys.filter((k) => k !== "__unallocated__"), "gpu_idle_usd").concat(
        seriesOf(h, ["__unallocated__"], "gpu_unallocated_usd").map((x) => Object.assign(x, { name: "unallocated" }))), "usd", markers),
    r.idle_causes ? barChart("Idle $ by cause (on the service's window)", src, r, "idle_causes.totals", "cause", "idle_usd", "usd", causeColors) : null),
  el("p", { class: "muted" }, "Namespaces outside the six largest are summed by the service into __other__. Dashed lines: where the provisioned GPU count changed (nodes added or removed), where the GPUs in a sharing mode changed (MIG, time-slicing, whole), and where the after period of the comparison below starts. Hover a chart for its values.")));
  main.append(compareSection(csrcHalf, c));
  if (r.savings && r.savings.first.length) {
    main.append(section("Do first (savings ledger, dollars a month)", el("ol", {}, r.savings.first.map((a, i) =>
      el("li", {}, el("a", { href: link("actions") + "#" + a.id }, a.title), " — ", num(src, r, `savings.first.${i}.saving_usd_month`, "usd"), "/month, ",
        a.confidence, " confidence, payback ", num(src, r, `savings.first.${i}.payback_days`, "num"), " days")))));
  }
  main.append(section("Where the money goes over the range (by namespace)", showbackTable(ssrc, s, "namespace")));
}

// cardRow is one row of cards on one dollar basis, labelled.
function cardRow(label, id, ...cards) {
  return el("section", { class: "cardrow", id }, el("h2", { class: "rowlabel" }, label), el("div", { class: "cards" }, ...cards));
}

// seriesOf is one series per key of a history answer: the field's value
// of each bucket (null where the key has no row), as the API gives it.
function seriesOf(h, keys, field) {
  const buckets = [...new Set(h.points.map((p) => p.bucket))].sort();
  const byKey = new Map();
  h.points.forEach((p, i) => {
    if (!byKey.has(p.key)) byKey.set(p.key, new Map());
    byKey.get(p.key).set(p.bucket, i);
  });
  return keys.filter((k) => byKey.has(k)).map((k) => ({
    name: k,
    points: buckets.map((b) => {
      const i = byKey.get(k).get(b);
      return i === undefined ? [Date.parse(b), null] : [Date.parse(b), h.points[i][field], "points." + i + "." + field];
    }),
  }));
}

// The ledger's FinOps metrics, each with its target, status and a link to
// what moves it.
const metricLinks = {
  gpu_utilization: ["actions", {}, "consolidation and right-sizing (Actions)"],
  idle_share: ["idle", {}, "why GPUs idle (Idle)"],
  unallocated_share: ["actions", {}, "removing and scaling nodes (Actions)"],
  gpus_below_30pct_6h: ["idle", {}, "the low-utilization list (Idle)"],
  spot_share_training: ["actions", {}, "the spot lever (Actions)"],
  cost_per_1k_inferences: ["costs", { by: "workload", q: "inference" }, "inference workloads (Costs)"],
};
function metricsSection(src, l) {
  if (!l.metrics || !l.metrics.length) return section("FinOps metrics", el("p", { class: "muted" }, "The ledger has no metrics for this window."));
  return el("section", { id: "finops-metrics" }, el("h2", {}, "FinOps metrics against their targets (on the service's window)"),
    el("div", { class: "cards metrics" }, l.metrics.map((m, i) => {
      const to = metricLinks[m.name];
      return el("div", { class: "card metric", "data-metric": m.name },
        el("div", { class: "label" }, m.title),
        el("div", { class: "big" }, num(src, l, "metrics." + i + ".value", "num"), " ", m.unit === "USD" ? "$" : m.unit),
        el("div", { class: "sub" }, "target ", m.target, " · ", el("span", { class: "status-" + m.status }, m.status)),
        to ? el("div", { class: "sub" }, "moved by ", el("a", { href: link(to[0], to[1]) }, to[2])) : null);
    })));
}

// showbackTable is a showback answer's rows: GPU-hours, active, idle and
// unallocated $, total, share and the trend; team rows link to their page.
function showbackTable(src, s, by) {
  const teamLabel = by.startsWith("label:") ? by.slice(6) : "";
  return table(src, s, "rows", [
    { key: "key", label: by, render: (row, v) => teamLabel && v !== "__unallocated__" && !v.startsWith("(no ")
      ? el("a", { href: root + "team/" + encodeURIComponent(v) + (teamLabel === "team" ? "" : "?label=" + encodeURIComponent(teamLabel)) }, v)
      : (by === "namespace" || by === "workload") && v !== "__unallocated__" ? el("a", { href: link("drill", by === "namespace" ? { ns: v } : { workload: v }) }, v) : v },
    { key: "gpu_hours", label: "GPU-h", unit: "h" },
    { key: "gpu_utilization", label: "Utilization", unit: "pct" },
    { key: "active_usd", label: "Active $", unit: "usd" },
    { key: "idle_usd", label: "Idle $", unit: "usd" },
    { key: "unallocated_usd", label: "Unallocated $", unit: "usd" },
    { key: "total_usd", label: "Total $", unit: "usd" },
    { key: "share", label: "Share", unit: "pct" },
    { key: "previous_total_usd", label: "Previous $", unit: "usd" },
    { key: "change_usd", label: "Change $", unit: "usd" },
    { key: "change_share", label: "Change", unit: "pct" },
  ], { sort: "total_usd", prefix: "sb-" });
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

async function costs(main, st) {
  const opts = byOptions.concat((st.history_labels || []).map((l) => "label:" + l));
  const by = opts.includes(params.get("by")) ? params.get("by") : "namespace";
  const offset = pageOffset("rowoffset");
  const src = query("api/v1/report", { by, offset: String(offset), limit: String(rowsLimit) });
  const r = await load(src);
  const note = windowNote(st, "The cost table is");
  if (note) main.append(note, el("p", {}, "Over the range: ", el("a", { href: link("showback", { by: by === "gpu-model" || byOptions.includes(by) && by !== "capacity-type" ? by : by.startsWith("label:") ? by : "namespace" }) }, "the showback by " + by)));
  const select = el("select", { id: "by", "aria-label": "group by" }, opts.map((o) => el("option", { value: o, selected: o === by }, o)));
  select.addEventListener("change", () => { setParam("by", select.value); setParam("sort", ""); location.search = params.toString(); });
  const cols = costCols();
  if (by === "namespace") cols[0].render = (row, v) => (v === "__unallocated__" ? v : el("a", { href: link("drill", { ns: v }) }, v));
  if (by === "workload") cols[0].render = (row, v) => (v === "__unallocated__" ? v : el("a", { href: link("drill", { workload: v }) }, v));
  if (by.startsWith("label:") && by.length > 6) cols[0].render = (row, v) => (v === "__unallocated__" || v.startsWith("(no ") ? v
    : el("a", { href: root + "team/" + encodeURIComponent(v) + (by === "label:team" ? "" : "?label=" + encodeURIComponent(by.slice(6))) }, v));
  const tbl = table(src, r, "rows", cols, { sort: "total_cost_usd" });
  main.append(section("Cost by " + by + " (on the service's window)",
    el("div", { class: "controls" }, el("label", {}, "Group by ", select), filterBox("filter " + by, [tbl])),
    el("p", {}, "Total ", num(src, r, "totals.total_cost_usd", "usd"), " over ", num(src, r, "window_hours", "h"), " h; GPU ",
      num(src, r, "totals.gpu_cost_usd.active", "usd"), " active, ", num(src, r, "totals.gpu_cost_usd.allocated_idle", "usd"), " allocated but idle, ",
      num(src, r, "totals.gpu_cost_usd.unallocated", "usd"), " unallocated."),
    tbl, pager("rows-pager", "Rows", src, r, offset, r.rows.length, "page.rows", (o) => link("costs", { by, rowoffset: String(o) }))));
}

// Pages of an answer's rows (the API's offset and limit): a view asks for
// the rows it shows, most dollars first, and links to the next page.
const rowsLimit = 50;

// pageOffset is the page's start, from the view's parameter name.
function pageOffset(name) {
  return Math.max(0, parseInt(params.get(name) || "0", 10) || 0);
}

// pager is "Rows a–b of N" with links to the previous and the next page
// (href(offset) is the view at that offset); shown is the page's rows,
// countPath where the answer says how many it has in all.
function pager(id, what, src, data, offset, shown, countPath, href) {
  const n = at(data, countPath) || 0;
  return el("p", { class: "pager", id }, what + " ", String(shown ? offset + 1 : 0), "–", String(offset + shown), " of ", num(src, data, countPath, "int"), " (most dollars first)",
    offset > 0 ? el("span", {}, " · ", el("a", { href: href(Math.max(0, offset - rowsLimit)), rel: "prev" }, "previous")) : null,
    offset + shown < n ? el("span", {}, " · ", el("a", { href: href(offset + rowsLimit), rel: "next", "data-more": id }, "more rows")) : null);
}

// showback is the per-group table over the range: GPU-hours, active vs
// idle $, the share of unallocated cost under the chosen rule, the trend
// against the comparison period; CSV and FOCUS-style downloads.
async function showback(main, st) {
  const groups = (st.history_labels || []).map((l) => "label:" + l).concat(["namespace", "workload", "node", "gpu-model"]);
  const by = groups.includes(params.get("by")) ? params.get("by") : groups[0];
  const rule = params.get("idle-share") === "none" ? "none" : "cluster";
  const src = rq("api/v1/showback", { by, "idle-share": rule }, { compare: true });
  const s = await load(src);
  const bySel = el("select", { id: "showback-by", "aria-label": "group by" }, groups.map((g) => el("option", { value: g, selected: g === by }, g)));
  bySel.addEventListener("change", () => { setParam("by", bySel.value); setParam("sb-sort", ""); location.search = params.toString(); });
  const ruleSel = el("select", { id: "idle-share", "aria-label": "idle share" },
    [["cluster", "shared by what each group pays (cluster)"], ["none", "kept on its own row (none)"]].map(([v, label]) => el("option", { value: v, selected: v === rule }, label)));
  ruleSel.addEventListener("change", () => { setParam("idle-share", ruleSel.value === "cluster" ? "" : ruleSel.value); location.search = params.toString(); });
  const dl = (out, label) => el("a", { href: root + rq("api/v1/showback", { by, "idle-share": rule, output: out }, { compare: true }), download: "", class: "download", "data-download": out }, label);
  const tbl = showbackTable(src, s, by);
  main.append(section("Showback by " + by + ": " + s.range.start + " – " + s.range.end,
    el("div", { class: "controls" }, el("label", {}, "Group by ", bySel), el("label", {}, "Unallocated cost ", ruleSel), filterBox("filter " + by, [tbl]), dl("csv", "CSV"), dl("focus", "FOCUS allocation file")),
    el("p", { id: "showback-total" }, "Total ", num(src, s, "total.total_usd", "usd"), " over ", num(src, s, "hours", "h"), " h (", num(src, s, "monthly_total_usd", "usd"), " a month at this rate); ",
      num(src, s, "total.active_usd", "usd"), " active, ", num(src, s, "total.idle_usd", "usd"), " allocated but idle, ", num(src, s, "total.unallocated_usd", "usd"), " unallocated",
      s.comparison ? el("span", {}, "; the comparison period " + s.comparison.start + " – " + s.comparison.end + ": ", num(src, s, "total.previous_total_usd", "usd")) : null, "."),
    tbl, (s.notes || []).length ? el("ul", { class: "notes muted" }, s.notes.map((n) => el("li", {}, n))) : null,
    el("p", { class: "muted" }, "From the history's hourly rows (the cost engine's figures each cycle); over the service's window it is the report grouped the same way, to the cent. The CSV's totals are in cents and add up to the total exactly.")));
}

// teamView is /team/VALUE: one team's showback over the range, its trend
// and its hourly spend (bookmarkable; ?label=KEY for another label).
async function teamView(main) {
  const label = params.get("label") || "team";
  const by = "label:" + label;
  const src = rq("api/v1/showback", { by, "idle-share": params.get("idle-share") === "none" ? "none" : "cluster" }, { compare: true });
  const hsrc = rq("api/v1/history", { kind: by, key: team });
  const [s, h] = await Promise.all([load(src), load(hsrc)]);
  const i = s.rows.findIndex((r) => r.key === team);
  main.append(el("div", { class: "crumbs", role: "navigation", "aria-label": "breadcrumbs" }, el("a", { href: link("showback", { by }) }, "Showback by " + label), " › ", team));
  if (i < 0) {
    main.append(el("p", { class: "muted", id: "team-missing" }, "The history holds no cost for " + label + " " + JSON.stringify(team) + " in " + s.range.start + " – " + s.range.end + "."));
    return;
  }
  const p = "rows." + i;
  main.append(cardRow(label + " " + team + " over the range " + s.range.start + " – " + s.range.end + " (dollars in the range)", "team-cards",
    card("Cost", num(src, s, p + ".total_usd", "usd"), el("span", {}, num(src, s, p + ".share", "pct"), " of the total")),
    card("Active GPU $", num(src, s, p + ".active_usd", "usd"), el("span", {}, num(src, s, p + ".gpu_active_hours", "h"), " active GPU-hours")),
    card("Idle GPU $ (allocated, unused)", num(src, s, p + ".idle_usd", "usd"), el("span", {}, "utilization ", num(src, s, p + ".gpu_utilization", "pct"))),
    card("Share of unallocated $ (" + s.idle_share + ")", num(src, s, p + ".unallocated_usd", "usd")),
    card("Against the comparison period", num(src, s, p + ".change_usd", "usd"), el("span", {}, "previous ", num(src, s, p + ".previous_total_usd", "usd")))));
  main.append(section("Hourly spend", el("div", { class: "charts" },
    stackChart("Spend of " + team + " ($ per hour): active, idle, unallocated share not included", hsrc, [
      Object.assign(seriesOf(h, [team], "gpu_active_usd")[0] || { points: [] }, { name: "active GPU $" }),
      Object.assign(seriesOf(h, [team], "gpu_idle_usd")[0] || { points: [] }, { name: "idle GPU $" }),
    ], "usd", []),
    lineChart("GPU utilization of " + team + " (target band 60–85 %)", hsrc, seriesOf(h, [team], "gpu_utilization"), "pct", [], { band: [0.6, 0.85] }))));
  main.append(el("p", {}, el("a", { href: root + rq("api/v1/showback", { by, output: "csv" }, { compare: true }), download: "" }, "Showback CSV"), " · ",
    el("a", { href: link("costs", { by }) }, "Costs by " + label + " on the window")));
}

// drill is the drill-down: a namespace (?ns=), a workload (?workload=),
// a pod (?pod=, with its workload) or a GPU unit (?unit=), each a page
// with its cost split, its hourly activity and links down (namespace →
// workload → pod → GPU unit) and back (breadcrumbs); the namespace and
// workload pages add idle causes, ledger actions and audit findings.
async function drill(main, st) {
  const ns = params.get("ns"), wl = params.get("workload"), pod = params.get("pod"), unit = params.get("unit");
  const nsOf = (key) => key.split("/")[0];
  const crumbs = [el("a", { href: link("costs", { by: "namespace" }) }, "Costs by namespace")];
  if (unit) return unitPage(main, crumbs, unit, wl, pod);
  if (pod) return podPage(main, crumbs, pod, wl);
  // the namespace's workload rows only: a page of them on its page, all
  // (up to a page's most) on a workload's, which finds its own row there
  const wloffset = wl ? 0 : pageOffset("wloffset");
  const wsrc = query("api/v1/report", { by: "workload", top: "50", namespace: nsOf(wl || ns), offset: String(wloffset), limit: wl ? "500" : String(rowsLimit) });
  const asrc = query("api/v1/advise");
  const audsrc = query("api/v1/audit", { namespace: nsOf(wl || ns) }); // its findings only (the whole audit is 10 MB at 10,000 GPUs)
  const [w, l, a] = await Promise.all([load(wsrc), load(asrc), load(audsrc)]);
  const key = wl || ns;
  const kind = wl ? "workload" : "namespace";
  const rsrc = wl ? wsrc : query("api/v1/report");
  const r = wl ? w : await load(rsrc);
  const i = r.rows.findIndex((x) => x.key === key);
  if (wl) crumbs.push(el("a", { href: link("drill", { ns: nsOf(wl) }) }, nsOf(wl)));
  crumbs.push(el("span", {}, key));
  main.append(breadcrumbs(crumbs));
  if (i < 0) { main.append(el("p", { class: "muted", id: "drill-missing" }, "The report has no " + kind + " " + key + " in the window.")); return; }
  const p = "rows." + i;
  main.append(cardRow(kind + " " + key + ": cost split in the service's window (dollars in the window)", "drill-cards",
    card("Total", num(rsrc, r, p + ".total_cost_usd", "usd"), el("span", {}, num(rsrc, r, p + ".monthly_cost_usd", "usd"), " a month")),
    card("Active GPU $", num(rsrc, r, p + ".gpu_cost_usd.active", "usd"), el("span", {}, num(rsrc, r, p + ".gpu_hours.active", "h"), " GPU-hours")),
    card("Idle GPU $ (allocated, unused)", num(rsrc, r, p + ".gpu_cost_usd.allocated_idle", "usd"), el("span", {}, num(rsrc, r, p + ".gpu_hours.idle", "h"), " GPU-hours")),
    card("Unmeasured GPU $", num(rsrc, r, p + ".gpu_cost_usd.unmeasured", "usd")),
    card("CPU $", num(rsrc, r, p + ".cpu_cost_usd", "usd"), el("span", {}, "memory: ", num(rsrc, r, p + ".memory_cost_usd", "usd"))),
    card("GPU utilization", num(rsrc, r, p + ".gpu_utilization", "pct"))));
  const hsrc = rq("api/v1/history", { kind, key });
  const h = await load(hsrc);
  main.append(section("Hourly activity over the range (from the history)", el("div", { class: "charts" },
    stackChart("GPU $ per hour: active and idle", hsrc, [
      Object.assign(seriesOf(h, [key], "gpu_active_usd")[0] || { points: [] }, { name: "active" }),
      Object.assign(seriesOf(h, [key], "gpu_idle_usd")[0] || { points: [] }, { name: "idle" })], "usd", []),
    lineChart("GPU utilization (target band 60–85 %)", hsrc, seriesOf(h, [key], "gpu_utilization"), "pct", [], { band: [0.6, 0.85] }))));
  const ic = (w.idle_causes && w.idle_causes.workloads) || [];
  const inScope = (name) => (wl ? name === wl : nsOf(name) === ns);
  main.append(section("Idle causes", table(wsrc, w, "idle_causes.workloads", [
    { key: "workload", label: "Workload", render: (_, v) => el("a", { href: link("drill", { workload: v }) }, v) },
    { key: "main_cause", label: "Main cause" },
    { key: "idle_gpu_hours", label: "Idle GPU-h", unit: "h" },
    { key: "idle_usd", label: "Idle $", unit: "usd" },
    { key: "evidence", label: "Evidence" },
  ], { sort: "idle_usd", prefix: "ic-", unfiltered: true, keep: (x) => inScope(x.workload) }),
  ic.some((x) => inScope(x.workload)) ? null : el("p", { class: "muted" }, "No idle hours classified here (the idle causes cover the top 50 workloads).")));
  if (!wl) {
    main.append(section("Workloads", table(wsrc, w, "rows", [
      { key: "key", label: "Workload", render: (_, v) => el("a", { href: link("drill", { workload: v }) }, v) },
    ].concat(costCols().slice(1)), { sort: "total_cost_usd", prefix: "wl-", unfiltered: true, keep: (x) => nsOf(x.key) === ns && x.key !== "__unallocated__" }),
    el("p", {}, "All its workloads: ", num(wsrc, w, "page.sum.total_cost_usd", "usd"), " in all."),
    pager("wl-pager", "Workloads", wsrc, w, wloffset, w.rows.length, "page.rows", (o) => link("drill", { ns, wloffset: String(o) }))));
  } else {
    main.append(await podsSection(wl));
  }
  main.append(actionsFor(asrc, l, (t) => t.kind === "workload" && inScope(t.name)),
    findingsFor(audsrc, a, (f) => { const [k, o] = f.object.split(" "); return wl ? o === nsOf(wl) + "/" + wl.split("/")[2] && k === wl.split("/")[1] : (o || "").startsWith(ns + "/"); }));
}

// podsSection is one page of a workload's pods (api/v1/pods: the rows of
// report?by=pod, podoffset pages them), each linking to its pod page.
const podsLimit = 50;
async function podsSection(wl) {
  const offset = Math.max(0, parseInt(params.get("podoffset") || "0", 10) || 0);
  const src = query("api/v1/pods", { workload: wl, offset: String(offset), limit: String(podsLimit) });
  const pg = await load(src);
  const unitLinks = (row) => el("span", { class: "units" }, (row.gpu_units || []).map((u, k) =>
    el("span", {}, k ? ", " : "", el("a", { href: link("drill", { unit: u, pod: row.key, workload: wl }) }, u))));
  const tbl = table(src, pg, "rows", [
    { key: "key", label: "Pod", render: (_, v) => el("a", { href: link("drill", { pod: v, workload: wl }) }, v) },
    { key: "gpu_units", label: "GPU units", text: (row) => (row.gpu_units || []).join(" "), render: unitLinks },
    { key: "gpu_hours.allocated", label: "GPU-h", unit: "h" },
    { key: "gpu_utilization", label: "Utilization", unit: "pct" },
    { key: "gpu_cost_usd.active", label: "Active $", unit: "usd" },
    { key: "gpu_cost_usd.allocated_idle", label: "Idle $", unit: "usd" },
    { key: "gpu_cost_usd.unmeasured", label: "Unmeasured $", unit: "usd" },
    { key: "total_cost_usd", label: "Total $", unit: "usd" },
  ], { sort: "total_cost_usd", prefix: "pod-", unfiltered: true });
  const pager = el("p", { class: "pager", id: "pods-pager" }, "Pods ", String(pg.rows.length ? offset + 1 : 0), "–", String(offset + pg.rows.length), " of ", num(src, pg, "matched", "int"),
    offset > 0 ? el("span", {}, " · ", el("a", { href: link("drill", { workload: wl, podoffset: String(Math.max(0, offset - podsLimit)) }), rel: "prev" }, "previous")) : null,
    offset + pg.rows.length < pg.matched ? el("span", {}, " · ", el("a", { href: link("drill", { workload: wl, podoffset: String(offset + podsLimit) }), rel: "next" }, "next")) : null);
  return el("section", { id: "pods" }, el("h2", {}, "Pods (the window; " + podsLimit + " a page, most dollars first)"),
    el("p", {}, "All ", num(src, pg, "sum.pods", "int"), " pods: ", num(src, pg, "sum.total_cost_usd", "usd"), " in all, GPU ",
      num(src, pg, "sum.gpu_cost_usd.active", "usd"), " active, ", num(src, pg, "sum.gpu_cost_usd.allocated_idle", "usd"), " idle."),
    tbl, pager);
}

// podPage is one pod on the window (api/v1/pods?pod=): its cost split,
// the GPU units it held and their hourly activity over the range (each
// unit's, from the history: a unit's hours are its holders' together).
async function podPage(main, crumbs, pod, wl) {
  const src = query("api/v1/pods", Object.assign(wl ? { workload: wl } : {}, { pod }));
  const pg = await load(src);
  const row = pg.rows[0];
  const w = wl || (row && row.workload) || "";
  if (w) crumbs.push(el("a", { href: link("drill", { ns: w.split("/")[0] }) }, w.split("/")[0]), el("a", { href: link("drill", { workload: w }) }, w));
  crumbs.push(el("span", {}, pod));
  main.append(breadcrumbs(crumbs));
  if (!row) { main.append(el("p", { class: "muted", id: "drill-missing" }, "The report has no pod " + pod + " in the window.")); return; }
  const p = "rows.0";
  main.append(cardRow("pod " + pod + ": cost split in the service's window (dollars in the window)", "drill-cards",
    card("Total", num(src, pg, p + ".total_cost_usd", "usd"), el("span", {}, num(src, pg, p + ".monthly_cost_usd", "usd"), " a month")),
    card("Active GPU $", num(src, pg, p + ".gpu_cost_usd.active", "usd"), el("span", {}, num(src, pg, p + ".gpu_hours.active", "h"), " GPU-hours")),
    card("Idle GPU $ (allocated, unused)", num(src, pg, p + ".gpu_cost_usd.allocated_idle", "usd"), el("span", {}, num(src, pg, p + ".gpu_hours.idle", "h"), " GPU-hours")),
    card("Unmeasured GPU $", num(src, pg, p + ".gpu_cost_usd.unmeasured", "usd")),
    card("CPU $", num(src, pg, p + ".cpu_cost_usd", "usd"), el("span", {}, "memory: ", num(src, pg, p + ".memory_cost_usd", "usd"))),
    card("GPU utilization", num(src, pg, p + ".gpu_utilization", "pct"), el("span", {}, num(src, pg, p + ".gpu_hours.allocated", "h"), " GPU-hours held"))));
  const units = (row.gpu_units || []).slice(0, 8);
  const srcs = units.map((u) => rq("api/v1/history/unit", { unit: u }));
  const hs = await Promise.all(srcs.map(load));
  main.append(section("GPU units it held (over the range, from the history: each unit's hours, its holders' together)",
    units.length ? el("div", { class: "tablewrap" }, el("table", { "data-table": "units" },
      el("thead", {}, el("tr", {}, ["GPU / MIG slice", "Node", "Held h", "Utilization", "Active $", "Idle $", "Unallocated $", "Total $"].map((x, k) => el("th", { scope: "col", class: k > 1 ? "n" : null }, x)))),
      el("tbody", {}, hs.map((h, k) => el("tr", {},
        el("td", { class: "key", "data-col": "unit" }, el("a", { href: link("drill", { unit: units[k], pod, workload: w }) }, units[k])),
        el("td", {}, h.node),
        ...[["held_hours", "h"], ["utilization", "pct"], ["active_usd", "usd"], ["idle_usd", "usd"], ["unallocated_usd", "usd"], ["usd", "usd"]].map(([f, u]) =>
          el("td", { class: "n" }, num(srcs[k], h, "total." + f, u))))))))
      : el("p", { class: "muted" }, "It held no GPU unit."),
    (row.gpu_units || []).length > units.length ? el("p", { class: "muted" }, "The first " + units.length + " of " + row.gpu_units.length + " units.") : null));
  if (units.length) {
    const series = hs.map((h, k) => ({ name: units[k], points: h.hours.map((x, j) => [Date.parse(x.bucket), x.utilization, "hours." + j + ".utilization"]) }));
    const usd = hs.flatMap((h, k) => ["active", "idle"].map((f) => ({ name: units[k] + " " + f, points: h.hours.map((x, j) => [Date.parse(x.bucket), x[f + "_usd"], "hours." + j + "." + f + "_usd"]) })));
    main.append(section("Hourly activity over the range (from the history)", el("div", { class: "charts" },
      stackChart("GPU $ per hour of the units it held: active and idle (stacked)", srcs[0], usd, "usd", []),
      lineChart("GPU utilization per unit it held (target band 60–85 %)", srcs[0], series, "pct", [], { band: [0.6, 0.85] }))));
  }
}

// unitPage is one GPU unit over the range (api/v1/history/unit): its cost
// split, its hours held and active, each hour's dollars and activity, its
// holders; then the ledger actions and audit findings naming its node.
async function unitPage(main, crumbs, unit, wl, pod) {
  const src = rq("api/v1/history/unit", { unit });
  const asrc = query("api/v1/advise"), audsrc = query("api/v1/audit");
  const [h, l, a] = await Promise.all([load(src), load(asrc), load(audsrc)]);
  const w = wl || (h.holders || [])[0];
  if (w) crumbs.push(el("a", { href: link("drill", { ns: w.split("/")[0] }) }, w.split("/")[0]), el("a", { href: link("drill", { workload: w }) }, w));
  if (pod) crumbs.push(el("a", { href: link("drill", { pod, workload: w }) }, pod));
  crumbs.push(el("span", {}, unit));
  main.append(breadcrumbs(crumbs));
  if (!h.hours.length) { main.append(el("p", { class: "muted", id: "drill-missing" }, "The history holds no hour of GPU unit " + unit + " in " + h.from + " – " + h.to + ".")); return; }
  main.append(cardRow("GPU " + unit + " on " + h.node + " (" + h.gpu_model + (h.profile ? " " + h.profile : "") + "), over the range " + h.from + " – " + h.to + " (dollars in the range, from the history)", "drill-cards",
    card("Cost in the range", num(src, h, "total.usd", "usd"), el("span", {}, num(src, h, "total.life_hours", "h"), " hours on its node")),
    card("Active GPU $", num(src, h, "total.active_usd", "usd"), el("span", {}, num(src, h, "total.active_hours", "h"), " active hours")),
    card("Idle GPU $ (held, unused)", num(src, h, "total.idle_usd", "usd")),
    card("Unmeasured GPU $", num(src, h, "total.unmeasured_usd", "usd")),
    card("Unallocated $ (no pod held it)", num(src, h, "total.unallocated_usd", "usd"), el("span", {}, num(src, h, "total.unheld_hours", "h"), " hours unheld")),
    card("Utilization (measured held time)", num(src, h, "total.utilization", "pct"), el("span", {}, num(src, h, "total.held_hours", "h"), " hours held"))));
  const pts = (f) => h.hours.map((x, j) => [Date.parse(x.bucket), x[f], "hours." + j + "." + f]);
  main.append(section("Hourly activity over the range (from the history)", el("div", { class: "charts" },
    stackChart("GPU $ per hour: active, idle, unmeasured, unallocated", src, [
      { name: "active", points: pts("active_usd") }, { name: "idle", points: pts("idle_usd") },
      { name: "unmeasured", points: pts("unmeasured_usd") }, { name: "unallocated", points: pts("unallocated_usd") }], "usd", []),
    lineChart("GPU utilization (target band 60–85 %)", src, [{ name: unit, points: pts("utilization") }], "pct", [], { band: [0.6, 0.85] }))));
  main.append(section("Held by", el("ul", { id: "unit-holders" }, (h.holders || []).map((x) => el("li", {}, el("a", { href: link("drill", { workload: x }) }, x))))),
    actionsFor(asrc, l, (t) => (t.kind === "node" && t.name === h.node) || (t.kind === "workload" && (h.holders || []).includes(t.name))),
    findingsFor(audsrc, a, (f) => f.object.endsWith("/" + h.node) || f.object === "Node " + h.node));
  if ((h.notes || []).length) main.append(el("ul", { class: "notes muted" }, h.notes.map((n) => el("li", {}, n))));
}

function breadcrumbs(items) {
  const out = el("div", { class: "crumbs", role: "navigation", "aria-label": "breadcrumbs" });
  items.forEach((x, i) => out.append(i ? " › " : "", x));
  return out;
}

// actionsFor lists the ledger's actions with a target that keep accepts.
function actionsFor(src, l, keep) {
  const list = (l.actions || []).map((a, i) => ({ a, i })).filter(({ a }) => (a.targets || []).some(keep));
  return section("Ledger actions", list.length ? el("ul", { id: "drill-actions" }, list.map(({ a, i }) => el("li", {},
    el("a", { href: link("actions") + "#" + a.id }, a.id + " " + a.title), " — ", num(src, l, "actions." + i + ".saving_usd_month", "usd"), "/month")))
    : el("p", { class: "muted" }, "No action of the ledger names it."));
}

// findingsFor lists the audit's findings that keep accepts.
function findingsFor(src, a, keep) {
  return section("Audit findings", table(src, a, "findings", [
    { key: "severity", label: "Severity", render: (_, v) => el("span", { class: "sev-" + v }, v) },
    { key: "rule", label: "Rule" }, { key: "object", label: "Object" }, { key: "message", label: "Finding" },
    { key: "monthly_usd", label: "$/month", unit: "usd" },
  ], { sort: "monthly_usd", prefix: "au-", unfiltered: true, keep }));
}

async function idle(main, st) {
  // the leaderboard, not the rows (limit 0); recommend for its workloads
  const src = query("api/v1/report", { by: "workload", top: "50", limit: "0" });
  const asrc = query("api/v1/advise");
  const [r, l] = await Promise.all([load(src), load(asrc)]);
  const board = (r.top_idle_workloads || []).map((w) => w.key);
  const rsrc = query("api/v1/recommend", board.length ? { workload: board.join(","), limit: "500" } : { limit: "0" });
  const rec = await load(rsrc);
  const shape = new Map((rec.gpu || []).map((g) => [g.workload, g]));
  // a workload's ledger actions: those that name it among their targets
  const acts = new Map();
  for (const a of l.actions || []) {
    for (const t of a.targets || []) if (t.kind === "workload") acts.set(t.name, (acts.get(t.name) || []).concat([a]));
  }
  const note = windowNote(st, "The idle causes and the leaderboard are");
  if (note) main.append(note);
  const ic = r.idle_causes;
  const causeOf = new Map(((ic && ic.workloads) || []).map((w, j) => [w.workload, { w, j }]));
  main.append(causePanel(src, r));
  if (r.reconciliation) main.append(billPanel(src, r));
  const cols = [
    { key: "key", label: "Workload", render: (_, v) => el("a", { href: link("drill", { workload: v }) }, v) },
    { key: "pods", label: "Pods", unit: "int" },
    { key: "avg_gpus_held", label: "GPUs held (avg)", unit: "num" },
    { key: "gpu_utilization", label: "Utilization", unit: "pct" },
    { key: "allocated_idle_usd", label: "Idle $", unit: "usd" },
    { key: "monthly_allocated_idle_usd", label: "Idle $/month", unit: "usd" },
    { key: "cause", label: "Why it idles", text: (w) => (causeOf.has(w.key) ? causeOf.get(w.key).w.main_cause : ""),
      render: (w) => mainCause(src, r, causeOf.get(w.key)) },
    { key: "action", label: "Ledger action", text: (w) => (acts.get(w.key) || []).map((a) => a.id).join(" "),
      render: (w) => (acts.has(w.key) ? el("span", { class: "ledger-actions" }, acts.get(w.key).map((a) => el("a", { href: link("actions") + "#" + a.id, title: a.title, "data-action": a.id }, a.id + " " + a.lever)))
        : el("span", { class: "muted" }, "none")) },
    { key: "shape", label: "GPU shape (recommend)", text: (w) => (shape.get(w.key) ? shape.get(w.key).action : ""),
      render: (w) => (shape.get(w.key) ? el("span", { title: shape.get(w.key).reason }, shape.get(w.key).action) : el("span", { class: "muted" }, "no change")) },
  ];
  const tbl = table(src, r, "top_idle_workloads", cols, { sort: "allocated_idle_usd" });
  main.append(section("Idle leaderboard: workloads by GPU dollars allocated but unused",
    el("div", { class: "controls" }, filterBox("filter workloads", [tbl])), tbl,
    el("p", { class: "muted" }, "Why it idles: the workload's main idle cause, its share of the workload's idle GPU-hours and what it stands on (the report's idle_causes). Ledger action: the savings ledger's actions that name the workload (autoscaling, giving back idle GPUs…), linked. GPU shape: the recommendation for the shape of one replica's GPU request (api/v1/recommend; hover for the reason): keep-whole there says one replica needs a whole GPU, not that the replica count stays.")));
  main.append(await lowUtilPanel());
  main.append(await lowUtilHistoryPanel());
}

// lowUtilPanel is the week-1 waste list: GPUs and MIG slices under 30 %
// for 6 hours or more of the window (the report's low_utilization).
async function lowUtilPanel() {
  const offset = pageOffset("luoffset");
  const src = query("api/v1/report", { "low-util": "30%:6h", offset: String(offset), limit: String(rowsLimit) });
  const r = await load(src);
  const l = r.low_utilization || { units: [] };
  const cols = [
    { key: "unit", label: "GPU / MIG slice", render: (_, v) => el("a", { href: link("drill", { unit: v }) }, v) },
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
    pager("lu-pager", "Units", src, r, offset, l.units.length, "page.low_utilization_units", (o) => link("idle", { luoffset: String(o) })),
    el("p", { class: "muted" }, (r.page ? r.page.low_utilization_units : l.units.length || 0) + " unit(s); hours under 30% are measured held hours, plus hours no pod held the unit; unmeasured units (" + (l.unmeasured_units || 0) + ") are unknown and not listed (the report's low_utilization, ?low-util=30%:6h)."));
}

// lowUtilHistoryPanel is the same list over a range of the service's
// history (api/v1/history/low-util): the window by default, or the day,
// week or 30 days up to the window's end (the lurange parameter), as far
// as the hourly history reaches; one page of its units (luhoffset).
const luRanges = { "24h": 24, "7d": 7 * 24, "30d": 30 * 24 };
async function lowUtilHistoryPanel() {
  const range = luRanges[params.get("lurange")] ? params.get("lurange") : "";
  const offset = pageOffset("luhoffset");
  const page = { offset: String(offset), limit: String(rowsLimit) };
  const src = range ? "api/v1/history/low-util?" + new URLSearchParams({ range, ...page }).toString() : rq("api/v1/history/low-util", page);
  const h = await load(src);
  const l = h.low_utilization || { units: [] };
  const cols = [
    { key: "unit", label: "GPU / MIG slice", render: (_, v) => el("a", { href: link("drill", { unit: v }) }, v) },
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
  select.addEventListener("change", () => { setParam("lurange", select.value); setParam("luhoffset", ""); location.search = params.toString(); });
  return el("section", { id: "low-util-history" }, el("h2", {}, "From the history: GPUs under 30% for 6 hours or more"),
    el("div", { class: "controls" }, select, filterBox("filter GPUs, holders", [tbl])),
    el("p", {}, num(src, h, "low_utilization.usd", "usd"), " over ", num(src, h, "coverage.cycles", "int"), " recorded cycles, ",
      h.from, " – ", h.to, " (whole hours of the history)."), tbl,
    pager("luh-pager", "Units", src, h, offset, l.units.length, "page.units", (o) => link("idle", range ? { luhoffset: String(o), lurange: range } : { luhoffset: String(o) })),
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
    bar, el("div", { class: "charts" }, barChart("Idle $ by cause (allocated but unused, on the window)", src, r, "idle_causes.totals", "cause", "idle_usd", "usd", causeColors)), tbl,
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

async function actions(main, st) {
  const note = windowNote(st, "The savings ledger is");
  if (note) main.append(note);
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
  main.append(el("div", { class: "charts" }, waterfall("The ledger: cost a month before, each action's saving, after", src, answer, base, l)));
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
  return el("article", { class: "action", "data-id": a.id, id: a.id },
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

// progressView is the plan as a living checklist (api/v1/progress,
// docs/progress.md): each tracked action's status from what the cluster
// shows (applied, partly, pending, rejected), predicted and realised
// dollars a month per action and in total, the utilization trend over
// the range against the 60–85 % target band, and the red flags with the
// action each blames.
async function progressView(main, st) {
  const src = "api/v1/progress";
  const d = await load(src);
  const b = d.baseline;
  main.append(cardRow("The plan: " + d.observations + " window(s) observed, updated " + d.updated + " (dollars a month)", "progress-cards",
    card("Applied", num(src, d, "counts.applied", "int"), el("span", {}, num(src, d, "counts.partly", "int"), " partly")),
    card("Pending", num(src, d, "counts.pending", "int"), el("span", {}, num(src, d, "counts.rejected", "int"), " rejected")),
    card("Realised a month (spend change)", num(src, d, "total.change_usd_month", "usd"),
      el("span", {}, "range ", num(src, d, "total.low_usd_month", "usd"), " – ", num(src, d, "total.high_usd_month", "usd"))),
    card("Predicted a month (the applied actions)", num(src, d, "total.predicted_usd_month", "usd"),
      el("span", {}, "spend change outside the applied actions: ", num(src, d, "total.other_usd_month", "usd"))),
    b ? card("Baseline (day 0) spend a month", num(src, d, "baseline.spend_usd_month", "usd"),
      el("span", {}, "utilization ", num(src, d, "baseline.utilization", "pct"), "; the ledger then saved ", num(src, d, "baseline.ledger_saving_usd_month", "usd"))) : null));
  const t = d.total;
  main.append(section("Total: spend before and after (" + t.status + ")",
    el("p", { id: "progress-total" }, t.before ? "Before " + t.before.start + " – " + t.before.end + ": " : "Before: ", num(src, d, "total.before_usd", "usd"),
      " (", num(src, d, "total.before_usd_month", "usd"), " a month); after ", t.after ? t.after.start + " – " + t.after.end + ": " : "", num(src, d, "total.after_usd", "usd"),
      " (", num(src, d, "total.after_usd_month", "usd"), " a month). Change ", num(src, d, "total.change_usd_month", "usd"), " a month, of which ",
      num(src, d, "total.demand_usd_month", "usd"), " the change in work explains (at equal demand ", num(src, d, "total.at_equal_demand_usd_month", "usd"), ")."),
    el("p", { class: "muted" }, t.normalisation || "", t.note ? " " + t.note : "")));
  const idx = (row) => d.actions.indexOf(row);
  const measured = (row) => row.realised && row.realised.status === "measured";
  const state = params.get("status") || "";
  const tbl = table(src, d, "actions", [
    { key: "id", label: "Action", render: (row, v) => el("span", { id: "act-" + v }, el("strong", {}, row.plan_id || v), " ", row.title) },
    { key: "lever", label: "Lever" },
    { key: "status", label: "Status", render: (row, v) => el("span", { class: "status-" + v, "data-status": v }, v + (row.retired ? " (" + row.retired + ")" : "")) },
    { key: "detection", label: "What the cluster shows" },
    { key: "predicted_usd_month", label: "Predicted $/month", unit: "usd" },
    { key: "latest_predicted_usd_month", label: "Latest predicted", unit: "usd" },
    { key: "realised", label: "Realised $/month", text: (row) => (measured(row) ? row.realised.realised_usd_month : null),
      render: (row) => (measured(row) ? el("span", {}, num(src, d, "actions." + idx(row) + ".realised.realised_usd_month", "usd"), " (",
        num(src, d, "actions." + idx(row) + ".realised.low_usd_month", "usd"), " – ", num(src, d, "actions." + idx(row) + ".realised.high_usd_month", "usd"), ")")
        : el("span", { class: "muted" }, row.realised ? row.realised.note || row.realised.status : "not measured")) },
  ], { sort: "predicted_usd_month", prefix: "pa-", filterKey: (row) => row.id + " " + row.title + " " + row.status, keep: (row) => !state || row.status === state });
  const sel = el("select", { id: "progress-status", "aria-label": "status" }, ["", "applied", "partly", "pending", "rejected"].map((v) => el("option", { value: v, selected: v === state }, v || "every status")));
  sel.addEventListener("change", () => { setParam("status", sel.value); location.search = params.toString(); });
  main.append(section("The plan as a checklist (each action's status from what the cluster shows, or a user's mark)",
    el("div", { class: "controls" }, sel, filterBox("filter actions", [tbl])), tbl));
  const hsrc = rq("api/v1/history", { kind: "gpu_model", step: "day" });
  const h = await load(hsrc);
  const models = [...new Set(h.points.map((x) => x.key))].filter((k) => h.points.some((x) => x.key === k && x.gpu_utilization !== null));
  const markers = (b ? [{ t: Date.parse(b.at), label: "baseline" }] : []).concat(d.actions.filter((a) => a.applied_at).map((a) => ({ t: Date.parse(a.applied_at), label: (a.plan_id || a.id) + " applied" })));
  main.append(section("Utilization over the range against the target band (daily, from the history)", el("div", { class: "charts" },
    lineChart("GPU utilization per GPU model, by day (target band 60–85 %)", hsrc, seriesOf(h, models, "gpu_utilization"), "pct", sameTime(markers), { band: [0.6, 0.85] }),
    barChart("Predicted saving a month per action (when first proposed)", src, d, "actions", "id", "predicted_usd_month", "usd"))));
  main.append(section("Red flags watched after each applied action", (d.red_flags || []).length ? table(src, d, "red_flags", [
    { key: "name", label: "Flag" },
    { key: "status", label: "Status", render: (_, v) => el("span", { class: "status-" + v }, v) },
    { key: "action", label: "Blames", render: (row, v) => el("a", { href: "#act-" + v }, v + " (" + row.lever + ")") },
    { key: "threshold", label: "Threshold" },
    { key: "value", label: "Measured", unit: "num" },
    { key: "limit", label: "Limit", unit: "num" },
    { key: "detail", label: "Detail" },
    { key: "advice", label: "What to do" },
  ], { prefix: "rf-", unfiltered: true, filterKey: (f) => f.name }) : el("p", { class: "muted", id: "no-red-flags" }, "No red flag is watched: no action is applied yet (a flag watches the hours after an action is applied).")));
  if ((d.notes || []).length) main.append(el("ul", { class: "notes muted" }, d.notes.map((n) => el("li", {}, n))));
}

async function audit(main, st) {
  const src = query("api/v1/audit");
  const a = await load(src);
  const note = windowNote(st, "The audit is");
  if (note) main.append(note);
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

function linkParams(v, extra) {
  const q = new URLSearchParams();
  q.set("view", v);
  for (const n of ["window", "compare"].concat(rangeNames)) if (params.get(n)) q.set(n, params.get(n));
  for (const [k, val] of Object.entries(extra || {})) q.set(k, val);
  return q.toString();
}

// link is a page of this dashboard (from a team page too).
function link(v, extra) {
  return root + "?" + linkParams(v, extra);
}

// rangePicker is the header's range and comparison period: the service's
// window (the default), the last 24 h, 7, 30 or 90 days up to the latest
// results, or a custom from–to; against the previous period, nothing, or
// a pinned baseline. Applying it reloads the view, which refetches.
function rangePicker(st) {
  const cur = params.get("range") || (params.get("from") || params.get("to") ? "custom" : "");
  const win = fmtWindow(st.window);
  const sel = el("select", { id: "range", "aria-label": "range" },
    [["", "the service's window (" + win + ")"], ["24h", "last 24 hours"], ["7d", "last 7 days"], ["30d", "last 30 days"], ["90d", "last 90 days"], ["custom", "custom from – to"]]
      .map(([v, label]) => el("option", { value: v, selected: v === cur }, label)));
  const from = el("input", { type: "datetime-local", id: "range-from", "aria-label": "from (UTC)", value: localValue(params.get("from")) });
  const to = el("input", { type: "datetime-local", id: "range-to", "aria-label": "to (UTC)", value: localValue(params.get("to")) });
  const custom = el("span", { class: "custom", hidden: cur !== "custom" }, from, " – ", to, " UTC");
  const cmpNow = params.get("compare") || "previous";
  const cmpKind = cmpNow === "previous" || cmpNow === "none" ? cmpNow : "baseline";
  const cmp = el("select", { id: "compare", "aria-label": "compare with" },
    [["previous", "the previous period"], ["none", "nothing"], ["baseline", "a pinned baseline"]].map(([v, label]) => el("option", { value: v, selected: v === cmpKind }, label)));
  const [b0, b1] = cmpKind === "baseline" ? cmpNow.split("..") : ["", ""];
  const bfrom = el("input", { type: "datetime-local", id: "baseline-from", "aria-label": "baseline from (UTC)", value: localValue(b0) });
  const bto = el("input", { type: "datetime-local", id: "baseline-to", "aria-label": "baseline to (UTC)", value: localValue(b1) });
  const base = el("span", { class: "custom", hidden: cmpKind !== "baseline" }, bfrom, " – ", bto, " UTC");
  const apply = el("button", { type: "button", id: "range-apply" }, "Apply");
  sel.addEventListener("change", () => { custom.hidden = sel.value !== "custom"; });
  cmp.addEventListener("change", () => { base.hidden = cmp.value !== "baseline"; });
  apply.addEventListener("click", () => {
    for (const n of rangeNames) params.delete(n);
    if (sel.value === "custom") { setParam("from", utcValue(from.value)); setParam("to", utcValue(to.value)); } else setParam("range", sel.value);
    setParam("compare", cmp.value === "baseline" ? utcValue(bfrom.value) + ".." + utcValue(bto.value) : cmp.value === "previous" ? "" : cmp.value);
    location.search = params.toString();
  });
  return el("div", { class: "controls rangepicker", id: "rangepicker" }, el("label", {}, "Range ", sel), custom, el("label", {}, "against ", cmp), base, apply);
}

// localValue and utcValue convert an RFC 3339 time to a datetime-local
// input's value and back, both in UTC (no local time zone anywhere).
function localValue(t) {
  return t && /^\d{4}-\d\d-\d\dT\d\d:\d\d/.test(t) ? t.slice(0, 16) : "";
}
function utcValue(v) {
  return v ? v.slice(0, 16) + ":00Z" : "";
}

function fmtWindow(w) {
  const h = (Date.parse(w.end) - Date.parse(w.start)) / 3600e3;
  return h % 24 === 0 ? h / 24 + "d" : h + "h";
}

// windowNote says, on a view computed on the service's window, that the
// range applies to the panels read from the history only.
function windowNote(st, what) {
  if (!rangeAsked()) return null;
  return el("p", { class: "banner-inline", id: "window-note" }, what + " computed on the service's window (" + fmtWindow(st.window) + ", " +
    st.window.start + " – " + st.window.end + "): the service holds samples for its window only. The range applies to the panels marked \u201cover the range\u201d.");
}

async function start() {
  for (const a of document.querySelectorAll("#nav a")) {
    a.href = link(a.dataset.view);
    if (a.dataset.view === view) a.setAttribute("aria-current", "page");
  }
  document.getElementById("home").href = root || "./";
  const main = document.getElementById("main");
  const views = { overview, costs, showback, idle, actions, progress: progressView, audit, notes, team: teamView, drill };
  try {
    const st = await load("api/v1/status");
    document.getElementById("context").textContent =
      `cluster ${st.cluster} · window ${st.window.start} – ${st.window.end} · ${st.mode}` + (st.stale ? " · stale" : "");
    document.getElementById("nav").after(rangePicker(st));
    if (st.partial) banner("Partial data: " + st.partial);
    await (views[view] || overview)(main, st);
    document.body.dataset.readyMs = performance.now().toFixed(0);
    document.body.dataset.ready = "true";
  } catch (e) {
    main.append(el("p", { class: "sev-critical", role: "alert" }, "Could not load: " + e.message));
    document.body.dataset.ready = "error";
    console.error(e);
  }
}

start();
