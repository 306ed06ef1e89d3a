// Drawing what Python sends back: text, node tables, Graphviz pictures, and the two step-throughs.
// Text always goes in through textContent; the only HTML inserted is the node table built (and
// escaped) by hx, and SVG elements made by viz.js.

let vizInstance = null;

/** viz.js, loaded from the site itself the first time a picture is drawn. */
async function viz() {
  if (!vizInstance) {
    const module = await import(new URL("./viz.js", import.meta.url).href);
    vizInstance = await module.instance();
  }
  return vizInstance;
}

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (value !== false && value !== null && value !== undefined) node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children) if (child) node.append(child);
  return node;
}

/** A Graphviz picture's own width in CSS pixels (Graphviz sizes pictures in points). */
const naturalWidth = (svg) => (parseFloat(svg.getAttribute("width")) || 0) * (4 / 3);
const SMALLEST = 0.65; // a picture never shrinks below this share of its own size (see ember.css)
// A record label as hx writes it, { name | data 2 | grad 28 }: in a top-to-bottom picture, braces stack the fields.
const RECORD = /label="\{ ((?:[^"\\]|\\.)*) \}"/g;

/**
 * Render Graphviz DOT into an element as an SVG picture with a text alternative. ``room`` is the
 * width the picture gets, when known: a left-to-right picture too wide for it even at its smallest
 * is laid out top to bottom instead, when that makes it narrower.
 */
export async function drawDot(dot, alt, room = 0) {
  const figure = el("figure", { class: "ember-figure" });
  try {
    const instance = await viz();
    let svg = instance.renderSVGElement(dot);
    if (room > 0 && naturalWidth(svg) * SMALLEST > room && /rankdir=LR/.test(dot)) {
      // Top to bottom, each box's fields first side by side (a record's outer braces dropped), then
      // stacked: the first that fits, else the narrowest.
      const upright = dot.replace(/rankdir=LR/g, "rankdir=TB");
      for (const layout of [upright.replace(RECORD, 'label="$1"'), upright]) {
        const candidate = instance.renderSVGElement(layout);
        if (naturalWidth(candidate) >= naturalWidth(svg)) continue;
        svg = candidate;
        if (naturalWidth(svg) * SMALLEST <= room) break;
      }
    }
    // The picture shrinks to fit the column, but not below 65% of its natural size (its labels
    // would be unreadable): past that it scrolls in its own box.
    const natural = naturalWidth(svg);
    if (natural) svg.style.setProperty("--natural", String(Math.round(natural)));
    svg.classList.add("ember-dot");
    svg.setAttribute("role", "img");
    svg.setAttribute("aria-label", alt);
    figure.append(svg);
  } catch (error) {
    figure.append(el("p", { class: "ember-error", text: `Could not draw the graph: ${error.message || error}` }));
  }
  return figure;
}

function tableFrom(html) {
  const holder = el("div", { class: "ember-table" });
  holder.innerHTML = html; // built by hx with every label escaped
  return holder;
}

async function graph(item, target) {
  const box = el("div", { class: "ember-graph" });
  if (item.title) box.append(el("h4", { class: "ember-graph-title", text: item.title }));
  box.append(el("p", { class: "ember-graph-counts", text: `${item.nodes} nodes, ${item.edges} backward edges` }));
  const body = el("div", { class: "ember-graph-body" }, tableFrom(item.table));
  const alt = `${item.title || "The graph"}: ${item.nodes} nodes and ${item.edges} backward edges, with values and gradients`;
  body.append(await drawDot(item.dot, alt, roomIn(target, 1, 100000)));
  box.append(body);
  return box;
}

async function pair(item) {
  const box = el("div", { class: "ember-pair" });
  for (const one of item.graphs) box.append(await graph(one));
  return box;
}

const SVG = "http://www.w3.org/2000/svg";

function svg(tag, attrs = {}, text = null) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  if (text !== null) node.textContent = text;
  return node;
}

/** A scale from data to pixels, linear or logarithmic (base 10). */
function scale(values, log, from, to) {
  const t = (v) => (log ? Math.log10(v) : v);
  let lo = Math.min(...values.map(t));
  let hi = Math.max(...values.map(t));
  if (!(hi > lo)) { lo -= 1; hi += 1; }
  const map = (v) => from + ((t(v) - lo) / (hi - lo)) * (to - from);
  const ticks = [];
  if (log) for (let e = Math.ceil(lo); e <= Math.floor(hi); e += Math.max(1, Math.ceil((hi - lo) / 6))) ticks.push(10 ** e);
  else {
    const rough = (hi - lo) / 4;
    const power = 10 ** Math.floor(Math.log10(rough));
    const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= rough);
    for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) ticks.push(+v.toPrecision(12));
  }
  return { map, ticks };
}

