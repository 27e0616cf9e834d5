// battlesim viewer: a timeline over one or two embedded battles (no network, no libraries).
// Data: <script class="battle-data"> elements, JSON or gzip+base64 JSON (sim/viewer/model.py).
"use strict";
(() => {
  const $ = (sel, root = document) => root.querySelector(sel);
  const NS = $("svg#ns-probe").namespaceURI; // the SVG namespace, taken from the page itself
  const SQ3 = Math.sqrt(3);
  const DOWN = new Set(["dead", "sunk", "eliminated", "destroyed", "killed", "knocked out"]);
  const BAD = new Set(["routed", "crippled", "fled", "left the field", "ditched"]);
  const WARN = new Set(["disrupted", "stunned", "shaken", "damaged"]);

  function el(tag, attrs = {}, text = null) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
    if (text !== null) node.textContent = text;
    return node;
  }
  function svg(tag, attrs = {}, text = null) {
    const node = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
    if (text !== null) node.textContent = text;
    return node;
  }
  const TERRAIN = { woods: "#9cc48a", forest: "#9cc48a", stone_wall: "#a9a9a9", wall: "#a9a9a9", fence: "#c9a77c", hedge: "#b5c46a", breastworks: "#cdb38b", river: "#8fbbe0", stream: "#a8cbe8", water: "#8fbbe0", town: "#c79a8a", village: "#c79a8a", road: "#ddd0b0", hill: "#d8cc9a", marsh: "#a9c9b8" };
  const fmt = (v) => (typeof v === "number" && !Number.isInteger(v) ? v.toFixed(1) : String(v));
  const posText = (pos) => (pos === null ? "off the field" : pos.map(fmt).join(", "));

  async function decode(script) {
    const text = script.textContent.trim();
    if (script.dataset.encoding !== "gzip+base64") return JSON.parse(text);
    const bytes = Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return JSON.parse(await new Response(stream).text());
  }

  // ---- one battle: its events, frames and the state at any position ----
  class Battle {
    constructor(data) {
      Object.assign(this, data);
      this.n = this.events.length;
      this.turns = [];
      this.before = new Map(); // turn -> events with a smaller turn
      this.count = new Map(); // turn -> events of that turn
      this.events.forEach((e, i) => {
        if (!this.count.has(e.turn)) {
          this.turns.push(e.turn);
          this.before.set(e.turn, i);
          this.count.set(e.turn, 0);
        }
        this.count.set(e.turn, this.count.get(e.turn) + 1);
      });
      this.keyAt = this.keyframes.map((k) => k.at);
      this.byUnit = this.units.map(() => []);
      this.events.forEach((e, i) => e.units.forEach((u) => this.byUnit[u].push(i)));
      this.unitIndex = new Map(this.units.map((u, i) => [u.id, i]));
      this.cache = { p: -1, rows: null };
      this.intern();
    }
    intern() {
      // a row equal to the one before a keyframe becomes that same object, so the page
      // can skip unchanged units by identity (also across turn boundaries)
      const text = new WeakMap();
      const key = (r) => {
        if (!text.has(r)) text.set(r, JSON.stringify(r));
        return text.get(r);
      };
      let cur = this.keyframes[0].rows.slice();
      let i = 0;
      for (const k of this.keyframes.slice(1)) {
        for (; i < k.at; i += 1) for (const [u, row] of this.events[i].delta) cur[u] = row;
        k.rows.forEach((row, u) => {
          if (key(row) === key(cur[u])) k.rows[u] = cur[u];
        });
        cur = k.rows.slice();
      }
    }
    index(turn, k) {
      // events applied at timeline point (turn, k): all earlier turns, then k of this one
      let i = 0;
      for (const t of this.turns) {
        if (t < turn) i += this.count.get(t);
        else if (t === turn) i += Math.min(k, this.count.get(t));
      }
      return i;
    }
    rowsAt(p) {
      if (this.cache.p === p) return this.cache.rows;
      let j = this.keyAt.length - 1;
      while (this.keyAt[j] > p) j -= 1;
      const rows = this.keyframes[j].rows.slice();
      for (let i = this.keyAt[j]; i < p; i += 1) {
        for (const [u, row] of this.events[i].delta) rows[u] = row;
      }
      this.cache = { p, rows };
      return rows;
    }
    turnAt(p) {
      return p === 0 ? 0 : this.events[p - 1].turn;
    }
    detail(i) {
      return JSON.parse(this.detail_json[i]);
    }
    why(i) {
      const chain = [i];
      const seen = new Set(chain);
      for (let c = this.events[i].cause; c !== null && c >= 0 && c < this.n && !seen.has(c); ) {
        chain.push(c);
        seen.add(c);
        c = this.events[c].cause;
      }
      return chain.reverse();
    }
  }

  // ---- the map: a hex grid of odd-q columns, or a plane in the space's own units ----
  class Field {
    constructor(battle, host) {
      this.b = battle;
      const sp = battle.space;
      this.hex = sp.kind === "hex";
      const pts = [];
      for (const f of sp.features) pts.push(...f.cells);
      for (const k of battle.keyframes) for (const r of k.rows) if (r.pos) pts.push(r.pos);
      for (const e of battle.events) for (const [, r] of e.delta) if (r.pos) pts.push(r.pos);
      const bounds = sp.bounds || this.fit(pts);
      this.lo = bounds.map((b) => b[0]);
      this.hi = bounds.map((b) => b[1]);
      const cols = this.hi[0] - this.lo[0] + 1;
      const rows = (this.hi[1] ?? 0) - (this.lo[1] ?? 0) + 1;
      // fit the field in about 640 x 560 px, whatever its shape
      if (this.hex) {
        this.s = Math.max(6, Math.min(30, 640 / (1.5 * cols + 0.5), 560 / (SQ3 * (rows + 0.5))));
        this.w = this.s * (1.5 * cols + 0.5);
        this.h = this.s * SQ3 * (rows + 0.5);
      } else {
        const spanX = Math.max(this.hi[0] - this.lo[0], 1);
        const spanY = Math.max((this.hi[1] ?? 0) - (this.lo[1] ?? 0), 1);
        this.k = Math.min(640 / spanX, 520 / spanY);
        this.w = spanX * this.k + 40;
        this.h = spanY * this.k + 40;
      }
      this.root = svg("svg", {
        class: "field",
        viewBox: `0 0 ${this.w.toFixed(1)} ${this.h.toFixed(1)}`,
        "data-kind": sp.kind,
      });
      host.append(this.root);
      this.drawGround(sp);
      this.routes = svg("g", { class: "routes" });
      this.layer = svg("g", { class: "units" });
      this.root.append(this.routes, this.layer);
      this.marks = battle.units.map((u, i) => this.mark(u, i));
      this.shown = [];
    }
    fit(pts) {
      const lo = [Infinity, Infinity];
      const hi = [-Infinity, -Infinity];
      for (const p of pts) {
        for (let a = 0; a < 2; a += 1) {
          lo[a] = Math.min(lo[a], p[a] ?? 0);
          hi[a] = Math.max(hi[a], p[a] ?? 0);
        }
      }
      if (lo[0] === Infinity) return [[0, 10], [0, 10]];
      const m = this.hex ? 1 : 10;
      return [[lo[0] - m, hi[0] + m], [lo[1] - m, hi[1] + m]];
    }
    xy(pos) {
      const c = pos[0] - this.lo[0];
      const r = (pos[1] ?? 0) - (this.lo[1] ?? 0);
      if (this.hex) {
        const odd = ((pos[0] % 2) + 2) % 2;
        return [this.s * (1 + 1.5 * c), this.s * SQ3 * (r + 0.5 + 0.5 * odd)];
      }
      return [20 + c * this.k, 20 + r * this.k];
    }
    hexPath(pos) {
      const [x, y] = this.xy(pos);
      const pts = [];
      for (let a = 0; a < 6; a += 1) {
        const t = (Math.PI / 3) * a;
        pts.push(`${(x + this.s * Math.cos(t)).toFixed(1)},${(y + this.s * Math.sin(t)).toFixed(1)}`);
      }
      return pts.join(" ");
    }
    drawGround(sp) {
      const g = svg("g", { class: "ground" });
      if (this.hex) {
        // one path for the whole grid: thousands of hexes cost one element, not thousands
        const d = [];
        for (let c = this.lo[0]; c <= this.hi[0]; c += 1) {
          for (let r = this.lo[1]; r <= this.hi[1]; r += 1) d.push(`M${this.hexPath([c, r]).replaceAll(" ", "L")}Z`);
        }
        g.append(svg("path", { class: "hex", d: d.join("") }));
      } else {
        const step = niceStep((this.hi[0] - this.lo[0]) / 8);
        for (let v = Math.ceil(this.lo[0] / step) * step; v <= this.hi[0]; v += step) {
          const [x] = this.xy([v, this.lo[1]]);
          g.append(svg("line", { class: "grid", x1: x, x2: x, y1: 20, y2: this.h - 20 }));
          g.append(svg("text", { class: "axis", x, y: 14 }, `${v} ${sp.unit}`));
        }
        for (let v = Math.ceil(this.lo[1] / step) * step; v <= this.hi[1]; v += step) {
          const [, y] = this.xy([this.lo[0], v]);
          g.append(svg("line", { class: "grid", x1: 20, x2: this.w - 20, y1: y, y2: y }));
          g.append(svg("text", { class: "axis", x: 2, y: y - 2 }, String(v)));
        }
      }
      sp.features.forEach((f, i) => g.append(this.feature(f, i)));
      this.root.append(g);
    }
    feature(f, i) {
      const g = svg("g", { class: `feature ${f.kind}`, "data-name": f.name });
      const tint = TERRAIN[f.name] || `hsl(${(hashText(f.name) % 12) * 30}, 35%, 72%)`;
      for (const cell of f.cells) {
        const [x, y] = this.xy(cell);
        if (f.kind === "terrain" && this.hex) {
          g.append(svg("polygon", { points: this.hexPath(cell), fill: tint }));
        } else if (f.kind === "objective") {
          g.append(svg("polygon", { class: "star", points: star(x, y, this.size() * 0.55) }));
        } else {
          const r = this.size() * 0.5;
          g.append(svg("rect", { x: x - r, y: y - r, width: 2 * r, height: 2 * r, fill: tint }));
        }
      }
      if (f.kind !== "terrain" && f.cells.length) {
        const [x, y] = this.xy(f.cells[0]);
        g.append(svg("text", { class: "flabel", x, y: y + this.size() * 0.95 }, f.name));
      }
      g.append(svg("title", {}, `${f.kind}: ${f.name}${i >= 0 ? "" : ""}`));
      return g;
    }
    size() {
      return this.hex ? this.s : Math.min(16, Math.max(9, 2.5 * this.k));
    }
    mark(u, i) {
      const g = svg("g", { class: `unit side-${u.sidex}`, "data-unit": u.id, "data-index": i });
      g.append(svg("circle", { class: "body", r: 6 }));
      g.append(svg("path", { class: "cross", d: "" }));
      g.append(svg("text", { class: "ulabel" }, u.label));
      g.append(svg("title", {}));
      this.layer.append(g);
      return g;
    }
    show(rows, selected) {
      const stacks = new Map();
      rows.forEach((r, i) => {
        if (r.pos === null) return;
        const key = r.pos.join(",");
        if (!stacks.has(key)) stacks.set(key, []);
        stacks.get(key).push(i);
      });
      const place = new Map();
      for (const members of stacks.values()) {
        members.forEach((u, k) => place.set(u, [k, members.length]));
      }
      const routes = rows.some((r, i) => r.route || this.shown[i]?.row.route);
      if (routes) this.routes.replaceChildren();
      rows.forEach((r, i) => {
        const slot = place.get(i) ?? [0, 1];
        const was = this.shown[i];
        const same = was && was.row === r && was.slot.join() === slot.join() && was.chosen === (selected === i);
        if (!same) this.update(i, r, slot, selected === i);
        else if (routes && r.route) this.route(r.route, this.b.units[i]);
        this.shown[i] = { row: r, slot, chosen: selected === i };
      });
    }
    update(i, r, slot, chosen) {
      const g = this.marks[i];
      const u = this.b.units[i];
      g.dataset.pos = r.pos === null ? "" : r.pos.join(",");
      g.dataset.status = r.status.join(",");
      g.dataset.strength = String(r.str);
      g.classList.toggle("selected", chosen);
      g.classList.toggle("down", r.status.some((s) => DOWN.has(s)));
      g.classList.toggle("bad", r.status.some((s) => BAD.has(s)));
      g.classList.toggle("warn", r.status.some((s) => WARN.has(s)));
      g.classList.toggle("other", r.status.length > 0);
      const [title] = g.getElementsByTagName("title");
      title.textContent = `${u.name} (${u.side_name}, ${u.kind}) at ${posText(r.pos)}: ${fmt(r.str)}/${fmt(u.initial.value)} ${u.initial.unit}${r.status.length ? " — " + r.status.join(", ") : ""}`;
      if (r.route) this.route(r.route, u);
      if (r.pos === null) {
        g.setAttribute("visibility", "hidden");
        return;
      }
      g.removeAttribute("visibility");
      let [x, y] = this.xy(r.pos);
      const [k, n] = slot;
      const base = this.size();
      const rad = n === 1 ? base * 0.42 : Math.max(3.5, base * (n > 4 ? 0.22 : 0.28));
      if (n > 1) {
        const a = (2 * Math.PI * k) / n - Math.PI / 2;
        x += Math.cos(a) * base * 0.5;
        y += Math.sin(a) * base * 0.5;
      }
      g.setAttribute("transform", `translate(${x.toFixed(1)},${y.toFixed(1)})`);
      const body = g.querySelector(".body");
      body.setAttribute("r", rad.toFixed(1));
      const frac = u.initial.value > 0 ? Math.max(0, Math.min(1, r.str / u.initial.value)) : 1;
      body.setAttribute("fill-opacity", (0.25 + 0.75 * frac).toFixed(2));
      const c = rad * 0.7;
      g.querySelector(".cross").setAttribute("d", `M${-c},${-c}L${c},${c}M${-c},${c}L${c},${-c}`);
      const label = g.querySelector(".ulabel");
      label.setAttribute("y", (rad + 9).toFixed(1));
      label.style.display = n > 2 && !chosen ? "none" : "";
    }
    route(points, u) {
      const line = points.map((p) => this.xy(p).map((v) => v.toFixed(1)).join(",")).join(" ");
      const path = svg("polyline", { class: `route side-${u.sidex}`, points: line });
      path.append(svg("title", {}, `${u.name} in flight`));
      this.routes.append(path);
      const [x, y] = points.length > 1 ? midpoint(this.xy(points[0]), this.xy(points[points.length - 1])) : this.xy(points[0]);
      const plane = svg("g", { class: `aloft side-${u.sidex}`, "data-unit": u.id, transform: `translate(${x.toFixed(1)},${y.toFixed(1)})` });
      plane.append(svg("polygon", { points: "0,-7 5,6 0,3 -5,6" }), svg("text", { y: 16 }, u.label));
      this.routes.append(plane);
    }
  }
  const midpoint = (a, b) => [(a[0] + b[0]) / 2, (a[1] + b[1]) / 2];
  function niceStep(raw) {
    const p = 10 ** Math.floor(Math.log10(Math.max(raw, 1e-9)));
    for (const m of [1, 2, 5, 10]) if (m * p >= raw) return m * p;
    return 10 * p;
  }
  function hashText(s) {
    let h = 7;
    for (const ch of s) h = (h * 31 + ch.charCodeAt(0)) % 100003;
    return h;
  }
  function star(x, y, r) {
    const pts = [];
    for (let a = 0; a < 10; a += 1) {
      const rr = a % 2 ? r * 0.45 : r;
      const t = (Math.PI / 5) * a - Math.PI / 2;
      pts.push(`${(x + rr * Math.cos(t)).toFixed(1)},${(y + rr * Math.sin(t)).toFixed(1)}`);
    }
    return pts.join(" ");
  }

  // ---- one pane: a battle's map, unit table, narrative of the turn, details and charts ----
  class Pane {
    constructor(battle, host, viewer) {
      this.b = battle;
      this.v = viewer;
      this.host = host;
      this.selected = null;
      this.turnShown = null;
      this.tableShown = [];
      this.changed = new Set((battle.meta.fork?.changes ?? []).map((c) => c.seq));
      this.scrolling = 0;
      this.p = -1;
      this.field = new Field(battle, $(".map", host));
      this.field.marks.forEach((g, i) => g.addEventListener("click", () => this.pickUnit(i)));
      this.table = this.buildTable($(".units-table", host));
      this.list = $(".narrative ol", host);
      this.info = $(".details", host);
      this.charts = [...host.querySelectorAll("svg.chart")];
      for (const c of this.charts) c.addEventListener("click", (ev) => this.chartClick(c, ev));
      for (const a of host.querySelectorAll("[data-event]")) {
        a.addEventListener("click", (ev) => {
          ev.preventDefault();
          this.pickEvent(Number(a.dataset.event), true);
        });
      }
    }
    buildTable(table) {
      const body = el("tbody");
      this.cells = this.b.units.map((u, i) => {
        const tr = el("tr", { "data-unit": u.id, class: `side-${u.sidex}` });
        const name = el("td", { class: "name" });
        name.append(el("span", { class: "swatch" }), document.createTextNode(u.name));
        const cells = [name, el("td", {}, u.side_name), el("td", {}, u.kind)];
        const live = ["pos", "str", "status", "more"].map((c) => el("td", { class: c }));
        tr.append(...cells, ...live);
        tr.addEventListener("click", () => this.pickUnit(i));
        body.append(tr);
        return { tr, live };
      });
      table.append(body);
      return table;
    }
    show(p) {
      this.p = p;
      const rows = this.b.rowsAt(p);
      this.field.show(rows, this.selected);
      rows.forEach((r, i) => {
        const was = this.tableShown[i];
        if (!was || was.row !== r || was.chosen !== (this.selected === i)) this.row(i, r);
        this.tableShown[i] = { row: r, chosen: this.selected === i };
      });
      const turn = this.b.turnAt(p);
      if (turn !== this.turnShown) this.narrate(turn);
      for (const li of this.list.querySelectorAll("li.current")) li.classList.remove("current");
      const cur = this.list.querySelector(`li[data-i="${p - 1}"]`);
      if (cur) {
        cur.classList.add("current");
        cancelAnimationFrame(this.scrolling);
        this.scrolling = requestAnimationFrame(() => {
          // scroll the list only, never the page; read layout once, after all writes
          this.list.scrollTop = Math.max(0, cur.offsetTop - this.list.clientHeight / 2);
        });
      }
      $(".pane-pos", this.host).textContent = this.where(p);
      for (const c of this.charts) this.cursor(c, turn);
    }
    where(p) {
      const word = this.b.meta.turn_name;
      if (p === 0) return `start of the battle (before ${word} ${this.b.turns[0] ?? 1})`;
      const e = this.b.events[p - 1];
      const end = p === this.b.n || this.b.events[p].turn !== e.turn;
      return `${word} ${e.turn}${end ? " (end)" : ""} — after event ${p} of ${this.b.n} (seq ${e.seq})`;
    }
    row(i, r) {
      const u = this.b.units[i];
      const { tr, live } = this.cells[i];
      live[0].textContent = posText(r.pos);
      live[1].textContent = `${fmt(r.str)} / ${fmt(u.initial.value)} ${u.initial.unit}`;
      live[2].textContent = r.status.join(", ");
      live[3].textContent = Object.entries(r.details || {}).map(([k, v]) => `${k} ${typeof v === "object" ? JSON.stringify(v) : fmt(v)}`).join("; ");
      live[3].title = live[3].textContent;
      tr.dataset.pos = r.pos === null ? "" : r.pos.join(",");
      tr.classList.toggle("selected", this.selected === i);
      tr.classList.toggle("gone", r.pos === null);
    }
    narrate(turn) {
      // lazy: only the events of the turn on screen are in the DOM
      this.turnShown = turn;
      const b = this.b;
      const first = turn === 0 ? 0 : b.before.get(turn);
      const count = turn === 0 ? 0 : b.count.get(turn);
      const items = [];
      for (let i = first; i < first + count; i += 1) {
        const e = b.events[i];
        const cls = [e.key ? "key" : "", this.changed.has(e.seq) ? "changed" : ""].join(" ").trim();
        const li = el("li", { "data-i": i, "data-seq": e.seq, class: cls });
        li.append(el("span", { class: "seq" }, `[${e.seq}]`), document.createTextNode(" " + this.told(e)));
        li.addEventListener("click", () => this.pickEvent(i, true));
        items.push(li);
      }
      if (!items.length) items.push(el("li", { class: "empty" }, "The battle has not begun: step forward (→) or press play."));
      this.list.replaceChildren(...items);
      $(".narrative h3", this.host).textContent = turn === 0 ? "Narrative" : `Narrative — ${b.meta.turn_name} ${turn}`;
    }
    told(e) {
      if (e.line !== null) return e.line;
      if (e.type === "engine.turn_ended") return `— end of ${this.b.meta.turn_name} ${e.turn} —`;
      if (e.type === "engine.snapshot") return "(state snapshot)";
      return e.type;
    }
    cursor(chart, turn) {
      const line = chart.querySelector(".cursor");
      const x0 = Number(chart.dataset.x0);
      const x1 = Number(chart.dataset.x1);
      const t0 = Number(chart.dataset.t0);
      const t1 = Number(chart.dataset.t1);
      const x = t1 > t0 ? x0 + ((Math.min(turn, t1) - t0) / (t1 - t0)) * (x1 - x0) : x0;
      line.setAttribute("x1", x.toFixed(1));
      line.setAttribute("x2", x.toFixed(1));
    }
    chartClick(chart, ev) {
      const box = chart.getBoundingClientRect();
      const vb = chart.viewBox.baseVal;
      const x = ((ev.clientX - box.left) / box.width) * vb.width;
      const x0 = Number(chart.dataset.x0);
      const x1 = Number(chart.dataset.x1);
      const t0 = Number(chart.dataset.t0);
      const t1 = Number(chart.dataset.t1);
      const turn = Math.round(t0 + ((x - x0) / Math.max(x1 - x0, 1)) * (t1 - t0));
      this.v.gotoTurnEnd(Math.max(t0, Math.min(t1, turn)));
    }
    pickUnit(i) {
      this.selected = i;
      this.show(this.p);
      const u = this.b.units[i];
      const box = this.info;
      box.replaceChildren(el("h3", {}, `${u.name} — ${u.side_name} ${u.kind}`));
      const r = this.b.rowsAt(this.p)[i];
      box.append(el("p", {}, `Now at ${posText(r.pos)}; ${u.initial.name} ${fmt(r.str)} of ${fmt(u.initial.value)} ${u.initial.unit}${r.status.length ? "; " + r.status.join(", ") : ""}.`));
      box.append(el("p", { class: "muted" }, `Its history: ${this.b.byUnit[i].length} events name it (click one to go there).`));
      const ol = el("ol", { class: "history" });
      for (const j of this.b.byUnit[i].slice(0, 400)) {
        const e = this.b.events[j];
        const li = el("li", { "data-i": j }, `[${e.seq}] ${this.told(e)}`);
        li.addEventListener("click", () => this.pickEvent(j, true));
        ol.append(li);
      }
      if (this.b.byUnit[i].length > 400) ol.append(el("li", { class: "muted" }, "… (first 400 shown)"));
      box.append(ol);
    }
    pickEvent(i, jump) {
      if (jump) this.v.gotoEvent(this, i);
      const b = this.b;
      const e = b.events[i];
      const d = b.detail(i);
      const box = this.info;
      box.replaceChildren(el("h3", {}, `Event seq ${e.seq} — ${e.type}, ${b.meta.turn_name} ${e.turn}`));
      box.append(el("p", { class: "line" }, this.told(e)));
      box.append(el("h4", {}, "Why: its chain of causes, root first"));
      const why = el("ol", { class: "why" });
      for (const j of b.why(i)) {
        const c = b.events[j];
        const li = el("li", { "data-i": j }, `[${c.seq}] ${this.told(c)}`);
        li.addEventListener("click", () => this.pickEvent(j, true));
        why.append(li);
      }
      if (b.why(i).length === 1) why.append(el("li", { class: "muted" }, "no recorded cause: a decision of its own, from its order and the dice"));
      box.append(why);
      box.append(el("h4", {}, "Inputs"));
      box.append(kvTable(d, new Set(["type", "seq", "turn", "cause", "h", "draws", "schema_version"])));
      const draws = [];
      collectDraws(d, "", draws);
      box.append(el("h4", {}, `Draws (${draws.length})`));
      if (draws.length) {
        const t = el("table", { class: "draws" });
        t.append(row3("th", "where", "stream", "i", "u"));
        for (const [where, x] of draws) t.append(row3("td", where || "·", x.stream, x.i, x.u));
        box.append(t);
      } else box.append(el("p", { class: "muted" }, "none: this event drew no random numbers"));
    }
  }
  function row3(tag, ...cells) {
    const tr = el("tr");
    for (const c of cells) tr.append(el(tag, {}, fmt(c)));
    return tr;
  }
  function kvTable(obj, skip) {
    const t = el("table", { class: "kv" });
    for (const [k, v] of Object.entries(obj)) {
      if (skip.has(k)) continue;
      const tr = el("tr");
      tr.append(el("th", {}, k), el("td", {}, typeof v === "object" && v !== null ? JSON.stringify(v) : fmt(v)));
      t.append(tr);
    }
    return t;
  }
  // A draw is [stream, i, u] (replay format 4) or {stream, i, u} (formats 1-3).
  function isDraw(v) {
    return Array.isArray(v) && v.length === 3 && typeof v[0] === "string" && Number.isInteger(v[1]) && typeof v[2] === "number";
  }
  function collectDraws(v, where, out) {
    if (isDraw(v)) out.push([where, { stream: v[0], i: v[1], u: v[2] }]);
    else if (Array.isArray(v)) v.forEach((x, i) => collectDraws(x, `${where}[${i}]`, out));
    else if (v && typeof v === "object") {
      if ("stream" in v && "i" in v && "u" in v) out.push([where, v]);
      else for (const [k, x] of Object.entries(v)) collectDraws(x, where ? `${where}.${k}` : k, out);
    }
  }

  // ---- the shared timeline: (turn, k) points, so two battles step through the same turn ----
  class Viewer {
    constructor(battles, startAt) {
      this.battles = battles;
      this.panes = battles.map((b, i) => new Pane(b, $(`.pane[data-pane="${i}"]`), this));
      const turns = [...new Set(battles.flatMap((b) => b.turns))].sort((a, b) => a - b);
      this.points = [[0, 0]];
      this.ends = [0];
      for (const t of turns) {
        const k = Math.max(...battles.map((b) => b.count.get(t) ?? 0));
        for (let j = 1; j <= k; j += 1) this.points.push([t, j]);
        this.ends.push(this.points.length - 1);
      }
      this.min = startAt ? this.pointOf(startAt.turn, startAt.k) : 0;
      this.slider = $("#slider");
      this.slider.min = String(this.min);
      this.slider.max = String(this.points.length - 1);
      this.slider.addEventListener("input", () => this.go(Number(this.slider.value)));
      this.timer = null;
      this.bind();
      this.go(this.min);
    }
    pointOf(turn, k) {
      const i = this.points.findIndex(([t, j]) => t === turn && j === k);
      if (i >= 0) return i;
      const after = this.points.findIndex(([t]) => t === turn);
      return after > 0 ? after - 1 : 0;
    }
    go(i) {
      this.i = Math.max(this.min, Math.min(this.points.length - 1, i));
      const [t, k] = this.points[this.i];
      this.slider.value = String(this.i);
      this.panes.forEach((p) => p.show(t === 0 ? 0 : p.b.index(t, k)));
      if (this.panes.length === 2) this.contrast();
      document.body.dataset.position = String(this.i);
      document.body.dataset.turn = String(t);
      const name = this.battles[0].meta.turn_name;
      const end = this.ends.includes(this.i);
      $("#where").textContent = this.i === 0 ? "start" : `${name} ${t}${end ? " (end)" : ""} · step ${this.i} of ${this.points.length - 1}`;
    }
    contrast() {
      // side by side: mark each unit whose place, strength or status differs from the other pane
      const [a, b] = this.panes.map((p) => {
        const rows = p.b.rowsAt(p.p);
        return new Map(p.b.units.map((u, i) => [u.id, JSON.stringify([rows[i].pos, rows[i].str, rows[i].status])]));
      });
      this.panes.forEach((p, side) => {
        const other = side === 0 ? b : a;
        const mine = side === 0 ? a : b;
        p.b.units.forEach((u, i) => {
          const differs = mine.get(u.id) !== other.get(u.id);
          p.cells[i].tr.classList.toggle("differs", differs);
          p.field.marks[i].classList.toggle("differs", differs);
        });
      });
    }
    gotoTurnEnd(turn) {
      const i = this.ends.find((e) => e > 0 && this.points[e][0] >= turn);
      this.go(i ?? this.points.length - 1);
    }
    gotoEvent(pane, i) {
      const e = pane.b.events[i];
      const k = i + 1 - pane.b.before.get(e.turn);
      this.go(this.pointOf(e.turn, k));
    }
    nextTurn() {
      const i = this.ends.find((e) => e > this.i);
      this.go(i ?? this.points.length - 1);
    }
    prevTurn() {
      const earlier = this.ends.filter((e) => e < this.i);
      this.go(earlier.length ? earlier[earlier.length - 1] : this.min);
    }
    play() {
      const btn = $("#play");
      if (this.timer) {
        clearInterval(this.timer);
        this.timer = null;
        btn.textContent = "▶ play";
        return;
      }
      btn.textContent = "❚❚ pause";
      this.timer = setInterval(() => {
        if (this.i >= this.points.length - 1) return this.play();
        if ($("#speed").value === "turn") this.nextTurn();
        else this.go(this.i + 1);
      }, 250);
    }
    bind() {
      const act = {
        first: () => this.go(this.min),
        prevturn: () => this.prevTurn(),
        prev: () => this.go(this.i - 1),
        play: () => this.play(),
        next: () => this.go(this.i + 1),
        nextturn: () => this.nextTurn(),
        last: () => this.go(this.points.length - 1),
      };
      for (const b of document.querySelectorAll("[data-act]")) {
        b.addEventListener("click", () => {
          act[b.dataset.act]();
          b.blur(); // keys go to the timeline, not to a focused button
        });
      }
      const keys = { ArrowLeft: "prev", ArrowRight: "next", PageUp: "prevturn", PageDown: "nextturn", Home: "first", End: "last", " ": "play" };
      document.addEventListener("keydown", (ev) => {
        const tag = ev.target.tagName;
        if (tag === "SELECT" || (tag === "INPUT" && ev.target.type !== "range")) return;
        if (ev.altKey || ev.ctrlKey || ev.metaKey || !(ev.key in keys)) return;
        ev.preventDefault();
        act[keys[ev.key]]();
      });
    }
  }

  async function main() {
    const status = $("#status");
    try {
      const scripts = [...document.querySelectorAll("script.battle-data")];
      const data = await Promise.all(scripts.map(decode));
      const battles = data.map((d) => new Battle(d));
      const start = JSON.parse($("#timeline-start").textContent);
      window.battleViewer = new Viewer(battles, start);
      status.textContent = "";
      document.body.classList.add("ready");
    } catch (err) {
      status.textContent = `The viewer could not start: ${err}`;
      throw err;
    }
  }
  main();
})();
