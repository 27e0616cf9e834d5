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
  // a name holding a right-to-left letter (Hebrew, Arabic...) is isolated in a <bdi> where a
  // line tells it, or "عربي: 42 men" reorders into "42 :عربي men"; the same test as the page's
  // static parts (sim/replay/viewer/page.py, isolated)
  const RTL = /[\p{Script=Hebrew}\p{Script=Arabic}\p{Script=Syriac}\p{Script=Thaana}\p{Script=Nko}\p{Script=Samaritan}\p{Script=Mandaic}\p{Script=Adlam}]/u;
  function namesPattern(names) {
    const rtl = [...new Set(names.filter((n) => RTL.test(n)))].sort((a, b) => b.length - a.length);
    if (!rtl.length) return null;
    return new RegExp(rtl.map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|"), "gu");
  }
  // TEXT appended to NODE, each right-to-left name in it (PATTERN) in a <bdi> of its own
  function withNames(node, text, pattern) {
    if (pattern === null) {
      node.append(text);
      return node;
    }
    let at = 0;
    for (const m of text.matchAll(pattern)) {
      node.append(text.slice(at, m.index), el("bdi", {}, m[0]));
      at = m.index + m[0].length;
    }
    node.append(text.slice(at));
    return node;
  }
  const TERRAIN = { woods: "#9cc48a", forest: "#9cc48a", stone_wall: "#a9a9a9", wall: "#a9a9a9", fence: "#c9a77c", hedge: "#b5c46a", breastworks: "#cdb38b", river: "#8fbbe0", stream: "#a8cbe8", water: "#8fbbe0", town: "#c79a8a", village: "#c79a8a", road: "#ddd0b0", hill: "#d8cc9a", marsh: "#a9c9b8" };
  const tintOf = (name) => TERRAIN[name] || `hsl(${(hashText(name) % 12) * 30}, 35%, 72%)`;
  // TEXT in NODE, a line allowed to break after each "_" (task_force, new_orleans) by a <wbr>,
  // which copies as nothing: never inside a run of letters
  function breakable(node, text) {
    node.replaceChildren();
    String(text).split("_").forEach((part, k) => {
      if (k) node.append("_", el("wbr"));
      node.append(part);
    });
    return node;
  }
  const fmt = (v) => (typeof v === "number" && !Number.isInteger(v) ? v.toFixed(1) : String(v));
  const posText = (pos) => (pos === null ? "off the field" : pos.map(fmt).join(", "));
  // a number as the replay holds it (the shortest text that reads back as it): the Details
  // panel's inputs and draws, which a player checks by hand, are never rounded
  const exact = (v) => String(v);
  // plain data as words: lists joined by commas, mappings as "key value", nothing as "none"
  function words(v, num = fmt) {
    if (v === null || v === undefined) return "none";
    if (Array.isArray(v)) return v.length ? v.map((x) => words(x, num)).join(", ") : "none";
    if (typeof v === "object") {
      const parts = Object.entries(v).map(([k, x]) => `${k.replaceAll("_", " ")} ${words(x, num)}`);
      return parts.length ? parts.join(", ") : "none";
    }
    if (typeof v === "boolean") return v ? "yes" : "no";
    return num(v);
  }

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
      this.rtlNames = namesPattern([...this.units.map((u) => u.name), ...this.sides.map((s) => s.name)]);
      this.cache = { p: -1, rows: null };
      // a row's details as the table shows them (the ruleset's shown_details), where they
      // differ from its own: kept beside the rows ("shown"), which keep every detail
      this.shownOf = new WeakMap();
      for (const k of this.keyframes) for (const [u, d] of k.shown ?? []) this.shownOf.set(k.rows[u], d);
      for (const e of this.events) {
        if (!e.shown) continue;
        const changed = new Map(e.delta);
        for (const [u, d] of e.shown) this.shownOf.set(changed.get(u), d);
      }
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
      this.fixed = []; // labels that never move (objectives, places)
      this.drawGround(sp);
      const legend = this.legend(sp);
      if (legend) host.append(legend);
      this.routes = svg("g", { class: "routes" });
      this.layer = svg("g", { class: "units" });
      this.shots = svg("g", { class: "shots" });
      this.root.append(this.routes, this.layer, this.shots);
      this.marks = battle.units.map((u, i) => this.mark(u, i));
      this.at = battle.units.map(() => null); // [x, y, radius] of each visible mark
      this.shown = [];
      this.shotLabels = [];
      this.aloftAt = new Map(); // unit index -> [x, y, radius] of a strike drawn in flight
      this.labels = new Labels(this.root);
      this.fixedBoxes = this.labels.place(this.fixed, []);
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
    // the terrain drawn on the map, one swatch of its tint per kind, with what it does
    legend(sp) {
      const seen = new Map();
      for (const f of sp.features) {
        if (f.kind === "terrain" && !seen.has(f.name)) seen.set(f.name, f);
      }
      if (!seen.size) return null;
      const list = el("ul", { class: "terrain-legend" });
      for (const [name, f] of seen) {
        const item = el("li", { "data-name": name });
        item.append(el("span", { class: "tint", style: `background: ${tintOf(name)}` }));
        const more = Object.keys(f.details || {}).length ? ` (${words(f.details)})` : "";
        item.append(document.createTextNode(`${name.replaceAll("_", " ")}${more}`));
        list.append(item);
      }
      return list;
    }
    feature(f, i) {
      const g = svg("g", { class: `feature ${f.kind}`, "data-name": f.name });
      const tint = tintOf(f.name);
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
        const text = svg("text", { class: "flabel", x, y }, f.name);
        text.append(svg("title", {}, `${f.kind}: ${f.name}`));
        g.append(text);
        this.fixed.push({ node: text, x, y, r: this.size() * 0.55, full: f.name });
      }
      g.append(svg("title", {}, `${f.kind}: ${f.name}`));
      return g;
    }
    size() {
      return this.hex ? this.s : Math.min(16, Math.max(9, 2.5 * this.k));
    }
    mark(u, i) {
      const g = svg("g", { class: `unit side-${u.sidex}`, "data-unit": u.id, "data-index": i });
      g.append(svg("path", { class: "facing", d: "" }));
      g.append(svg("circle", { class: "body", r: 6 }));
      g.append(svg("path", { class: "cross", d: "" }));
      g.append(svg("rect", { class: "bar-back" }), svg("rect", { class: "bar" }));
      const label = svg("text", { class: "ulabel" }, u.label);
      label.append(svg("title", {}, `${u.name} (${u.side_name})`));
      g.append(label);
      g.append(svg("title", {}));
      this.layer.append(g);
      return g;
    }
    show(rows, selected, shots = null) {
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
      if (routes) {
        this.routes.replaceChildren();
        this.aloftAt.clear();
      }
      rows.forEach((r, i) => {
        const slot = place.get(i) ?? [0, 1];
        const was = this.shown[i];
        const same = was && was.row === r && was.slot.join() === slot.join() && was.chosen === (selected === i);
        if (!same) this.update(i, r, slot, selected === i);
        else if (routes && r.route) this.route(r.route, this.b.units[i]);
        this.shown[i] = { row: r, slot, chosen: selected === i };
      });
      this.drawShots(shots);
      this.placeLabels(selected);
    }
    drawShots(shots) {
      // the current event's fire, charges or strikes: a line from actor to target, and its result
      this.shots.replaceChildren();
      this.shotLabels = [];
      for (const [a, t, kind, result] of shots || []) {
        const [pa, pt] = [this.at[a] ?? this.aloftAt.get(a), this.at[t] ?? this.aloftAt.get(t)];
        if (!pa || !pt) continue;
        const [x1, y1, r1] = pa;
        const [x2, y2, r2] = pt;
        const d = Math.hypot(x2 - x1, y2 - y1);
        if (d <= r1 + r2 + 2) continue; // touching marks: no room for a line
        const [ux, uy] = [(x2 - x1) / d, (y2 - y1) / d];
        const [sx, sy] = [x1 + ux * r1, y1 + uy * r1];
        const [ex, ey] = [x2 - ux * (r2 + 1), y2 - uy * (r2 + 1)];
        const [actor, target] = [this.b.units[a], this.b.units[t]];
        const g = svg("g", { class: `shot-group ${kind}`, "data-actor": actor.id, "data-target": target.id, "data-result": result });
        g.append(svg("line", { class: `shot ${kind}`, x1: sx.toFixed(1), y1: sy.toFixed(1), x2: ex.toFixed(1), y2: ey.toFixed(1) }));
        const h = 3.5;
        const head = [[ex, ey], [ex - ux * h * 1.7 - uy * h, ey - uy * h * 1.7 + ux * h], [ex - ux * h * 1.7 + uy * h, ey - uy * h * 1.7 - ux * h]];
        g.append(svg("polygon", { class: `shot-head ${kind}`, points: head.map((p) => p.map((v) => v.toFixed(1)).join(",")).join(" ") }));
        const text = svg("text", { class: "shot-result" }, result);
        text.append(svg("title", {}, `${actor.name} → ${target.name}: ${result}`));
        g.append(text, svg("title", {}, `${actor.name} → ${target.name}: ${result}`));
        this.shots.append(g);
        this.shotLabels.push({ node: text, x: (sx + ex) / 2, y: (sy + ey) / 2, r: 2, full: result, short: result.split(/[;,]/)[0], local: false });
      }
    }
    placeLabels(selected) {
      // the selected unit first, then in unit order; each label goes where it overlaps no other
      const order = this.b.units.map((_, i) => i).filter((i) => this.at[i] !== null);
      if (selected !== null && this.at[selected] !== null) order.sort((a, b) => (b === selected) - (a === selected));
      const items = order.map((i) => {
        const [x, y, r] = this.at[i];
        const u = this.b.units[i];
        return { node: this.marks[i].querySelector(".ulabel"), x, y, r, full: u.label, short: u.short, local: true };
      });
      for (const plane of this.routes.querySelectorAll(".aloft")) {
        const [x, y] = plane.dataset.at.split(",").map(Number);
        const u = this.b.units[this.b.unitIndex.get(plane.dataset.unit)];
        items.push({ node: plane.querySelector("text"), x, y, r: 7, full: u.label, short: u.short, local: true });
      }
      // no label over a mark either: the marks are what a reader clicks
      const marks = [...order.map((i) => this.at[i]), ...this.aloftAt.values()].map(([x, y, r]) => [x - r, y - r * 1.45 - 2, x + r, y + r]);
      // the objectives' names first, clear of every mark where the units now stand (a unit
      // on an objective would hide it), then the units' and the shots' clear of them too
      const fixedBoxes = this.labels.place(this.fixed, marks);
      this.labels.place([...this.shotLabels, ...items], fixedBoxes);
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
      const title = g.querySelector(":scope > title"); // the mark's own, not its label's
      title.textContent = `${u.name} (${u.side_name}, ${u.kind}) at ${posText(r.pos)}: ${fmt(r.str)}/${fmt(u.initial.value)} ${u.initial.unit}${r.status.length ? " — " + r.status.join(", ") : ""}`;
      if (r.route) this.route(r.route, u);
      if (r.pos === null) {
        g.setAttribute("visibility", "hidden");
        this.at[i] = null;
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
      body.setAttribute("fill-opacity", (0.35 + 0.65 * frac).toFixed(2));
      const c = rad * 0.7;
      g.querySelector(".cross").setAttribute("d", `M${-c},${-c}L${c},${c}M${-c},${c}L${c},${-c}`);
      // strength: a bar across the top of the mark, full at the unit's starting strength
      const bw = Math.max(8, rad * 2.2);
      const bh = Math.max(1.6, rad * 0.32);
      const by = -rad - bh - 1;
      for (const [cls, w] of [["bar-back", bw], ["bar", bw * frac]]) {
        const bar = g.querySelector(`.${cls}`);
        bar.setAttribute("x", (-bw / 2).toFixed(1));
        bar.setAttribute("y", by.toFixed(1));
        bar.setAttribute("width", w.toFixed(1));
        bar.setAttribute("height", bh.toFixed(1));
      }
      g.dataset.fraction = frac.toFixed(3);
      // facing (rulesets whose units face a way): a wedge from the mark's edge
      const facing = g.querySelector(".facing");
      if (typeof r.facing === "number") {
        const t = ((r.facing - 90) * Math.PI) / 180;
        const tip = [Math.cos(t) * rad * 1.7, Math.sin(t) * rad * 1.7];
        const side = (d) => [Math.cos(t + d) * rad * 0.9, Math.sin(t + d) * rad * 0.9];
        const [a, b] = [side(0.6), side(-0.6)];
        facing.setAttribute("d", `M${a[0].toFixed(1)},${a[1].toFixed(1)}L${tip[0].toFixed(1)},${tip[1].toFixed(1)}L${b[0].toFixed(1)},${b[1].toFixed(1)}Z`);
        g.dataset.facing = String(r.facing);
      } else {
        facing.setAttribute("d", "");
        delete g.dataset.facing;
      }
      this.at[i] = [x, y, rad];
    }
    route(points, u) {
      const line = points.map((p) => this.xy(p).map((v) => v.toFixed(1)).join(",")).join(" ");
      const path = svg("polyline", { class: `route side-${u.sidex}`, points: line });
      path.append(svg("title", {}, `${u.name} in flight`));
      this.routes.append(path);
      const [x, y] = points.length > 1 ? midpoint(this.xy(points[0]), this.xy(points[points.length - 1])) : this.xy(points[0]);
      const plane = svg("g", { class: `aloft side-${u.sidex}`, "data-unit": u.id, "data-at": `${x.toFixed(1)},${y.toFixed(1)}`, transform: `translate(${x.toFixed(1)},${y.toFixed(1)})` });
      const label = svg("text", { y: 16 }, u.label);
      label.append(svg("title", {}, `${u.name} (${u.side_name}) in flight`));
      this.aloftAt.set(this.b.unitIndex.get(u.id), [x, y, 7]);
      plane.append(svg("polygon", { points: "0,-7 5,6 0,3 -5,6" }), label);
      this.routes.append(plane);
    }
  }
  // ---- labels that never overlap: each tries places around its mark, then a shorter text ----
  class Labels {
    constructor(root) {
      this.root = root;
      this.sizes = new Map(); // "class|text" -> [width, ascent, descent]
    }
    size(node, text) {
      const key = `${node.getAttribute("class") || node.parentNode.getAttribute("class")}|${text}`;
      if (!this.sizes.has(key)) {
        const was = [node.textContent, node.style.display];
        const kids = [...node.childNodes].filter((c) => c.nodeType !== 3);
        node.textContent = text;
        node.style.display = "";
        node.setAttribute("x", "0");
        node.setAttribute("y", "0");
        const b = node.getBBox();
        this.sizes.set(key, [b.width, -b.y, b.y + b.height]);
        node.textContent = was[0];
        node.append(...kids);
        node.style.display = was[1];
      }
      return this.sizes.get(key);
    }
    // items: {node, x, y, r, full, short, local}; x, y the mark's centre in the field's units
    // (local: the label sits in the mark's group, so it is placed relative to the mark)
    place(items, taken) {
      const boxes = taken.slice();
      const free = (b) => boxes.every((o) => b[2] <= o[0] || o[2] <= b[0] || b[3] <= o[1] || o[3] <= b[1]);
      for (const it of items) {
        const kids = [...it.node.childNodes].filter((c) => c.nodeType !== 3);
        let done = false;
        for (const text of [it.full, it.short].filter((t, k, all) => t && all.indexOf(t) === k)) {
          const [w, up, down] = this.size(it.node, text);
          const h = up + down;
          const g = 1;
          const spots = [
            [0, it.r + g + up], // below
            [0, -it.r - 5 - down], // above (clear of the strength bar)
            [it.r + g + w / 2, up - h / 2], // right
            [-it.r - g - w / 2, up - h / 2], // left
            [it.r + w / 2, it.r + up], // below right
            [-it.r - w / 2, it.r + up], // below left
            [it.r + w / 2, -it.r - down - 3], // above right
            [-it.r - w / 2, -it.r - down - 3], // above left
            [0, it.r + g + up + h], // further below
            [0, -it.r - 5 - down - h], // further above
          ];
          for (const [dx, dy] of spots) {
            const bx = it.x + dx;
            const by = it.y + dy;
            const box = [bx - w / 2, by - up, bx + w / 2, by + down];
            if (!free(box)) continue;
            it.node.textContent = text;
            it.node.append(...kids);
            it.node.setAttribute("x", (it.local ? dx : bx).toFixed(1));
            it.node.setAttribute("y", (it.local ? dy : by).toFixed(1));
            it.node.style.display = "";
            it.node.dataset.shown = text === it.full ? "full" : "short";
            boxes.push(box);
            done = true;
            break;
          }
          if (done) break;
        }
        if (!done) {
          it.node.style.display = "none"; // no room: the full name is on the mark's hover
          it.node.dataset.shown = "none";
        }
      }
      return boxes;
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
      this.at = -1;
      this.field = new Field(battle, $(".map", host));
      this.field.marks.forEach((g, i) => activatable(g, () => this.pickUnit(i)));
      // a strike in flight is drawn afresh at each step: its plane, clicked, is its unit
      this.field.routes.addEventListener("click", (ev) => {
        const plane = ev.target.closest(".aloft[data-unit]");
        if (plane) this.pickUnit(this.b.unitIndex.get(plane.dataset.unit));
      });
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
        name.append(el("span", { class: "swatch" }), el("bdi", {}, u.name));
        const side = el("td");
        side.append(el("bdi", {}, u.side_name));
        const cells = [name, side, breakable(el("td"), u.kind)];
        const live = ["pos", "str", "status", "more"].map((c) => el("td", { class: c }));
        tr.append(...cells, ...live);
        activatable(tr, () => this.pickUnit(i));
        body.append(tr);
        return { tr, live };
      });
      table.append(body);
      return table;
    }
    show(p, at = p) {
      // p: the events applied (the narrative's place); at: those the map and table show
      this.p = p;
      this.at = at;
      const rows = this.b.rowsAt(at);
      this.field.show(rows, this.selected, p > 0 ? this.b.events[p - 1].shots : null);
      rows.forEach((r, i) => {
        const was = this.tableShown[i];
        if (!was || was.row !== r || was.chosen !== (this.selected === i)) this.row(i, r);
        this.tableShown[i] = { row: r, chosen: this.selected === i };
      });
      if (this.nowLine && this.nowLine.isConnected && this.selected !== null) {
        this.nowLine.textContent = this.nowText(this.selected); // the details keep the moment
      }
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
      const details = this.b.shownOf.get(r) ?? r.details;
      const more = Object.entries(details || {}).map(([k, v]) => `${k.replaceAll("_", " ")} ${words(v)}`).join("; ");
      breakable(live[3], more);
      live[3].title = more;
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
        li.append(el("span", { class: "seq" }, `[${e.seq}]`));
        withNames(li, " " + this.told(e), b.rtlNames);
        activatable(li, () => this.pickEvent(i, true));
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
    nowText(i) {
      // the selected unit at the moment the map and table show
      const u = this.b.units[i];
      const r = this.b.rowsAt(this.at)[i];
      return `Now at ${posText(r.pos)}; ${u.initial.name} ${fmt(r.str)} of ${fmt(u.initial.value)} ${u.initial.unit}${r.status.length ? "; " + r.status.join(", ") : ""}.`;
    }
    pickUnit(i) {
      this.selected = i;
      this.show(this.p, this.at);
      const u = this.b.units[i];
      const box = this.info;
      const h3 = el("h3");
      h3.append(el("bdi", {}, u.name), " — ", el("bdi", {}, u.side_name), ` ${u.kind}`);
      box.replaceChildren(h3);
      this.nowLine = el("p", { class: "now" }, this.nowText(i));
      box.append(this.nowLine);
      const n = this.b.byUnit[i].length;
      const told = n === 0 ? "no event names it." : n === 1 ? "1 event names it (click it to go there)." : `${n} events name it (click one to go there).`;
      box.append(el("p", { class: "muted" }, `Its history: ${told}`));
      const ol = el("ol", { class: "history" });
      for (const j of this.b.byUnit[i].slice(0, 400)) {
        const e = this.b.events[j];
        const li = withNames(el("li", { "data-i": j }), `[${e.seq}] ${this.told(e)}`, this.b.rtlNames);
        li.addEventListener("click", () => this.pickEvent(j, true));
        ol.append(li);
      }
      if (this.b.byUnit[i].length > 400) ol.append(el("li", { class: "muted" }, "… (first 400 shown)"));
      box.append(ol);
    }
    pickEvent(i, jump) {
      const early = jump ? this.v.gotoEvent(this, i) : false;
      const b = this.b;
      const e = b.events[i];
      const d = b.detail(i);
      const box = this.info;
      box.replaceChildren(el("h3", {}, `Event seq ${e.seq} — ${e.type}, ${b.meta.turn_name} ${e.turn}`));
      if (early) {
        box.append(el("p", { class: "muted early" }, "Before the timeline, which starts where the battles part: both were the same here. The map and the table show the timeline's start."));
      }
      box.append(withNames(el("p", { class: "line" }), this.told(e), b.rtlNames));
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
    for (const c of cells) tr.append(el(tag, {}, exact(c)));
    return tr;
  }
  function kvTable(obj, skip) {
    const t = el("table", { class: "kv" });
    for (const [k, v] of Object.entries(obj)) {
      if (skip.has(k)) continue;
      const tr = el("tr");
      tr.append(el("th", {}, k), el("td", {}, words(v, exact)));
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
      const end = this.ends.includes(this.i);
      this.panes.forEach((p) => {
        const i = t === 0 ? 0 : p.b.index(t, k);
        // a large battle's map and table change at turn ends only: until the shared
        // timeline's end of this turn they show its start, even in a pane whose own
        // events of the turn are all applied (else the panes compare two moments)
        p.show(i, p.b.meta.frames === "turn" && !end && p.b.before.has(t) ? p.b.before.get(t) : i);
      });
      if (this.panes.length === 2) this.contrast();
      document.body.dataset.position = String(this.i);
      document.body.dataset.turn = String(t);
      const name = this.battles[0].meta.turn_name;
      $("#where").textContent = this.i === 0 ? "start" : `${name} ${t}${end ? " (end)" : ""} · step ${this.i} of ${this.points.length - 1}`;
    }
    contrast() {
      // side by side: mark each unit whose place, strength or status differs from the other pane
      const [a, b] = this.panes.map((p) => {
        const rows = p.b.rowsAt(p.at);
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
      if (turn <= 0) return this.go(0); // a chart's turn 0 is the start, before any event
      const i = this.ends.find((e) => e > 0 && this.points[e][0] >= turn);
      this.go(i ?? this.points.length - 1);
    }
    gotoEvent(pane, i) {
      // true when the event comes before the timeline (a diff's starts at the divergence)
      const e = pane.b.events[i];
      const k = i + 1 - pane.b.before.get(e.turn);
      const target = this.pointOf(e.turn, k);
      this.go(target);
      return target < this.min;
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
      // the speed chosen, the keys go back to the timeline (a focused select keeps them)
      $("#speed").addEventListener("change", (ev) => ev.target.blur());
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

  function activatable(node, act) {
    // clicked, or reached with Tab and opened with Enter, as a button is
    node.setAttribute("tabindex", "0");
    node.setAttribute("role", "button");
    node.addEventListener("click", act);
    node.addEventListener("keydown", (ev) => {
      if (ev.key === "Enter") {
        ev.preventDefault();
        act();
      }
    });
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
