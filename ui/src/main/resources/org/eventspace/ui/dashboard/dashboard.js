// EventSpace dashboard: draws the frames of /api/v1/events (server-sent events) or, in a static report, the frames
// embedded in the page (window.ES_STATIC). No library: SVG for the tree, timemap and ranks, canvas for the over-time views.
"use strict";
(function () {
  const SVG = "http://www.w3.org/2000/svg";
  const S = {
    trees: [],        // /api/v1/tree answers, by tree
    frame: null,      // the newest frame
    tree: null,       // the tree shown (number)
    colour: "last_share",
    selected: null,   // drawn node id
    expanded: new Set(), // hosts expanded (when collapsed by default)
    collapseHosts: false,
    event: null,
    frames: 0,
    latencies: [],
  };
  const $ = (id) => document.getElementById(id);
  const fmt = (v, d) => typeof v !== "number" || !isFinite(v) ? "–" : Math.abs(v) >= 1000 ? v.toFixed(0) : v.toFixed(d == null ? 1 : d);
  const pct = (v) => typeof v !== "number" || !isFinite(v) ? "–" : (100 * v).toFixed(0) + " %";
  const UNITS = { last_share: "%", arrival_wait_us: "µs", departure_wait_us: "µs", total_us: "µs", down_us: "µs", up_us: "µs" };
  const el = (tag, attrs, parent) => {
    const e = document.createElementNS(SVG, tag);
    for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  };
  const text = (parent, x, y, s, cls, anchor) => {
    const t = el("text", { x: x, y: y, "text-anchor": anchor || "middle" }, parent);
    if (cls) t.setAttribute("class", cls);
    t.textContent = s;
    return t;
  };
  // Sequential colour: pale yellow (low) to dark red (high), readable on white.
  function heat(f) {
    f = Math.max(0, Math.min(1, f));
    const stops = [[255, 247, 204], [254, 196, 79], [236, 112, 20], [189, 0, 38], [103, 0, 31]];
    const x = f * (stops.length - 1), i = Math.min(stops.length - 2, Math.floor(x)), t = x - i;
    const c = stops[i].map((v, k) => Math.round(v + (stops[i + 1][k] - v) * t));
    return "rgb(" + c.join(",") + ")";
  }
  // A time given in µs, in the unit that keeps it short: 300 µs, 3 ms, 1.2 s.
  const fmtTime = (us) => us >= 1e6 ? +(us / 1e6).toPrecision(3) + " s" : us >= 1000 ? +(us / 1000).toPrecision(3) + " ms" : +us.toPrecision(3) + " µs";
  // What this run cannot measure (frame.not_measured: field or view → why), so a view says so instead of drawing nothing.
  const notMeasured = (key) => ((S.frame && S.frame.not_measured) || {})[key];
  const arr = (v) => Array.isArray(v) ? v : [];
  const shortName = (id) => id.startsWith("rank ") ? "r" + id.slice(5) : id.replace(/^t\d+\./, "").replace(/\.h/, " h");

  // ---- data in ----
  function start() {
    if (window.ES_STATIC) {
      S.trees = window.ES_STATIC.trees;
      drawVerdictPanel(window.ES_STATIC.verdict);
      setupControls();
      onFrame(window.ES_STATIC.frame);
      // A report drawn with --network has the drawing in the page already (its own script dropped: the page's policy
      // runs only this script).
      if ($("network").firstElementChild) { $("network-panel").hidden = false; listenNetwork(); }
      return;
    }
    fetch("/api/v1/frame").then((r) => r.json()).then((f) => {
      const n = (f.run && f.run.trees) || 1;
      return Promise.all([...Array(n).keys()].map((t) => fetch("/api/v1/tree?tree=" + t).then((r) => r.json())))
        .then((trees) => { S.trees = trees; setupControls(); onFrame(f); connect(); });
    }).catch((e) => { $("status").textContent = "cannot reach the dashboard's API: " + e; });
  }
  // The one way this page puts anything into its HTML (the live dashboard and the report page alike): an element built
  // with its attributes, each child a node or text. Text becomes a text node, never markup, so a name from a run's
  // file, a topology or a request shows as the characters it has. No innerHTML anywhere.
  const put = (e, kids) => {
    kids.flat(Infinity).forEach((k) => { if (k != null && k !== false) e.appendChild(k instanceof Node ? k : document.createTextNode(String(k))); });
    return e;
  };
  const h = (tag, attrs, ...kids) => {
    const e = document.createElement(tag);
    for (const k in attrs || {}) {
      if (attrs[k] == null) continue;
      if (k === "style") e.style.cssText = attrs[k]; else e.setAttribute(k, attrs[k]);
    }
    return put(e, kids);
  };
  // An element's children replaced by these (nothing: emptied).
  const fill = (e, ...kids) => { e.replaceChildren(); return put(e, kids); };
  // Rows of a two-column table: [label, value] each, text.
  const kvRows = (rows) => rows.map((r) => h("tr", null, h("td", null, r[0]), h("td", null, r[1])));
  // Lines of text as paragraphs of an element (textContent: never markup).
  function lines(list, cls) {
    const box = document.createElement("div");
    box.className = cls;
    (list || []).forEach((l) => { const p = document.createElement("p"); p.textContent = l; box.appendChild(p); });
    return box;
  }
  // ---- the verdict of a static report (the run model's headline, load and coverage; text only) ----
  function drawVerdictPanel(v) {
    if (!v) return;
    $("verdict-panel").hidden = false;
    $("verdict-headline").textContent = v.headline || "";
    $("verdict-load").textContent = v.load || "";
    $("verdict-coverage").textContent = v.coverage || "";
    $("verdict-launch").textContent = v.launch || "";
    const errors = $("verdict-errors");
    fill(errors, arr(v.errors).map((e) => h("li", null, "error: " + e)));
  }
  // ---- the network (ibprof + BoxFish): the SVG /api/v1/traffic draws; a selected link stays selected across updates ----
  function pollNetwork() {
    // Asked only of a job that counts traffic (frame.traffic_available): a 404 would be logged as an error in the console.
    if (!S.frame || !S.frame.traffic_available) { if (!window.ES_STATIC) setTimeout(pollNetwork, 2000); return; }
    fetch("/api/v1/traffic").then((r) => r.ok ? r.json() : null).then((n) => {
      if (n && n.svg) {
        $("network-panel").hidden = false;
        fill($("network"), svgOf(n.svg));
        if (S.networkLink != null) selectLink(S.networkLink);
      }
    }).catch(() => {}).finally(() => { if (!window.ES_STATIC) setTimeout(pollNetwork, 2000); });
  }
  // The server's drawing of the network, parsed as SVG (XML: its text is text) with any script in it dropped, not as
  // markup of this page. NetworkSvg escapes the device names it writes; this keeps the page safe if it ever did not.
  function svgOf(markup) {
    const doc = new DOMParser().parseFromString(String(markup), "image/svg+xml");
    const root = doc.documentElement;
    if (!root || root.namespaceURI !== SVG) return h("p", { class: "muted" }, "the network's drawing could not be read");
    root.querySelectorAll("script, foreignObject").forEach((x) => x.remove());
    root.querySelectorAll("*").forEach((x) => [...x.attributes].forEach((a) => { if (/^on/i.test(a.name) || /^(xlink:)?href$/i.test(a.name)) x.removeAttribute(a.name); }));
    return document.importNode(root, true);
  }
  function selectLink(link) {
    const root = $("network"), ends = {}, rows = [];
    S.networkLink = link;
    root.querySelectorAll(".half").forEach((h) => { if (h.dataset.link === link) { ends[h.dataset.a] = 1; ends[h.dataset.b] = 1; } });
    root.querySelectorAll(".half").forEach((h) => {
      const mine = h.dataset.link === link, touches = ends[h.dataset.a] || ends[h.dataset.b];
      h.classList.toggle("selected", mine);
      h.classList.toggle("faded", !mine && !touches);
      if (mine) rows.push([h.dataset.from + " → " + h.dataset.to, Number(h.dataset.bytes).toLocaleString() + " B"]);
    });
    root.querySelectorAll(".dev").forEach((d) => { d.classList.toggle("selected", !!ends[d.dataset.dev]); d.classList.toggle("faded", !ends[d.dataset.dev]); });
    root.dataset.selected = link;
    fill($("network-selection"), rows.map((r) => h("tr", null, h("th", null, r[0]), h("td", null, r[1]))));
  }
  function listenNetwork() {
    $("network").addEventListener("click", (e) => { const t = e.target.closest("[data-link]"); if (t) selectLink(t.dataset.link); });
  }
  function connect() {
    listenNetwork();
    pollNetwork();
    const es = new EventSource("/api/v1/events");
    es.addEventListener("frame", (m) => onFrame(JSON.parse(m.data)));
    es.onerror = () => {
      fill($("status"), h("span", { class: "done" }, "disconnected"), " (the server ended; the last frame stays)");
      if (S.frame && !S.frame.running) es.close(); // the run had ended: nothing more will come
    };
  }
  function setupControls() {
    const ts = $("tree-select");
    S.trees.forEach((t) => { const o = document.createElement("option"); o.value = t.tree; o.textContent = "tree " + t.tree; ts.appendChild(o); });
    ts.onchange = () => { S.tree = +ts.value; S.selected = null; draw(); };
    $("colour-select").onchange = (e) => { S.colour = e.target.value; draw(); };
    $("event-select").onchange = (e) => { S.event = e.target.value; drawOverTime(); };
    const ranks = S.trees.length ? S.trees[0].ranks : 0;
    S.collapseHosts = ranks > 32;
    $("file-a").onchange = $("file-b").onchange = loadCompare;
  }
  // The stream sends deltas: the rounds of ToM's histograms and of the band new since the last frame; keep the last 120.
  function merge(f) {
    if (!f.delta || !S.frame) return f;
    ["histograms", "band"].forEach((view) => {
      const old = S.frame[view] || {}, out = {};
      Object.keys(f[view] || {}).forEach((e) => {
        const have = old[e] || [], last = have.length ? have[have.length - 1].round : -1;
        out[e] = have.concat(f[view][e].filter((r) => r.round > last)).slice(-120);
      });
      f[view] = out;
    });
    return f;
  }
  function onFrame(f) {
    f = merge(f);
    S.frame = f;
    S.frames++;
    if (S.tree == null) {
      // The tree whose heaviest path is the most decided: where the slowest rank shows.
      const lb = f.loadbalance;
      let best = 0;
      if (lb) arr(lb.trees).forEach((t) => { if (t && Array.isArray(t.heaviest_path) && t.heaviest_path.join() === arr(lb.heaviest_path).join()) best = t.tree; });
      S.tree = best;
      $("tree-select").value = best;
    }
    draw();
    const late = Date.now() - f.sampled_at_ms;
    S.latencies.push(late);
    if (S.latencies.length > 50) S.latencies.shift();
    document.body.dataset.frames = S.frames;
    document.body.dataset.lastLatencyMs = late;
    const run = f.run || {};
    $("run-name").textContent = run.name || "";
    $("run-description").textContent = run.description || "";
    const med = [...S.latencies].sort((a, b) => a - b)[Math.floor(S.latencies.length / 2)];
    const out = f.outcome;
    const ended = out ? " (" + (out.exit_code != null ? "exit code " + out.exit_code : out.ok ? "ok" : "failed") + "; serving the final state)" : "";
    if (window.ES_STATIC) fill($("status"), h("span", { class: "done" }, "● finished run (static report)"));
    else fill($("status"), f.running ? h("span", { class: "live" }, "● live") : h("span", { class: "done" }, "● finished" + ended),
      " · frame " + f.frame + " · " + fmt(f.uptime_s, 0) + " s · drawn " + late + " ms after sampling (median " + med + " ms)");
    document.body.dataset.running = f.running ? "true" : "false";
    drawVerdict(f);
    const o = $("outcome");
    if (o) {
      o.hidden = !out || !arr(out.summary).length;
      o.textContent = out ? arr(out.summary).join("\n") : "";
    }
  }
  // The load-balance monitor's answer in one line: the slowest rank, how often it came last and whether chance explains it.
  function drawVerdict(f) {
    const v = $("verdict");
    if (!v) return;
    const lb = f.loadbalance || {};
    const r = lb.slowest_rank;
    if (r == null || r < 0) { v.textContent = lb.slowest_rank === undefined ? "" : "slowest rank: none yet"; v.dataset.rank = ""; return; }
    // An MPI run counts its last arrivals per rank over the collective instances; a job of ours gives a weighted share.
    const last = lb.last_arrivals && typeof lb.last_arrivals === "object" ? lb.last_arrivals[r] : null;
    const calls = lb.collective_instances;
    v.dataset.rank = r;
    const how = last != null && calls ? " · last in " + pct(last / calls) + " of " + calls.toLocaleString() + " collective calls"
      : lb.slowest_rank_score != null ? " · last in " + pct(lb.slowest_rank_score) + " of calls, weighted" : "";
    const load = f.verdict && f.verdict.load;
    v.textContent = "slowest rank: " + r + how +
      (lb.slowest_rank_beyond_chance === true ? " · beyond chance" : lb.slowest_rank_beyond_chance === false ? " · within chance" : "") +
      (load && load.oversubscribed ? " · cores oversubscribed" : "");
    // The run model's sentence (the same words as the summary and the report), on hover.
    v.title = f.verdict && typeof f.verdict.headline === "string" ? f.verdict.headline + (load && load.warning ? "\n" + load.warning : "") : "";
  }

  // ---- views ----
  function draw() {
    if (!S.frame || !S.trees.length) return;
    const t0 = performance.now();
    drawTree(); drawSide(); drawTimemap(); drawRanks(); drawEvents(); drawOverTime(); drawOrders(); drawCost();
    document.body.dataset.drawMs = (performance.now() - t0).toFixed(1);
  }
  function nodeKey(n) { return n.kind === "rank" ? n.id + "@t" + S.tree : n.id; }
  function metric(n) {
    const m = (S.frame.nodes || {})[nodeKey(n)] || {};
    return m[S.colour];
  }

  function treeModel() {
    const t = S.trees[S.tree];
    const byId = {}, kids = {};
    t.nodes.forEach((n) => { byId[n.id] = n; kids[n.id] = []; });
    t.nodes.forEach((n) => { if (n.parent != null) kids[n.parent].push(n.id); });
    // Ranks below each node, and whether all are on the node's host: the host's own subtree, folded when collapsed.
    const ranksBelow = {};
    const walk = (id) => {
      const n = byId[id];
      let r = n.kind === "rank" ? [n] : [];
      kids[id].forEach((k) => { r = r.concat(walk(k)); });
      ranksBelow[id] = r;
      return r;
    };
    walk(t.nodes[0].id);
    const hostTop = {};
    t.nodes.forEach((n) => {
      const r = ranksBelow[n.id];
      const local = r.length > 0 && r.every((x) => x.host === n.host);
      const p = n.parent != null ? byId[n.parent] : null;
      const parentLocal = p && ranksBelow[p.id].every((x) => x.host === n.host);
      if (local && !parentLocal) hostTop[n.id] = n.host;
    });
    return { t, byId, kids, ranksBelow, hostTop };
  }

  function drawTree() {
    const M = treeModel();
    const svg = $("tree");
    svg.replaceChildren();
    const lb = S.frame.loadbalance || {};
    const lbTree = arr(lb.trees).find((x) => x && x.tree === S.tree) || {};
    const heavyIds = new Set(arr(lbTree.heaviest_path));
    const slowest = lbTree.slowest_rank;
    if (slowest != null && slowest >= 0) heavyIds.add("rank " + slowest);
    $("tree-caption").textContent = "· " + M.t.ranks + " ranks on " + M.t.hosts + " hosts" +
      (slowest != null && slowest >= 0 ? " · heaviest path ends at rank " + slowest : "");
    $("collapse-hint").textContent = S.collapseHosts ? " · hosts are folded: click a host box to open it" : "";
    const missing = notMeasured(S.colour);
    $("colour-note").textContent = missing ? $("colour-select").selectedOptions[0].textContent + ": " + missing : "";
    // Visible nodes: a folded host shows as one box in place of its top node.
    const visible = [], folded = {};
    const visit = (id, depth) => {
      const n = M.byId[id];
      const h = M.hostTop[id];
      if (S.collapseHosts && h != null && !S.expanded.has(h)) {
        folded[id] = h;
        visible.push({ n, depth, folded: true });
        return;
      }
      visible.push({ n, depth, folded: false });
      M.kids[id].forEach((k) => visit(k, depth + 1));
    };
    visit(M.t.nodes[0].id, 0);
    // Tidy layout: leaves on slots left to right, a parent over the middle of its children; root at the top.
    const pos = {};
    let slot = 0, maxDepth = 0;
    const vis = new Set(visible.map((v) => v.n.id));
    const place = (id, depth) => {
      maxDepth = Math.max(maxDepth, depth);
      const ks = folded[id] != null ? [] : M.kids[id].filter((k) => vis.has(k));
      if (!ks.length) { pos[id] = { x: slot++, y: depth }; return; }
      ks.forEach((k) => place(k, depth + 1));
      pos[id] = { x: (pos[ks[0]].x + pos[ks[ks.length - 1]].x) / 2, y: depth };
    };
    place(M.t.nodes[0].id, 0);
    const dx = slot > 40 ? 34 : slot > 16 ? 64 : 84, dy = 66, padX = 44, padY = 26;
    const W = Math.max(600, padX * 2 + (slot - 1) * dx), H = padY * 2 + maxDepth * dy + 20;
    svg.setAttribute("width", W); svg.setAttribute("height", H); svg.setAttribute("viewBox", "0 0 " + W + " " + H);
    const X = (id) => padX + pos[id].x * dx, Y = (id) => padY + pos[id].y * dy;
    // Colour scale over the visible values.
    const values = [];
    const valueOf = (v) => {
      if (v.folded) {
        let worst = null;
        M.ranksBelow[v.n.id].forEach((r) => { const x = metric(r); if (x != null && (worst == null || x > worst)) worst = x; });
        return worst;
      }
      return metric(v.n);
    };
    visible.forEach((v) => { const x = valueOf(v); if (x != null) values.push(x); });
    const lo = Math.min(0, ...values), hi = Math.max(1e-9, ...values);
    const scaleFrac = (x) => (x - lo) / (hi - lo || 1);
    drawScale(lo, hi);
    // Selection: the selected node's paths (to the root, and every path through it).
    let lit = null;
    if (S.selected && M.byId[S.selected]) {
      lit = new Set();
      for (let id = S.selected; id != null; id = M.byId[id].parent) lit.add(id);
      const down = (id) => { lit.add(id); M.kids[id].forEach(down); };
      down(S.selected);
    } else if (S.selected && S.selected.startsWith("host ")) {
      lit = new Set();
    }
    const gEdges = el("g", {}, svg), gNodes = el("g", {}, svg);
    visible.forEach((v) => {
      const n = v.n;
      if (n.parent == null || !pos[n.parent]) return;
      const heavy = heavyIds.has(n.id) && heavyIds.has(n.parent);
      const litEdge = lit && lit.has(n.id) && lit.has(n.parent);
      const path = el("path", { d: "M" + X(n.parent) + "," + Y(n.parent) + " C" + X(n.parent) + "," + (Y(n.parent) + dy / 2) + " " + X(n.id) + "," + (Y(n.id) - dy / 2) + " " + X(n.id) + "," + Y(n.id),
        class: "edge" + (heavy ? " heavy" : "") + (litEdge ? " lit" : "") + (lit && !litEdge ? " faded" : "") }, gEdges);
      path.dataset.child = n.id;
    });
    visible.forEach((v) => {
      const n = v.n, x = X(n.id), y = Y(n.id);
      const val = valueOf(v);
      const fill = val == null ? "#f2f4f7" : heat(scaleFrac(val));
      const g = el("g", { class: "node" + (heavyIds.has(n.id) && !v.folded ? " heavy" : "") + (S.selected === n.id ? " selected" : "")
        + (lit && !lit.has(n.id) ? " faded" : "") + (n.kind === "rank" && n.rank === slowest ? " slowest" : ""),
        transform: "translate(" + x + "," + y + ")" }, gNodes);
      g.dataset.id = n.id; g.dataset.kind = v.folded ? "host" : n.kind; g.dataset.host = n.host;
      // A hit area over the whole node and its labels, so a click anywhere on it selects it.
      el("rect", { x: -Math.min(30, dx / 2), y: -26, width: Math.min(60, dx), height: 66, fill: "transparent", "pointer-events": "all" }, g);
      if (n.rank != null) g.dataset.rank = n.rank;
      let label;
      if (v.folded) {
        const rs = M.ranksBelow[n.id];
        el("rect", { x: -26, y: -12, width: 52, height: 24, rx: 3, class: "shape", fill: fill, "stroke-dasharray": "4 2" }, g);
        label = "host " + n.host;
        text(g, 0, 4, rs.length + " ranks", "label");
        g.dataset.kind = "host";
        g.onclick = (e) => { e.stopPropagation(); S.expanded.add(n.host); S.selected = n.id; draw(); };
      } else {
        if (n.kind === "rank") el("circle", { r: 10, class: "shape", fill: fill }, g);
        else if (n.kind === "proxy") el("path", { d: "M0,-11 L12,0 L0,11 L-12,0 Z", class: "shape", fill: fill }, g);
        else if (n.kind === "core") el("rect", { x: -16, y: -10, width: 32, height: 20, class: "shape", fill: "#e4e7ec" }, g);
        else el("rect", { x: -14, y: -10, width: 28, height: 20, rx: 6, class: "shape", fill: fill }, g);
        label = n.kind === "rank" ? (dx >= 80 ? "rank " + n.rank + " · h" + n.host : "r" + n.rank) : shortName(n.id);
        g.onclick = (e) => { e.stopPropagation(); S.selected = S.selected === n.id ? null : n.id; draw(); };
        if (S.collapseHosts && M.hostTop[n.id] != null) {
          g.ondblclick = (e) => { e.stopPropagation(); S.expanded.delete(n.host); draw(); };
        }
      }
      const title = el("title", {}, g);
      title.textContent = (v.folded ? "host " + n.host + " (folded; click to open)" : n.id + " on host " + n.host);
      if (n.kind === "rank" || v.folded) {
        text(g, 0, 24, v.folded ? label : label, "label");
        text(g, 0, 36, valText(val), "value");
      } else {
        text(g, 0, -15, label, "label");
        if (n.kind !== "core") text(g, 0, 22, valText(val), "value");
      }
    });
    svg.onclick = () => { if (S.selected) { S.selected = null; draw(); } };
  }
  // Cube's coupled panes: choosing in the timemap or the ranks' chart selects in the tree (and so the side table and
  // the orders), opening the node's host if it is folded.
  function select(id) {
    const M = treeModel();
    if (!M.byId[id]) return;
    S.expanded.add(M.byId[id].host);
    S.selected = id;
    draw();
  }
  function valText(v) {
    if (v == null) return "";
    return S.colour === "last_share" ? pct(v) : fmt(v) + " µs";
  }
  function drawScale(lo, hi) {
    const unit = UNITS[S.colour];
    const f = (v) => unit === "%" ? pct(v) : fmt(v) + " " + unit;
    const stops = [0, 0.25, 0.5, 0.75, 1].map((x) => heat(x)).join(",");
    fill($("colour-scale"), f(lo) + " ", h("span", { class: "bar", style: "background:linear-gradient(to right," + stops + ")" }), " " + f(hi));
  }

  function drawSide() {
    const side = $("side");
    const M = treeModel();
    const id = S.selected;
    if (!id || !M.byId[id]) { fill(side, h("p", { class: "muted" }, "Click a rank, gred or proxy in the tree: its paths stay lit, the rest fades, and its numbers show here.")); $("side-title").textContent = "nothing: click a node"; side.dataset.node = ""; return; }
    const n = M.byId[id];
    const m = (S.frame.nodes || {})[nodeKey(n)] || {};
    $("side-title").textContent = n.kind === "rank" ? "rank " + n.rank : n.id;
    side.dataset.node = id;
    const rows = [["kind", n.kind], ["host", n.host], ["enters", n.gred == null ? "–" : n.gred + " port " + n.port]];
    if (m.calls != null) rows.push(["calls joined", m.calls]);
    rows.push(["arrived last", pct(m.last_share)], ["arrival wait", fmt(m.arrival_wait_us) + " µs"],
      ["departure wait", fmt(m.departure_wait_us) + " µs"], ["time in the gred below", fmt(m.total_us) + " µs"],
      ["down / up at that port", fmt(m.down_us) + " / " + fmt(m.up_us) + " µs"]);
    if (m.gred_down_us != null) rows.push(["this gred's down / up", fmt(m.gred_down_us) + " / " + fmt(m.gred_up_us) + " µs"]);
    if (n.kind !== "rank") rows.push(["ranks below", M.ranksBelow[id].map((r) => r.rank).join(", ")]);
    fill(side, h("table", { class: "kv", id: "side-table" }, kvRows(rows)));
    const ports = S.frame.orders && S.frame.orders[id];
    if (ports) {
      const lbg = (S.frame.loadbalance && S.frame.loadbalance.greds && S.frame.loadbalance.greds[id]) || {};
      const la = arr(lbg.last_arrivals), sum = la.reduce((a, b) => a + b, 0);
      const th = (s) => h("th", null, s), td = (s) => h("td", null, s);
      side.appendChild(h("table", { class: "grid" },
        h("tr", null, ["port: contributor", "last", "arrival wait µs", "total µs", "departure wait µs"].map(th)),
        arr(ports).map((p, i) => h("tr", null, td(p.port + ": " + p.contributor), td(sum ? pct(la[i] / sum) : "–"), td(fmt(p.arrival_wait_us)),
          td(fmt(p.total_us)), td(fmt(p.departure_wait_us))))));
    }
  }

  function drawTimemap() {
    const svg = $("timemap");
    svg.replaceChildren();
    const tm = arr(S.frame.timemap).find((t) => t && t.tree === S.tree);
    const missing = notMeasured("timemap");
    $("timemap-note").textContent = missing || "";
    $("timemap-note").hidden = !missing;
    if (missing) { svg.setAttribute("height", 0); return; }
    if (!tm || !arr(tm.paths).length) { svg.setAttribute("height", 30); text(svg, 10, 20, "no statistics yet (needs the statistics monitor)", "", "start"); return; }
    // Every stage on one scale: a gred's port down (left) and up (right), under it the gred's own arrival + reduce
    // (left) and broadcast (right) as a thin bar; a hop's two-way latency and the core's store latency straddle zero
    // (half each side: no common clock says how a round trip splits).
    let max = 1e-9;
    tm.paths.forEach((p) => arr(p.stages).forEach((s) => {
      max = Math.max(max, s.down_us || 0, s.up_us || 0, (s.arrival_us || 0) + (s.reduce_us || 0), s.broadcast_us || 0,
        (s.two_way_us || 0) / 2, (s.store_us || 0) / 2);
    }));
    const rowH = 18, W = 640, mid = 390, half = 190, labelX = 8;
    let y = 14;
    const rows = tm.paths.reduce((a, p) => a + arr(p.stages).length + 1, 0);
    const H = rows * rowH + 34;
    svg.setAttribute("width", W); svg.setAttribute("height", H); svg.setAttribute("viewBox", "0 0 " + W + " " + H);
    const scale = (v) => (v || 0) / max * half;
    tm.paths.forEach((p) => {
      const t = text(svg, labelX, y + 4, (p.label === "slowest" ? "slowest path" : "typical path") + ": rank " + p.rank, "", "start");
      t.setAttribute("font-weight", "600");
      y += rowH;
      arr(p.stages).forEach((s) => {
        if (s.kind === "hop" || s.kind === "store") {
          const v = s.kind === "hop" ? s.two_way_us : s.store_us;
          const w = scale(v / 2);
          const label = s.kind === "hop" ? "hop h" + s.host + "→h" + s.to_host : "store " + shortName(s.stage);
          const st = text(svg, labelX + 8, y + 4, label, "", "start");
          st.style.cursor = "pointer";
          st.onclick = () => select(s.stage);
          const r = el("rect", { x: mid - w, y: y - 4, width: Math.max(0.5, 2 * w), height: 8, fill: "#98a2b3" }, svg);
          el("title", {}, r).textContent = (s.kind === "hop" ? "two-way latency (t4 − t1) − (t3 − t2): " : "store latency: ") + fmt(v) + " µs";
          text(svg, mid + w + 4, y + 4, fmt(v) + (s.kind === "hop" ? " two-way" : ""), "", "start");
          y += rowH;
          return;
        }
        const st = text(svg, labelX + 8, y + 4, shortName(s.stage) + " p" + s.port, "", "start");
        st.style.cursor = "pointer";
        st.onclick = () => select(s.stage);
        const d = scale(s.down_us), u = scale(s.up_us);
        el("rect", { x: mid - d, y: y - 7, width: Math.max(0.5, d), height: 9, fill: "var(--down)" }, svg);
        el("rect", { x: mid, y: y - 7, width: Math.max(0.5, u), height: 9, fill: "var(--up)" }, svg);
        if (s.arrival_us != null || s.broadcast_us != null) {
          const a = scale(s.arrival_us), rd = scale(s.reduce_us), b = scale(s.broadcast_us);
          const stage = "gred stages: arrival " + fmt(s.arrival_us) + " µs, reduce " + fmt(s.reduce_us) + " µs, broadcast " + fmt(s.broadcast_us) + " µs";
          el("title", {}, el("rect", { x: mid - a - rd, y: y + 3, width: Math.max(0.5, a), height: 3, fill: "#f5a623" }, svg)).textContent = stage;
          el("title", {}, el("rect", { x: mid - rd, y: y + 3, width: Math.max(0.5, rd), height: 3, fill: "#7a5af8" }, svg)).textContent = stage;
          el("title", {}, el("rect", { x: mid, y: y + 3, width: Math.max(0.5, b), height: 3, fill: "#12b76a" }, svg)).textContent = stage;
        }
        text(svg, mid - d - 4, y + 4, fmt(s.down_us), "", "end");
        text(svg, mid + u + 4, y + 4, fmt(s.up_us), "", "start");
        y += rowH;
      });
    });
    el("line", { x1: mid, x2: mid, y1: 4, y2: H - 22, stroke: "#344054" }, svg);
    text(svg, mid - 6, H - 8, "← down µs (thin: arrival, reduce)", "", "end");
    text(svg, mid + 6, H - 8, "up µs (thin: broadcast) →", "", "start");
    text(svg, mid, H - 8, "0");
  }

  function drawRanks() {
    const svg = $("ranks");
    svg.replaceChildren();
    const ranks = arr(S.frame.ranks);
    const slowest = S.frame.loadbalance ? S.frame.loadbalance.slowest_rank : -1;
    svg.dataset.slowest = slowest != null && slowest >= 0 ? slowest : "";
    const W = 620, H = 200, padL = 64, padB = 30, padT = 14;
    svg.setAttribute("width", W); svg.setAttribute("height", H); svg.setAttribute("viewBox", "0 0 " + W + " " + H);
    const max = Math.max(1e-9, ...ranks.map((r) => r.arrival_wait_us || 0));
    const bw = (W - padL - 10) / Math.max(1, ranks.length);
    el("line", { x1: padL, x2: W - 10, y1: H - padB, y2: H - padB, stroke: "#344054" }, svg);
    text(svg, padL - 4, padT + 8, fmtTime(max), "", "end");
    text(svg, padL - 4, H - padB, "0", "", "end");
    ranks.forEach((r, i) => {
      const h = (r.arrival_wait_us || 0) / max * (H - padB - padT);
      const rect = el("rect", { x: padL + i * bw + 1, y: H - padB - h, width: Math.max(1, bw - 2), height: h,
        fill: r.rank === slowest ? "var(--heavy)" : "#7a8aa6" }, svg);
      rect.dataset.rank = r.rank;
      rect.style.cursor = "pointer";
      rect.onclick = () => select("rank " + r.rank);
      const t = el("title", {}, rect);
      t.textContent = "rank " + r.rank + (r.host != null ? " (host " + r.host + ")" : "") + ": waits " + fmt(r.arrival_wait_us) + " µs, arrives last in " + pct(r.last_share) + " of calls";
      if (ranks.length <= 32) {
        text(svg, padL + i * bw + bw / 2, H - padB + 12, "r" + r.rank);
        text(svg, padL + i * bw + bw / 2, H - padB + 24, pct(r.last_share), "value");
      }
    });
    if (ranks.length > 32) text(svg, padL, H - 8, "ranks 0 … " + (ranks.length - 1) + " (hover a bar)", "", "start");
    // A report of many ranks draws the first of them; how many more there are is said, not dropped silently.
    const more = S.frame.ranks_not_drawn;
    svg.dataset.notDrawn = typeof more === "number" && more > 0 ? more : 0;
    if (typeof more === "number" && more > 0) text(svg, W - 12, H - 8, "… " + more.toLocaleString() + " more ranks (in the JSON)", "value", "end");
    if (slowest != null && slowest >= 0) text(svg, W - 12, padT - 2, "orange: the slowest rank (" + slowest + "); its neighbours wait for it", "value", "end");
  }

  function drawEvents() {
    const sel = $("event-select");
    const names = Object.keys(S.frame.histograms || {});
    if (sel.options.length !== names.length) {
      sel.replaceChildren();
      names.forEach((n) => { const o = document.createElement("option"); o.value = n; o.textContent = n; sel.appendChild(o); });
    }
    if (!S.event || names.indexOf(S.event) < 0) {
      // Default: the whole call as a rank sees it, on the longest path (rank>…>core).
      const whole = names.filter((n) => / rank>/.test(n)).sort((a, b) => b.length - a.length);
      S.event = whole[0] || names[0] || null;
    }
    if (S.event) sel.value = S.event;
  }

  function yAxisLog(lo, hi) {
    lo = Math.max(lo, 0.01); hi = Math.max(hi, lo * 10);
    const a = Math.log10(lo), b = Math.log10(hi);
    return { f: (v) => (Math.log10(Math.max(v, lo)) - a) / (b - a), lo, hi, ticks: ticks(lo, hi) };
  }
  function ticks(lo, hi) {
    const out = [];
    for (let e = Math.floor(Math.log10(lo)); e <= Math.ceil(Math.log10(hi)); e++) [1, 3].forEach((m) => { const v = m * Math.pow(10, e); if (v >= lo && v <= hi) out.push(v); });
    return out;
  }
  function drawOverTime() {
    const rounds = (S.frame.histograms || {})[S.event] || [];
    const band = (S.frame.band || {})[S.event] || [];
    const hm = $("heatmap");
    hm.dataset.rounds = rounds.length;
    hm.dataset.lastRound = rounds.length ? rounds[rounds.length - 1].round : -1;
    drawHeatmap(hm, rounds);
    drawBand($("band"), band);
  }
  function axes(ctx, W, H, pad, y, xLabel, n, first, last) {
    ctx.fillStyle = "#667085"; ctx.font = "11px system-ui, sans-serif"; ctx.strokeStyle = "#eaecf0";
    y.ticks.forEach((v) => {
      const yy = H - pad.b - y.f(v) * (H - pad.b - pad.t);
      ctx.beginPath(); ctx.moveTo(pad.l, yy); ctx.lineTo(W - pad.r, yy); ctx.stroke();
      ctx.textAlign = "right"; ctx.fillText(fmtTime(v), pad.l - 4, yy + 4);
    });
    ctx.textAlign = "left"; ctx.fillText(n ? "round " + first : "", pad.l, H - 6);
    ctx.textAlign = "right"; ctx.fillText(n ? "round " + last + " (" + xLabel + ")" : "", W - pad.r, H - 6);
  }
  function drawHeatmap(c, rounds) {
    const ctx = c.getContext("2d"), W = c.width, H = c.height, pad = { l: 64, r: 60, t: 8, b: 22 };
    ctx.clearRect(0, 0, W, H);
    if (!rounds.length) { ctx.fillStyle = "#667085"; ctx.fillText(notMeasured("histograms") || "no histogram rounds yet (the scope's filter: " + ((S.frame.scope || {}).filter || "none") + ")", pad.l, 30); return; }
    rounds = rounds.filter((r) => r && isFinite(r.min) && isFinite(r.max));
    if (!rounds.length) { ctx.fillStyle = "#667085"; ctx.fillText("the scope's filter (" + ((S.frame.scope || {}).filter || "none") + ") gives no histogram: see the band", pad.l, 30); return; }
    let lo = Infinity, hi = 0, maxCount = 1;
    rounds.forEach((r) => { lo = Math.min(lo, r.min); hi = Math.max(hi, r.max); (r.bins || []).forEach((b) => { maxCount = Math.max(maxCount, b); }); });
    const y = yAxisLog(lo, hi);
    axes(ctx, W, H, pad, y, "scope rounds", rounds.length, rounds[0].round, rounds[rounds.length - 1].round);
    const cw = (W - pad.l - pad.r) / Math.max(rounds.length, 30);
    rounds.forEach((r, i) => {
      const bins = r.bins || [], n = bins.length, w = (r.max - r.min) / Math.max(1, n);
      bins.forEach((b, k) => {
        if (!b) return;
        const v0 = r.min + k * w, v1 = v0 + w;
        const y0 = H - pad.b - y.f(v0) * (H - pad.b - pad.t), y1 = H - pad.b - y.f(v1) * (H - pad.b - pad.t);
        ctx.fillStyle = heat(0.15 + 0.85 * Math.log(1 + b) / Math.log(1 + maxCount));
        ctx.fillRect(pad.l + i * cw, Math.min(y0, y1) - 1, Math.max(1, cw - 1), Math.max(2, Math.abs(y0 - y1)));
      });
    });
    // The count scale, labelled where it is drawn.
    for (let i = 0; i < 100; i++) { ctx.fillStyle = heat(0.15 + 0.85 * i / 99); ctx.fillRect(W - pad.r + 14, H - pad.b - (i + 1) * (H - pad.t - pad.b) / 100, 10, (H - pad.t - pad.b) / 100 + 1); }
    ctx.fillStyle = "#667085"; ctx.textAlign = "left";
    ctx.fillText(maxCount, W - pad.r + 26, pad.t + 10); ctx.fillText("1", W - pad.r + 26, H - pad.b); ctx.fillText("calls", W - pad.r + 12, H - 6);
  }
  function drawBand(c, band) {
    const ctx = c.getContext("2d"), W = c.width, H = c.height, pad = { l: 64, r: 110, t: 8, b: 22 };
    ctx.clearRect(0, 0, W, H);
    band = band.filter((b) => b && isFinite(b.min) && isFinite(b.max) && isFinite(b.mean));
    c.dataset.rounds = band.length;
    if (!band.length) { ctx.fillStyle = "#667085"; ctx.font = "11px system-ui, sans-serif"; ctx.fillText(notMeasured("histograms") || "no rounds yet", pad.l, 30); return; }
    let lo = Infinity, hi = 0;
    band.forEach((b) => { lo = Math.min(lo, b.min); hi = Math.max(hi, b.max); });
    const y = yAxisLog(lo, hi);
    axes(ctx, W, H, pad, y, "scope rounds", band.length, band[0].round, band[band.length - 1].round);
    const n = Math.max(band.length, 30), X = (i) => pad.l + (i + 0.5) * (W - pad.l - pad.r) / n;
    const Y = (v) => H - pad.b - y.f(v) * (H - pad.b - pad.t);
    const area = (top, bottom, colour) => {
      ctx.beginPath();
      band.forEach((b, i) => { const yy = Y(top(b)); i ? ctx.lineTo(X(i), yy) : ctx.moveTo(X(i), yy); });
      for (let i = band.length - 1; i >= 0; i--) ctx.lineTo(X(i), Y(bottom(band[i])));
      ctx.closePath(); ctx.fillStyle = colour; ctx.fill();
    };
    if (band.length === 1) {
      // One round (a finished run's last): its range as bars, not an area of no width.
      const b = band[0], x = X(0);
      ctx.fillStyle = "rgba(59,125,216,0.15)"; ctx.fillRect(x - 8, Y(b.max), 16, Y(b.min) - Y(b.max));
      ctx.fillStyle = "rgba(59,125,216,0.38)"; ctx.fillRect(x - 8, Y(b.mean + b.sd), 16, Y(Math.max(b.min, b.mean - b.sd)) - Y(b.mean + b.sd));
    }
    area((b) => b.max, (b) => b.min, "rgba(59,125,216,0.15)");
    area((b) => b.mean + b.sd, (b) => Math.max(b.min, b.mean - b.sd), "rgba(59,125,216,0.38)");
    ctx.beginPath(); band.forEach((b, i) => { i ? ctx.lineTo(X(i), Y(b.mean)) : ctx.moveTo(X(i), Y(b.mean)); });
    ctx.strokeStyle = "#1d4ea8"; ctx.lineWidth = 2; ctx.stroke(); ctx.lineWidth = 1;
    // The last round's figures beside the chart, kept 13 px apart so they never overprint.
    const last = band[band.length - 1];
    const labels = [["max " + fmtTime(last.max), Y(last.max), "#667085"], ["mean " + fmtTime(last.mean), Y(last.mean), "#1d2330"],
      ["min " + fmtTime(last.min), Y(last.min), "#667085"]];
    labels[0][1] = Math.max(pad.t + 10, labels[0][1]);
    for (let i = 1; i < 3; i++) labels[i][1] = Math.max(labels[i][1], labels[i - 1][1] + 13);
    for (let i = 2; i >= 0; i--) {
      if (i === 2) labels[i][1] = Math.min(labels[i][1], H - pad.b);
      else labels[i][1] = Math.min(labels[i][1], labels[i + 1][1] - 13);
    }
    ctx.textAlign = "left";
    labels.forEach((l) => { ctx.fillStyle = l[2]; ctx.fillText(l[0], W - pad.r + 6, l[1] + 4); });
  }

  const ordinal = (k) => k + (k % 10 === 1 && k % 100 !== 11 ? "st" : k % 10 === 2 && k % 100 !== 12 ? "nd" : k % 10 === 3 && k % 100 !== 13 ? "rd" : "th");
  function drawOrders() {
    const box = $("orders");
    const orders = S.frame.orders || {};
    let gred = null;
    if (S.selected && orders[S.selected]) gred = S.selected;
    else if (S.selected) {
      const M = treeModel(), n = M.byId[S.selected];
      if (n && n.gred && orders[n.gred]) gred = n.gred;
    }
    if (!gred) gred = (S.frame.loadbalance || {}).slowest_rank_gred;
    if (!gred || !Array.isArray(orders[gred])) { fill(box, h("p", { class: "muted" }, "needs the statistics monitor")); $("orders-title").textContent = ""; return; }
    $("orders-title").textContent = gred + " · share of calls in which each port came 1st, 2nd, …";
    const colours = ["#1d4ea8", "#3b7dd8", "#7fa9e6", "#b9cff2", "#dde8f9"];
    const bar = (counts, field) => {
      if (!Array.isArray(counts)) return h("div", { class: "order-bar missing muted small" }, notMeasured(field) || "not measured");
      counts = counts.map((c) => typeof c === "number" && isFinite(c) ? c : 0);
      const sum = counts.reduce((a, b) => a + b, 0) || 1;
      return h("div", { class: "order-bar" }, counts.map((c, i) => h("span", {
        style: "width:" + (100 * c / sum) + "%;background:" + colours[Math.min(i, colours.length - 1)] + (i >= 2 ? ";color:#1d2330" : ""),
        title: (i + 1) + ". in " + (100 * c / sum).toFixed(0) + " % of calls" }, c / sum > 0.14 ? ordinal(i + 1) + " " + (100 * c / sum).toFixed(0) + " %" : "")));
    };
    fill(box, h("div", { class: "order-row muted" }, h("span", null, "port: contributor"), h("span", null, "arrival order"), h("span", null, "departure order")),
      orders[gred].map((p) => h("div", { class: "order-row" }, h("span", null, p.port + ": " + p.contributor), bar(p.arrival_order, "arrival_order"), bar(p.departure_order, "departure_order"))));
  }

  function drawCost() {
    const c = S.frame.cost || {};
    const rows = [
 ["analysis threads' CPU", (c.analysis_cpu_pct == null ? "–" : fmt(c.analysis_cpu_pct) + " % of one core" + (S.frame.running ? "" : " over the run") + " (" + c.analysis_threads + " threads; " + fmt(c.analysis_cpu_pct / (c.cores || 1)) + " % of the machine's " + c.cores + " cores): the most they took from the ranks")
        + (notMeasured("analysis_cpu_pct") ? " (" + notMeasured("analysis_cpu_pct") + ")" : "")],
      ["monitors' gather rate", c.gather_rate == null ? "–" : (100 * c.gather_rate).toFixed(2) + " % (" + (c.tuples_read || 0).toLocaleString() + " tuples read, " + (c.tuples_missed || 0).toLocaleString() + " missed)"],
      ["calls joined / dropped", (c.calls_joined || 0).toLocaleString() + " / " + (c.calls_dropped != null ? c.calls_dropped.toLocaleString() : "– (" + (notMeasured("calls_dropped") || "not measured") + ")")],
      ["event scope", c.scope_rounds == null ? "none" + (notMeasured("histograms") ? " (" + notMeasured("histograms") + ")" : "") : c.scope_rounds + " rounds, " + fmt(c.scope_round_us, 0) + " µs a round, gather rate " + (100 * c.scope_gather_rate).toFixed(2) + " % (" + c.scope_records_dropped + " records dropped), reduction " + fmt(c.scope_reduction_factor) + "×"],
      ["this dashboard", fmt(c.server_cpu_pct, 2) + " % of one core (its sampler); every page and script reads the same frame"],
    ];
    fill($("cost"), kvRows(rows));
  }

  // ---- two finished runs ----
  const loaded = {};
  function loadCompare(e) {
    const which = e.target.id === "file-a" ? "a" : "b";
    const f = e.target.files[0];
    if (!f) return;
    f.text().then((t) => { loaded[which] = { name: f.name, run: JSON.parse(t) }; drawCompare(); })
      .catch((err) => { $("compare").textContent = f.name + ": not a run report (" + err + ")"; });
  }
  function compareRows(a, b) {
    const rows = [];
    const push = (section, what, x, y, unit) => rows.push({ section, what, a: x, b: y, unit: unit || "µs" });
    const get = (r, p) => p.reduce((o, k) => (o == null ? undefined : o[k]), r);
    // The run model's fields (eventspace.run/2): both kinds of run have them.
    push("run", "wall time", get(a, ["wall_s"]), get(b, ["wall_s"]), "s");
    const oa = get(a, ["operations"]) || {}, ob = get(b, ["operations"]) || {};
    Object.keys(oa).filter((op) => ob[op]).sort().forEach((op) => {
      push("per operation", op + " mean time per rank", oa[op].mean_us, ob[op].mean_us);
      push("per operation", op + " imbalance", oa[op].imbalance_pct, ob[op].imbalance_pct, "%");
    });
    const ra = get(a, ["per_rank"]) || [], rb = get(b, ["per_rank"]) || [];
    ra.forEach((r, i) => { if (rb[i]) push("per rank", "rank " + r.rank + " wait at collectives", r.collective_wait_us, rb[i].collective_wait_us); });
    push("latency", "allreduce mean", get(a, ["allreduce_us", "mean"]), get(b, ["allreduce_us", "mean"]));
    const wa = get(a, ["monitors", "stats", "wrappers"]) || {}, wb = get(b, ["monitors", "stats", "wrappers"]) || {};
    const greds = [...new Set(Object.keys(wa).concat(Object.keys(wb)))].sort();
    greds.forEach((g) => {
      push("gred", g + " down", get(wa, [g, "down", "mean"]), get(wb, [g, "down", "mean"]));
      push("gred", g + " up", get(wa, [g, "up", "mean"]), get(wb, [g, "up", "mean"]));
      const pa = get(wa, [g, "ports"]) || [], pb = get(wb, [g, "ports"]) || [];
      for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
        const who = (pa[i] || pb[i]).contributor;
        push("port", g + " port " + i + " (" + who + ") arrival wait", get(pa, [i, "arrival_wait", "mean"]), get(pb, [i, "arrival_wait", "mean"]));
      }
    });
    return rows;
  }
  function drawCompare() {
    const box = $("compare");
    if (window.ES_STATIC && window.ES_STATIC.diff) {
      const d = window.ES_STATIC.diff;
      fill(box, lines(arr(d.head), "diff-head"), diffTable(arr(d.rows), d.a, d.b));
      if (arr(d.notes).length) box.appendChild(lines(["not compared:"].concat(d.notes), "diff-notes muted"));
      return;
    }
    if (!loaded.a || !loaded.b) {
      fill(box, h("p", { class: "muted" }, (loaded.a || loaded.b ? "now the other one" : "choose two run reports") + ". ",
        h("code", null, "eventspace diff A.json B.json"), " prints the same comparison; ",
        h("code", null, "eventspace report A.json B.json -o report.html"), " freezes it in a page."));
      return;
    }
    fill(box, diffTable(compareRows(loaded.a.run, loaded.b.run), loaded.a.name, loaded.b.name));
  }
  function diffTable(rows, nameA, nameB) {
    rows = rows.filter((r) => r && r.a != null && r.b != null); // a figure only one run has is no row
    const bySection = {};
    rows.forEach((r) => { (bySection[r.section] = bySection[r.section] || []).push(r); });
    const num = (v) => typeof v === "number" ? v : NaN;
    const table = h("table", { class: "grid", id: "compare-table" },
      h("tr", null, h("th", null, "what"), h("th", null, "A: " + nameA), h("th", null, "B: " + nameB), h("th", null, "B/A"),
        h("th", null, "verdict"), h("th", null, "common scale (grey A, blue B)")));
    Object.keys(bySection).forEach((s) => {
      table.appendChild(h("tr", null, h("th", { colspan: 6, style: "text-align:left;padding-top:8px" }, s)));
      const max = Math.max(1e-9, ...bySection[s].map((r) => Math.max(num(r.a) || 0, num(r.b) || 0)));
      bySection[s].forEach((r) => {
        const a = num(r.a), b = num(r.b);
        const ratio = a > 0 && b >= 0 ? b / a : null;
        const verdict = ["faster", "slower", "same", "lower", "higher"].indexOf(r.verdict) >= 0 ? r.verdict
          : ratio == null ? "" : ratio < 0.95 ? "faster" : ratio > 1.05 ? "slower" : "same";
        table.appendChild(h("tr", null,
          h("td", null, String(r.what) + (r.unit ? " (" + r.unit + ")" : "")),
          h("td", null, Number.isInteger(a) ? a : fmt(a, 2)), h("td", null, Number.isInteger(b) ? b : fmt(b, 2)),
          h("td", null, ratio == null ? "–" : ratio.toFixed(2)),
          h("td", { class: "verdict-" + verdict }, verdict),
          h("td", { style: "text-align:left" }, h("span", { class: "diffbar a", style: "width:" + (120 * (a || 0) / max) + "px" }), h("br"),
            h("span", { class: "diffbar b", style: "width:" + (120 * (b || 0) / max) + "px" }))));
      });
    });
    return table;
  }

  window.addEventListener("load", () => { start(); drawCompare(); });
})();
