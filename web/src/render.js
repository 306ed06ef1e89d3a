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

/** Render Graphviz DOT into an element as an SVG picture with a text alternative. */
export async function drawDot(dot, alt) {
  const figure = el("figure", { class: "ember-figure" });
  try {
    const svg = (await viz()).renderSVGElement(dot);
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

async function graph(item) {
  const box = el("div", { class: "ember-graph" });
  box.append(tableFrom(item.table));
  box.append(await drawDot(item.dot, "The graph of the computation: values, operations and gradients"));
  return box;
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
  const say = el("p", { class: "ember-step-text", "aria-live": "polite" });
  const panels = el("div", { class: "ember-panels" });
  const counter = el("span", { class: "ember-step-count" });
  let at = 0;
  let timer = null;
  const show = () => {
    const event = events[at];
    counter.textContent = `step ${at + 1} of ${events.length}${truncated ? "+" : ""}`;
    say.textContent = SORT_WORDS[event.kind] ? SORT_WORDS[event.kind](event) : `${event.kind} ${event.node}`;
    panels.replaceChildren(
      list("stack (top last)", event.stack.map(([name, done]) => `${name}${done ? " ✓ parents done" : ""}`), "stack"),
      list("seen", event.seen, "seen"),
      list("order so far", event.order, "order"),
    );
    for (const node of picture.querySelectorAll("g.node")) {
      const title = node.querySelector("title");
      node.classList.toggle("ember-current", title && title.textContent === `n${event.index}`);
    }
  };
  const stop = () => {
    clearInterval(timer);
    timer = null;
    play.textContent = "Play";
  };
  const back = el("button", { class: "md-button", onclick: () => { stop(); at = Math.max(0, at - 1); show(); } }, "Back");
  const next = el("button", { class: "md-button", onclick: () => { stop(); at = Math.min(events.length - 1, at + 1); show(); } }, "Next");
  const play = el("button", {
    class: "md-button",
    onclick: () => {
      if (timer) return stop();
      play.textContent = "Pause";
      timer = setInterval(() => (at < events.length - 1 ? (at++, show()) : stop()), 700);
    },
  }, "Play");
  box.append(el("div", { class: "ember-step-controls" }, back, next, play, counter), say, picture, panels);
  if (events.length) show();
  return box;
}

const num = (x) => (x === null || x === undefined ? "?" : String(Number.isInteger(x) ? x : +x.toPrecision(6)));

/** One card per edge of the backward pass: upstream × local = share, before → after. */
function backwardCards(item) {
  const { edges, error } = item.trace;
  const box = el("div", { class: "ember-cards", "data-kind": "backward" });
  for (const edge of edges) {
    box.append(el("div", { class: "ember-card" },
      el("div", { class: "ember-card-title", text: `${edge.output} → ${edge.input}` }),
      el("div", { text: `${num(edge.upstream)} × ${num(edge.local)} = ${num(edge.share)}` }),
      el("div", { class: "ember-card-grad", text: `${edge.input}.grad: ${num(edge.grad_before)} → ${num(edge.grad_after)}` }),
    ));
  }
  if (error) box.append(el("p", { class: "ember-error", text: error }));
  return box;
}

/** Render every output item of a cell run, in order. */
export async function renderOutputs(target, outputs) {
  for (const item of outputs) {
    if (item.kind === "stdout" || item.kind === "stderr") target.append(el("pre", { class: `ember-${item.kind}`, text: item.text }));
    else if (item.kind === "graph") target.append(await graph(item));
    else if (item.kind === "sort") target.append(await sortStepper(item));
    else if (item.kind === "backward") target.append(backwardCards(item));
  }
}