const tickText = (v) => (Math.abs(v) >= 1e4 || (Math.abs(v) < 1e-2 && v !== 0) ? v.toExponential(0) : String(+v.toPrecision(3)));

/**
 * The width a picture gets in ``target`` (the cell's output), within [low, high]; ``high`` where it
 * cannot be measured. Pictures are laid out at this width and drawn at their own size, so their
 * text keeps the size the style sheet gives it (11 px and up) on a phone too, instead of shrinking
 * with the whole picture.
 */
function roomIn(target, low, high) {
  const room = target && target.isConnected ? target.clientWidth : 0;
  return room > 0 ? Math.max(low, Math.min(high, Math.floor(room))) : high;
}

/** A line plot with optional log axes, coloured by the theme, as wide as its place allows. */
function plot(item, target) {
  const width = roomIn(target, 280, 560), left = 64, right = 16, top = 28, bottom = 44;
  const height = Math.round(Math.max(230, Math.min(300, width * 0.6)));
  const points = item.series.flatMap((line) => line.points);
  const figure = el("figure", { class: "ember-figure ember-plot", "data-key": item.key || "" });
  const picture = svg("svg", { viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": item.alt, width, height });
  if (!points.length) {
    figure.append(el("p", { text: "(nothing to plot yet)" }));
    return figure;
  }
  const x = scale(points.map((p) => p[0]), item.log_x, left, width - right);
  const y = scale(points.map((p) => p[1]), item.log_y, height - bottom, top);
  picture.append(svg("line", { x1: left, y1: height - bottom, x2: width - right, y2: height - bottom, class: "ember-axis" }));
  picture.append(svg("line", { x1: left, y1: top, x2: left, y2: height - bottom, class: "ember-axis" }));
  for (const tick of x.ticks) picture.append(svg("text", { x: x.map(tick), y: height - bottom + 16, "text-anchor": "middle", class: "ember-tick" }, tickText(tick)));
  for (const tick of y.ticks) picture.append(svg("text", { x: left - 6, y: y.map(tick) + 4, "text-anchor": "end", class: "ember-tick" }, tickText(tick)));
  picture.append(svg("text", { x: (left + width - right) / 2, y: height - 6, "text-anchor": "middle", class: "ember-label" }, item.x_label + (item.log_x ? " (log)" : "")));
  picture.append(svg("text", { x: 14, y: top - 10, class: "ember-label" }, item.y_label + (item.log_y ? " (log)" : "")));
  const legend = el("ul", { class: "ember-legend" });
  item.series.forEach((line, index) => {
    const d = line.points.map((p, i) => `${i ? "L" : "M"}${x.map(p[0]).toFixed(1)},${y.map(p[1]).toFixed(1)}`).join(" ");
    picture.append(svg("path", { d, class: `ember-line ember-line-${index % 4}`, fill: "none" }));
    legend.append(el("li", {}, el("span", { class: `ember-swatch ember-swatch-${index % 4}`, "aria-hidden": "true" }), line.name));
  });
  figure.append(picture);
  if (item.series.length > 1 || item.series[0]?.name) figure.append(legend);
  if (item.title) figure.append(el("figcaption", { text: item.title }));
  return figure;
}

/** The plane coloured by a model's output, with the labelled points on top. */
function boundary(item, target) {
  const size = roomIn(target, 200, 320);
  const [x0, x1, y0, y1] = item.extent;
  const n = item.resolution;
  const cell = size / n;
  const figure = el("figure", { class: "ember-figure ember-boundary", "data-key": item.key || "" });
  const picture = svg("svg", { viewBox: `0 0 ${size} ${size}`, role: "img", "aria-label": item.alt, width: size, height: size });
  item.values.forEach((value, index) => {
    const strength = Math.min(1, Math.abs(value)) * 0.55 + 0.1;
    picture.append(svg("rect", {
      x: (index % n) * cell, y: Math.floor(index / n) * cell, width: cell + 0.5, height: cell + 0.5,
      class: value > 0 ? "ember-plus" : "ember-minus", "fill-opacity": strength.toFixed(2),
    }));
  });
  for (const [px, py, label] of item.points) {
    picture.append(svg("circle", {
      cx: ((px - x0) / (x1 - x0)) * size, cy: ((y1 - py) / (y1 - y0)) * size, r: 4.5,
      class: label > 0 ? "ember-point-plus" : "ember-point-minus",
    }));
  }
  figure.append(picture);
  figure.append(el("figcaption", { text: item.title || item.alt }));
  return figure;
}

/** A table of plain text cells. */
function table(item) {
  const box = el("div", { class: "ember-table" });
  if (item.title) box.append(el("h4", { text: item.title }));
  const head = el("tr", {}, ...item.headers.map((h) => el("th", { text: h })));
  const rows = item.rows.map((row) => el("tr", {}, ...row.map((v) => el("td", { text: v, class: /^[-\d.e+]+$/.test(v) ? "hx-num" : "" }))));
  box.append(el("table", { class: "hx-table" }, el("thead", {}, head), el("tbody", {}, ...rows)));
  return box;
}

const count = (n) => n.toLocaleString("en-US");

/** Open a long text in a new tab (as a file of its own, so the page never has to lay it out). */
function openText(text, name) {
  const url = URL.createObjectURL(new Blob([text], { type: "text/plain;charset=utf-8" }));
  const link = el("a", { href: url, target: "_blank", rel: "noopener", download: name });
  return link;
}

/** Printed text: all of it, or its first lines with the count of the rest and a way to see them all. */
function text(item) {
  const pre = el("pre", { class: `ember-${item.kind}`, text: item.text });
  if (!item.more_lines && !item.dropped_chars) return pre;
  const box = el("div", { class: "ember-text-flood" }, pre);
  const more = el("p", { class: "ember-more", text: `… ${count(item.more_lines)} more line${item.more_lines === 1 ? "" : "s"} (${count(item.total_lines)} in all). ` });
  const show = el("button", { class: "md-button", type: "button" }, "Open all of it in a new tab");
  show.addEventListener("click", () => {
    const link = openText(item.full, "output.txt");
    link.removeAttribute("download");
    link.click();
  });
  const save = el("button", { class: "md-button", type: "button" }, "Download it");
  save.addEventListener("click", () => openText(item.full, "output.txt").click());
  more.append(show, " ", save);
  if (item.dropped_chars) more.append(el("span", { text: ` Past the first ${count(item.full.length)} characters, ${count(item.dropped_chars)} were not kept.` }));
  box.append(more);
  return box;
}

/** The latest lines a running cell printed (sent in batches while it runs). */
function liveText(item) {
  const box = el("div", { class: "ember-live-text" }, el("pre", { class: `ember-${item.stream}`, text: item.text }));
  if (item.lines > 40) box.append(el("p", { class: "ember-more", text: `${count(item.lines)} lines so far; the latest are shown.` }));
  return box;
}

const DRAW_NOW = { plot, boundary, table, text: liveText };

/** Draw a keyed item while the cell still runs, replacing its earlier picture. */
export function renderLive(target, item) {
  const draw = DRAW_NOW[item.kind];
  if (!draw) return;
  const fresh = draw(item, target);
  fresh.dataset.key = item.key;
  const old = [...target.children].find((child) => child.dataset.key === item.key);
  if (old) old.replaceWith(fresh);
  else target.append(fresh);
}

function list(title, items, cls) {
  const box = el("div", { class: `ember-panel ${cls}` }, el("h4", { text: title }));
  const ol = el("ol");
  for (const text of items) ol.append(el("li", { text }));
  if (!items.length) ol.append(el("li", { class: "ember-empty", text: "(empty)" }));
  box.append(ol);
  return box;
}

const SORT_WORDS = {
  enter: (e) => `Pop ${e.node}: not seen yet, so mark it seen, push it back as "parents done", then push its parents.`,
  follow: (e) => `Push ${e.node}, a parent of ${e.via}.`,
  "skip-seen": (e) => `Pop ${e.node}: already seen, skip it.`,
  append: (e) => `Pop ${e.node} with its parents done: append it to the order.`,
};

/** The depth-first ordering, one event at a time: Back, Next, Play. */
async function sortStepper(item) {
  const { events, truncated } = item.trace;
  const box = el("div", { class: "ember-stepper", "data-kind": "sort" });
  const picture = await drawDot(item.dot, "The graph being ordered");
  return stepThrough(box, picture, events, truncated, (event) => ({
    text: SORT_WORDS[event.kind] ? SORT_WORDS[event.kind](event) : `${event.kind} ${event.node}`,
    panels: [
      list("stack (top last)", event.stack.map(([name, done]) => `${name}${done ? " ✓ parents done" : ""}`), "stack"),
      list("seen", event.seen, "seen"),
      list("order so far", event.order, "order"),
    ],
    node: `n${event.index}`,
  }));
}

/**
 * Back, Next and Play over a list of steps drawn on one picture. ``describe(step)`` answers the
 * step's sentence, its panels, and the title of the picture's node to mark (kept in view).
 */
function stepThrough(box, picture, steps, truncated, describe) {
  const say = el("p", { class: "ember-step-text", "aria-live": "polite" });
  const panels = el("div", { class: "ember-panels" });
  const counter = el("span", { class: "ember-step-count" });
  let at = 0;
  let timer = null;
  const show = () => {
    const step = describe(steps[at]);
    counter.textContent = `step ${at + 1} of ${steps.length}${truncated ? "+" : ""}`;
    say.textContent = step.text;
    panels.replaceChildren(...step.panels);
    for (const node of picture.querySelectorAll("g.node")) {
      const title = node.querySelector("title");
      const current = Boolean(step.node) && Boolean(title) && title.textContent === step.node;
      node.classList.toggle("ember-current", current);
      if (current) keepInView(picture, node);
    }
  };
  const stop = () => {
    clearInterval(timer);
    timer = null;
    play.textContent = "Play";
  };
  const back = el("button", { class: "md-button", onclick: () => { stop(); at = Math.max(0, at - 1); show(); } }, "Back");
  const next = el("button", { class: "md-button", onclick: () => { stop(); at = Math.min(steps.length - 1, at + 1); show(); } }, "Next");
  const play = el("button", {
    class: "md-button",
    onclick: () => {
      if (timer) return stop();
      play.textContent = "Pause";
      timer = setInterval(() => (at < steps.length - 1 ? (at++, show()) : stop()), 700);
    },
  }, "Play");
  box.append(el("div", { class: "ember-step-controls" }, back, next, play, counter), say, picture, panels);
  if (steps.length) show();
  return box;
}

/** Scroll a picture's own box (never the page) so that one of its parts is in view. */
function keepInView(box, part) {
  if (box.scrollWidth <= box.clientWidth && box.scrollHeight <= box.clientHeight) return;
  const outer = box.getBoundingClientRect();
  const inner = part.getBoundingClientRect();
  const margin = 24;
  if (inner.left < outer.left + margin || inner.right > outer.right - margin) {
    box.scrollLeft += inner.left - outer.left - (outer.width - inner.width) / 2;
  }
  if (inner.top < outer.top + margin || inner.bottom > outer.bottom - margin) {
    box.scrollTop += inner.top - outer.top - (outer.height - inner.height) / 2;
  }
}

const num = (x) => (x === null || x === undefined ? "?" : String(Number.isInteger(x) ? x : +x.toPrecision(6)));

/** One card per edge of the backward pass: the seed first, then step n: upstream × local = share, before → after. */
function backwardCards(item) {
  const { edges, error, seed, root, source, calls } = item.trace;
  const box = el("div", { class: "ember-cards", "data-kind": "backward", "data-source": source || "hx" });
  if (item.title) box.append(el("h4", { class: "ember-cards-title", text: item.title }));
  if (source === "yours") {
    const said = calls && calls.length ? calls.join(", ") : "(none)";
    box.append(el("p", { class: "ember-walk-order", text: `Your backward() called _backward on: ${said}` }));
  }
  if (root !== undefined && seed !== null && seed !== undefined) {
    box.append(el("div", { class: "ember-card ember-seed" },
      el("div", { class: "ember-card-title", text: "seed" }),
      el("div", { text: `${root}.grad = ${num(seed)}` }),
    ));
  }
  for (const edge of edges) {
    box.append(el("div", { class: "ember-card" },
      el("div", { class: "ember-card-title", text: `step ${edge.step + 1} · ${edge.output} → ${edge.input}` }),
      el("div", { text: `${num(edge.upstream)} × ${num(edge.local)} = ${num(edge.share)}` }),
      el("div", { class: "ember-card-grad", text: `${edge.input}.grad: ${num(edge.grad_before)} → ${num(edge.grad_after)}` }),
    ));
  }
  if (error) box.append(el("p", { class: "ember-error", text: error }));
  return box;
}

/** Two sets of backward cards side by side, each with its title. */
function backwardPair(item) {
  return el("div", { class: "ember-cards-pair" }, ...item.cards.map((cards) => backwardCards(cards)));
}

/** A heat map of f(x, y) with arrows on top (the gradient at a few points), axes in data units. */
function field(item, target) {
  const left = 44, bottom = 36, top = 8, right = 8;
  const size = roomIn(target, 200 + left + right, 320 + left + right) - left - right;
  const width = left + size + right, height = top + size + bottom;
  const [x0, x1, y0, y1] = item.extent;
  const n = item.resolution;
  const cell = size / n;
  const figure = el("figure", { class: "ember-figure ember-field" });
  const picture = svg("svg", { viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": item.alt, width, height });
  const reach = Math.max(Math.abs(item.low), Math.abs(item.high)) || 1;
  const diverging = item.low < 0 && item.high > 0;
  item.values.forEach((value, index) => {
    if (!Number.isFinite(value)) return;
    const share = diverging ? Math.abs(value) / reach : (value - item.low) / ((item.high - item.low) || 1);
    picture.append(svg("rect", {
      x: left + (index % n) * cell, y: top + Math.floor(index / n) * cell, width: cell + 0.5, height: cell + 0.5,
      class: diverging ? (value > 0 ? "ember-plus" : "ember-minus") : "ember-heat", "fill-opacity": (0.06 + 0.8 * share).toFixed(2),
    }));
  });
  const px = (x) => left + ((x - x0) / (x1 - x0)) * size;
  const py = (y) => top + ((y1 - y) / (y1 - y0)) * size;
  const longest = Math.max(...item.arrows.map(([, , dx, dy]) => Math.hypot(dx, dy)), 1e-12);
  for (const [ax, ay, dx, dy] of item.arrows) {
    const length = (Math.hypot(dx, dy) / longest) * size * 0.16;
    const angle = Math.atan2(-dy, dx); // screen y grows downward
    const [sx, sy] = [px(ax), py(ay)];
    const [ex, ey] = [sx + length * Math.cos(angle), sy + length * Math.sin(angle)];
    const wing = (turn) => `${(ex - 7 * Math.cos(angle + turn)).toFixed(1)},${(ey - 7 * Math.sin(angle + turn)).toFixed(1)}`;
    picture.append(svg("circle", { cx: sx, cy: sy, r: 2.5, class: "ember-arrow-base" }));
    picture.append(svg("line", { x1: sx, y1: sy, x2: ex, y2: ey, class: "ember-arrow" }));
    picture.append(svg("polygon", { points: `${ex.toFixed(1)},${ey.toFixed(1)} ${wing(0.45)} ${wing(-0.45)}`, class: "ember-arrow-head" }));
  }
  const xs = scale([x0, x1], false, left, left + size);
  const ys = scale([y0, y1], false, top + size, top);
  picture.append(svg("rect", { x: left, y: top, width: size, height: size, class: "ember-frame", fill: "none" }));
  for (const tick of xs.ticks) picture.append(svg("text", { x: xs.map(tick), y: top + size + 14, "text-anchor": "middle", class: "ember-tick" }, tickText(tick)));
  for (const tick of ys.ticks) picture.append(svg("text", { x: left - 5, y: ys.map(tick) + 4, "text-anchor": "end", class: "ember-tick" }, tickText(tick)));
  picture.append(svg("text", { x: left + size / 2, y: height - 4, "text-anchor": "middle", class: "ember-label" }, item.x_label));
  picture.append(svg("text", { x: 10, y: top + size / 2, "text-anchor": "middle", class: "ember-label", transform: `rotate(-90 10 ${top + size / 2})` }, item.y_label));
  figure.append(picture);
  figure.append(el("figcaption", { text: item.title || item.alt }));
  return figure;
}

/** A step-through whose steps Python wrote: a sentence, the node to mark in the picture, and lists. */
async function sortSteps(item) {
  const box = el("div", { class: "ember-stepper", "data-kind": "sort-steps" });
  if (item.title) box.append(el("h4", { text: item.title }));
  const picture = await drawDot(item.dot, `${item.title || "The graph"}: ${item.nodes} nodes`);
  return stepThrough(box, picture, item.events, false, (event) => ({
    text: event.text,
    panels: event.panels.map(([title, items]) => list(title, items, "walk")),
    node: event.node,
  }));
}

/** How each kind of output item is drawn once a cell is done (the shapes are made in labs/display.py). */
const DRAW = {
  stdout: text, stderr: text, graph, pair, plot, boundary, table, sort: sortStepper, backward: backwardCards,
  backward_pair: backwardPair, field, sort_steps: sortSteps,
};

/** Render every output item of a cell run, in order; a kind this page cannot draw says so. */
export async function renderOutputs(target, outputs) {
  for (const item of outputs) {
    const draw = DRAW[item.kind];
    target.append(draw ? await draw(item, target) : el("p", { class: "ember-error", text: `(this page cannot draw an item of kind "${item.kind}")` }));
  }
}
