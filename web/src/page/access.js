// @ts-check
// What the page adds for keyboards and screen readers beyond each part's own: names for the theme's search
// dialog and loading bar, a skip link to the lab, a way from cell to cell, and boxes that scroll sideways made
// reachable by keyboard (a formula, a table or a drawing wider than a phone).
import { el } from "../base/dom.js";

/** Names for the theme's own markup that has none: its search dialog; its loading bar is only a picture. */
export function nameTheThemesParts() {
  document.querySelector(".md-search[role=dialog]")?.setAttribute("aria-label", "Search the course");
  const progress = document.querySelector(".md-progress");
  if (progress) {
    progress.setAttribute("aria-hidden", "true"); // the page's own title change tells a new page has come
    progress.removeAttribute("role");
  }
}

const SCROLLERS =
  ".arithmatex, .katex-display, .ember-table, .md-typeset__scrollwrap, .ember-figure, .ember-tensor-heat, " +
  ".ember-pair, .ember-output pre, .ember-conflict-versions pre";

/**
 * Whether a box is narrower than what it holds, so that part of it is seen only by scrolling it.
 *
 * @param {Element} box
 */
function scrollsSideways(box) {
  return box.scrollWidth > box.clientWidth + 1 && getComputedStyle(box).overflowX !== "visible";
}

/**
 * Every box of ``root`` that scrolls sideways can be reached with Tab and scrolled with the arrow keys, and is
 * named; a box that no longer scrolls is taken out of the Tab order again. Run again whenever the page changes;
 * the document's data-ember-scroll-boxes counts the runs (a test waits on it after it resizes the window).
 *
 * @param {ParentNode} root
 */
export function reachScrollBoxes(root) {
  const looks = document.documentElement.dataset;
  looks.emberScrollBoxes = String(Number(looks.emberScrollBoxes || 0) + 1);
  for (const box of /** @type {NodeListOf<HTMLElement>} */ (root.querySelectorAll(SCROLLERS))) {
    if (box.closest(".cm-editor")) continue; // an editor scrolls itself and is focusable as it is
    const scrolls = scrollsSideways(box);
    if (scrolls && !box.hasAttribute("tabindex")) {
      box.setAttribute("tabindex", "0");
      box.setAttribute("role", "region");
      box.setAttribute(
        "aria-label",
        box.matches(".arithmatex, .katex-display")
          ? "Formula (scrolls sideways)"
          : box.matches(".ember-table, .md-typeset__scrollwrap")
            ? "Table (scrolls sideways)"
            : box.matches(".ember-conflict-versions pre")
              ? "Code (scrolls sideways)"
              : "Drawing or output (scrolls sideways)",
      );
      box.dataset.emberScrollBox = "true";
    } else if (!scrolls && box.dataset.emberScrollBox) {
      box.removeAttribute("tabindex");
      box.removeAttribute("role");
      box.removeAttribute("aria-label");
      delete box.dataset.emberScrollBox;
    }
  }
}

/** @type {MutationObserver | null} */
let watcher = null;
/** @type {(() => void) | null} */
let onResize = null; // the window's resize listener for the page watched now
const SETTLE_MS = 300;

/**
 * Keep ``root``'s scroll boxes reachable while its outputs come and the window changes size.
 *
 * @param {ParentNode} root
 */
export function watchScrollBoxes(root) {
  watcher?.disconnect();
  // Once things settle: a lab being rebuilt or a training drawing its curve changes the page many times a second,
  // and each look at the boxes measures their layout.
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  const again = () => {
    clearTimeout(timer);
    timer = setTimeout(() => reachScrollBoxes(root), SETTLE_MS);
  };
  watcher = new MutationObserver(again);
  watcher.observe(root, { childList: true, subtree: true });
  if (onResize) window.removeEventListener("resize", onResize);
  onResize = again;
  window.addEventListener("resize", again);
  again();
}

/**
 * Right after the theme's own "Skip to content", the first stops of the page's Tab order: links that skip to
 * the lab's first gap and to the first example cell. Out of sight until focused, as skip links are: from the top
 * of a lesson, Tab, Tab and Enter put the cursor in the first gap.
 *
 * @param {ParentNode} root
 */
