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
}
