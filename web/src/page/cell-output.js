// @ts-check
// Showing what Python sends back. Every output item comes with its HTML, made (and escaped) by
// labs/showing/render.py, the one renderer the notebook uses too. This file inserts it and adds only what
// moves: Graphviz pictures (viz.js fills each data-dot placeholder), Back / Next / Play over the
// frames of a step-through, live updates by key while a cell runs, and the buttons of long text.
// Whatever this file adds is marked data-ui. Text it makes goes in through textContent. The worker runs the
// learner's code, which can post the page any message: its HTML, and the pictures drawn from its DOT, go in
// only as sanitize.js cleans them.
import { el, saveFile } from "../base/dom.js";
import { safeFragment, safeSvg } from "../base/sanitize.js";

/** @typedef {import("../runtime/protocol.js").OutputItem} OutputItem  an item of a cell's output */

/** @type {import("@viz-js/viz").Viz | null} */
let vizInstance = null;

/**
 * viz.js, loaded from the site itself the first time a picture is drawn.
 *
 * @returns {Promise<import("@viz-js/viz").Viz>}
 */
async function viz() {
  if (!vizInstance) {
    const module = await import(new URL("./viz.js", import.meta.url).href);
    vizInstance = /** @type {import("@viz-js/viz").Viz} */ (await module.instance());
  }
  return vizInstance;
}

/**
 * A Graphviz picture's own width in CSS pixels (Graphviz sizes pictures in points).
 *
 * @param {SVGSVGElement} svg
 */
const naturalWidth = (svg) => (parseFloat(svg.getAttribute("width") ?? "") || 0) * (4 / 3);
const SMALLEST = 0.65; // a picture never shrinks below this share of its own size (see ember.css)
// A record label as hx writes it, { name | data 2 | grad 28 }: in a top-to-bottom picture, braces stack the fields.
const RECORD = /label="\{ ((?:[^"\\]|\\.)*) \}"/g;

/**
 * Render Graphviz DOT into an element as an SVG picture with a text alternative. ``room`` is the
 * width the picture gets, when known: a left-to-right picture too wide for it even at its smallest
 * is laid out top to bottom instead, when that makes it narrower.
 *
 * @param {string} dot
 * @param {string} alt  the picture's text alternative
 * @param {number} [room]  in CSS pixels; 0 when unknown
 * @returns {Promise<HTMLElement>} a figure
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
    svg = safeSvg(svg);
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

/**
 * The width a picture gets in ``target`` (the cell's output), within [low, high]; ``high`` where it
 * cannot be measured. Python lays plots out at the width the page sends with a run (see cells.js).
 *
 * @param {Element | null | undefined} target
 * @param {number} low
 * @param {number} high
 * @returns {number}
 */
export function roomIn(target, low, high) {
  const room = target?.isConnected ? target.clientWidth : 0;
  return room > 0 ? Math.max(low, Math.min(high, Math.floor(room))) : high;
}

/** @param {string} text  @returns {Blob} a long printed text as a file of its own */
const textFile = (text) => new Blob([text], { type: "text/plain;charset=utf-8" });

/**
 * Long printed text: buttons that open or save all of it, after the sentence Python wrote.
 *
 * @param {Element} node
 * @param {OutputItem} item
 */
function textButtons(node, item) {
  const more = node.querySelector(".ember-more");
  const full = item.full;
  if (!more || !full) return;
  const show = el("button", { class: "md-button", type: "button" }, "Open all of it in a new tab");
  show.addEventListener("click", () => {
    // Opened in a new tab as a file of its own, so the page never has to lay it out.
    el("a", { href: URL.createObjectURL(textFile(full)), target: "_blank", rel: "noopener" }).click();
  });
  const save = el("button", { class: "md-button", type: "button" }, "Download it");
  save.addEventListener("click", () => saveFile(textFile(full), "output.txt"));
  more.append(el("span", { "data-ui": true }, " ", show, " ", save));
}

/**
 * Every Graphviz placeholder of a node, drawn by viz.js (a data-fit picture may turn upright to fit).
 *
 * @param {Element} node
 * @param {Element} target  the output
 */
async function drawPictures(node, target) {
  for (const holder of node.querySelectorAll("figure[data-dot]")) {
    const room = holder.hasAttribute("data-fit") ? roomIn(target, 1, 100000) : 0;
    const dot = holder.getAttribute("data-dot") ?? "";
    const drawn = await drawDot(dot, holder.getAttribute("data-alt") || "", room);
    holder.append(
      ...[...drawn.childNodes].map((child) => {
        if (child.nodeType === 1) /** @type {Element} */ (child).setAttribute("data-ui", "");
        return child;
      }),
    );
  }
}

/**
 * HTML that Python made, as nodes (one item's worth: usually one element), cleaned of anything that could run.
 *
 * @param {string} html
 * @returns {DocumentFragment}
 */
const fromHtml = (html) => safeFragment(html);