export function mountSkipLinks(root) {
  for (const old of document.querySelectorAll(".ember-skip")) old.remove();
  const lab = /** @type {HTMLElement | null} */ (root.querySelector(".ember-lab"));
  const cell = /** @type {HTMLElement | null} */ (root.querySelector(".ember-cell"));
  if (!lab && !cell) return;
  const links = el("nav", { class: "ember-skip", "aria-label": "Skip to the lab or the examples" });
  if (lab) {
    lab.id ||= "ember-lab";
    links.append(
      el(
        "a",
        { class: "ember-skip-link", href: `#${lab.id}`, onclick: (/** @type {Event} */ event) => toLab(event, lab) },
        "Skip to the lab",
      ),
    );
  }
  if (cell) {
    cell.id ||= "ember-first-cell";
    links.append(
      el(
        "a",
        { class: "ember-skip-link", href: `#${cell.id}`, onclick: (/** @type {Event} */ event) => toCell(event, cell) },
        "Skip to the first example cell",
      ),
    );
  }
  const themeSkip = document.querySelector(".md-skip");
  if (themeSkip) themeSkip.after(links);
  else document.body.prepend(links);
}

/**
 * The theme's instant navigation takes a click on a link of the page, even to a place on it, as a visit: it would
 * draw the page anew and lose the focus the link has just given. A skip link's click stops with the page's own.
 *
 * @param {Event} event
 */
function own(event) {
  event.preventDefault();
  event.stopPropagation();
}

/**
 * The lab's first gap, with the cursor in it; before the editors are built, the lab itself.
 *
 * @param {Event} event
 * @param {HTMLElement} lab
 */
function toLab(event, lab) {
  own(event);
  const go = /** @type {HTMLButtonElement | null} */ (lab.querySelector(".ember-gap .ember-go"));
  if (go && lab.dataset.ready === "true") {
    go.click();
    return;
  }
  lab.setAttribute("tabindex", "-1");
  lab.scrollIntoView({ block: "start" });
  lab.focus({ preventScroll: true });
}

/**
 * The first example cell's editor (or its Run button while the editors wait for Python).
 *
 * @param {Event} event
 * @param {HTMLElement} cell
 */
function toCell(event, cell) {
  own(event);
  cell.scrollIntoView({ block: "start" });
  const target = /** @type {HTMLElement | null} */ (cell.querySelector(".cm-content, button"));
  if (target) target.focus({ preventScroll: true });
}

/** @type {((event: KeyboardEvent) => void) | null} */
let onCellKeys = null; // the document's keydown listener for the page now shown

/**
 * Alt+PageDown and Alt+PageUp move the focus to the next or the previous example cell's editor, or the lab,
 * from anywhere in the lesson, the editors included: the way from cell to cell without Tab-ing through prose.
 *
 * @param {ParentNode} root
 */
export function cellToCell(root) {
  if (onCellKeys) document.removeEventListener("keydown", onCellKeys, true);
  /** @param {KeyboardEvent} event */
  onCellKeys = (event) => {
    if (!event.altKey || (event.key !== "PageDown" && event.key !== "PageUp")) return;
    const stops = [.../** @type {NodeListOf<HTMLElement>} */ (root.querySelectorAll(".ember-cell, .ember-lab"))];
    if (!stops.length) return;
    const here = stops.findIndex((stop) => stop.contains(document.activeElement));
    /** @param {Element} stop */
    const below = (stop) => stop.getBoundingClientRect().top > 1;
    let next;
    if (event.key === "PageDown") next = here >= 0 ? stops[here + 1] : stops.find(below);
    else next = here >= 0 ? stops[here - 1] : [...stops].reverse().find((stop) => !below(stop));
    if (!next) return;
    event.preventDefault();
    if (next.classList.contains("ember-lab")) toLab(event, next);
    else toCell(event, next);
  };
  document.addEventListener("keydown", onCellKeys, true);
}
