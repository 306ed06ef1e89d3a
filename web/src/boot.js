// The page's first code. site_hooks/ember_pages.py writes it into the top of every page's head, so that
// on a lesson page Python's worker starts while the browser is still reading the page: as a file, even
// an async one, it ran only after the theme's and KaTeX's scripts, a third of a second later on a first
// visit. The rest of the page code (assets/gen/ember.js) takes the runtime from window.emberRuntime.
//
// The script element says where the built files are (data-gen, relative to the page) and, on a lesson
// page, which lesson it is (data-lesson).
import { Runtime } from "./runtime.js";
import { firstSnapshotUse } from "./visit.js";

if (!window.emberRuntime) { // once per visit: instant navigation keeps the page, and its runtime
  const script = document.currentScript;
  const gen = new URL(script.dataset.gen, document.baseURI);
  const runtime = new Runtime(new URL("worker.js", gen).href);
  runtime.snapshot = firstSnapshotUse();
  window.emberRuntime = runtime;
  if (script.dataset.lesson && location.protocol !== "file:") runtime.start();
  searchIndexOnDemand();
}

/**
 * The theme asks for its search index (an XMLHttpRequest) at every page load and builds it in a worker:
 * about a third of a CPU-second, on every page, that most visits never use and that, on a two-core laptop,
 * Python's start would share. The request is sent once the learner reaches for search: a key (the theme's
 * search keys among them) or a click or tap on the search box or its button.
 */
function searchIndexOnDemand() {
  const { open, send } = XMLHttpRequest.prototype;
  const held = new WeakSet();
  let release;
  const released = new Promise((resolve) => { release = resolve; });
  released.then(() => Object.assign(XMLHttpRequest.prototype, { open, send }));
  addEventListener("keydown", release, { capture: true, once: true });
  addEventListener("pointerdown", (event) => { if (event.target.closest?.(".md-search, [for=__search]")) release(); }, { capture: true });
  addEventListener("focusin", (event) => { if (event.target.closest?.(".md-search")) release(); }, { capture: true });
  XMLHttpRequest.prototype.open = function (method, url, ...rest) {
    if (new URL(url, document.baseURI).pathname.endsWith("/search/search_index.json")) held.add(this);
    return open.call(this, method, url, ...rest);
  };
  XMLHttpRequest.prototype.send = function (body) {
    if (!held.has(this)) return send.call(this, body);
    released.then(() => send.call(this, body));
  };
}