/**
 * Draw a keyed item while the cell still runs, replacing its earlier picture.
 *
 * @param {Element} target
 * @param {OutputItem} item
 */
export function renderLive(target, item) {
  if (typeof item?.html !== "string" || typeof item.key !== "string" || !item.key) return;
  const fresh = fromHtml(item.html).firstElementChild;
  if (!fresh) return;
  fresh.setAttribute("data-key", item.key);
  const old = [...target.children].find((child) => child.getAttribute("data-key") === item.key);
  if (old) old.replaceWith(fresh);
  else target.append(fresh);
}

/**
 * Back, Next and Play over the frames Python drew (li.ember-step: a sentence, panels, and the
 * title of the picture's node to mark, kept in view). The frames' list is hidden; the current
 * frame is shown above the picture.
 *
 * @param {Element} box  the step-through's .ember-stepper
 */
function stepThrough(box) {
  const frames = /** @type {HTMLLIElement[]} */ ([...box.querySelectorAll(":scope > .ember-steps > li.ember-step")]);
  const picture = box.querySelector(":scope > figure");
  const truncated = box.hasAttribute("data-truncated");
  const say = el("p", { class: "ember-step-text", "aria-live": "polite", "data-ui": true });
  const panels = el("div", { class: "ember-panels", "data-ui": true });
  const counter = el("span", { class: "ember-step-count" });
  let at = 0;
  /** @type {ReturnType<typeof setInterval> | undefined} */
  let timer;
  const show = () => {
    const frame = frames[at];
    counter.textContent = `step ${at + 1} of ${frames.length}${truncated ? "+" : ""}`;
    say.textContent = frame.querySelector(".ember-step-words")?.textContent ?? "";
    panels.replaceChildren(...[...frame.querySelectorAll(".ember-panel")].map((panel) => panel.cloneNode(true)));
    const mark = frame.dataset.node;
    for (const node of picture ? picture.querySelectorAll("g.node") : []) {
      const title = node.querySelector("title");
      const current = Boolean(mark) && title?.textContent === mark;
      node.classList.toggle("ember-current", current);
      if (current && picture) keepInView(picture, node);
    }
  };
  const stop = () => {
    clearInterval(timer);
    timer = undefined;
    play.textContent = "Play";
    say.setAttribute("aria-live", "polite");
  };
  const back = el(
    "button",
    {
      class: "md-button",
      type: "button",
      onclick: () => {
        stop();
        at = Math.max(0, at - 1);
        show();
      },
    },
    "Back",
  );
  const next = el(
    "button",
    {
      class: "md-button",
      type: "button",
      onclick: () => {
        stop();
        at = Math.min(frames.length - 1, at + 1);
        show();
      },
    },
    "Next",
  );
  // Play moves on by itself, so it has no place where reduced motion is asked for (Back and Next stay), and while
  // it plays the sentence of each step is not read out.
  const play = el(
    "button",
    {
      class: "md-button ember-play",
      type: "button",
      onclick: () => {
        if (timer) return stop();
        play.textContent = "Pause";
        say.setAttribute("aria-live", "off");
        timer = setInterval(() => {
          if (at >= frames.length - 1) return stop();
          at += 1;
          show();
        }, 700);
      },
    },
    "Play",
  );
  if (!frames.length) return;
  const parts = /** @type {NodeListOf<HTMLElement>} */ (
    box.querySelectorAll(":scope > .ember-steps, :scope > .ember-step-summary")
  );
  for (const part of parts) part.hidden = true;
  const controls = el("div", { class: "ember-step-controls", "data-ui": true }, back, next, play, counter);
  (picture || box.querySelector(":scope > .ember-steps"))?.before(controls, say);
  if (picture) picture.after(panels);
  else box.append(panels);
  show();
}

/**
 * Scroll a picture's own box (never the page) so that one of its parts is in view.
 *
 * @param {Element} box
 * @param {Element} part
 */
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

/**
 * Insert one item's HTML into the output, then bring its moving parts to life.
 *
 * @param {Element} target
 * @param {OutputItem} item
 */
async function show(target, item) {
  if (typeof item?.html !== "string") {
    target.append(
      el("p", {
        class: "ember-error",
        text: `(this page cannot draw an item of kind "${String(item?.kind).slice(0, 40)}")`,
      }),
    );
    return;
  }
  const nodes = [...fromHtml(item.html).children];
  target.append(...nodes);
  for (const node of nodes) {
    if (typeof item.full === "string") textButtons(node, item);
    if (node.querySelector("figure[data-dot]")) await drawPictures(node, target);
    if (node.matches(".ember-stepper")) stepThrough(node);
  }
}

/**
 * Show every output item of a cell run, in order.
 *
 * @param {Element} target
 * @param {OutputItem[]} outputs
 */
export async function renderOutputs(target, outputs) {
  if (!Array.isArray(outputs)) return;
  for (const item of outputs) await show(target, item);
}
