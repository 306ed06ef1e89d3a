// @ts-check
// Everything the Python worker sends is untrusted: the learner's code runs there, and it can post the page any
// message it likes (`import js; js.postMessage(...)`). HTML from the worker goes into the page only through here,
// cleaned by DOMPurify (vendored from npm by web/build.mjs, pinned in package.json): no scripts, no event-handler
// attributes, no javascript: addresses, no frames, forms, styles sheets or ids. What labs/showing/render.py makes
// (tables, SVG plots, Graphviz placeholders, classes, data-* attributes, inline styles) passes unchanged.
import DOMPurify from "dompurify";

/** Elements that never come from Python's renderer and could act on the page (forms post, frames load, styles restyle). */
const FORBID_TAGS = [
  "audio",
  "base",
  "button",
  "embed",
  "foreignObject",
  "form",
  "frame",
  "frameset",
  "iframe",
  "input",
  "link",
  "meta",
  "object",
  "option",
  "script",
  "select",
  "style",
  "template",
  "textarea",
  "video",
];

/** Attributes that could clobber the page's own names, send a form, or open a new browsing context. */
const FORBID_ATTR = ["id", "name", "form", "formaction", "action", "target", "srcset", "ping"];

/** @type {import("dompurify").Config} */
const CONFIG = {
  FORBID_TAGS,
  FORBID_ATTR,
  ALLOW_DATA_ATTR: true,
  ALLOW_UNKNOWN_PROTOCOLS: false,
  SANITIZE_DOM: true,
};

/**
 * HTML from the worker, cleaned, as nodes (nothing in it has run or loaded: it is parsed in an inert document).
 *
 * @param {string} html
 * @returns {DocumentFragment}
 */
export function safeFragment(html) {
  return DOMPurify.sanitize(String(html), { ...CONFIG, RETURN_DOM_FRAGMENT: true });
}

/**
 * An SVG element drawn from DOT the worker sent (viz.js), brought into this document and cleaned in place: DOT's
 * URL, href and image attributes become links and images in the picture, and must not become script.
 *
 * @param {SVGSVGElement} svg
 * @returns {SVGSVGElement}
 */
export function safeSvg(svg) {
  const own = /** @type {SVGSVGElement} */ (document.importNode(svg, true));
  DOMPurify.sanitize(own, { ...CONFIG, USE_PROFILES: { svg: true, svgFilters: true }, IN_PLACE: true });
  return own;
}
